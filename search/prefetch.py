"""A question batch's searches sent at once, then served one by one to code that searches one query at a time.

`PrefetchedIndex.prefetch(queries)` runs them with the backend's `search_many`
(one `_msearch` round trip per hundred on Elasticsearch); a later `search`
of an equal query (SearchQuery is a frozen dataclass) is answered from that
batch, any other query goes to the index as before. So the answer code
keeps asking one query at a time and gets the same hits.

>>> index = PrefetchedIndex(open_text_index(settings))
>>> index.prefetch([query_1, query_2])      # one round trip
>>> index.search(query_1)                   # no round trip
"""
from __future__ import annotations

from typing import Iterable, Sequence

from core.records import Chunk
from search.backend import Hit, SearchQuery, TextIndex


class PrefetchedIndex:
    """A TextIndex that answers prefetched queries from memory; everything else is delegated."""

    def __init__(self, index: TextIndex):
        self.index = index
        self._ready: dict[SearchQuery, list[Hit]] = {}
        self.served = 0  # searches answered from a prefetched batch (for benchmarks)

    @property
    def tokenizer(self):
        return self.index.tokenizer

    def prefetch(self, queries: Sequence[SearchQuery]) -> None:
        """Search `queries` in one batch; results not asked for by the next batch are dropped."""
        self._ready.clear()
        unique = list(dict.fromkeys(queries))
        self._ready = dict(zip(unique, self.index.search_many(unique)))

    def search(self, query: SearchQuery) -> list[Hit]:
        ready = self._ready.get(query)
        if ready is not None:
            self.served += 1
            return list(ready)
        return self.index.search(query)

    def search_many(self, queries: Sequence[SearchQuery]) -> list[list[Hit]]:
        return self.index.search_many(queries)

    def add(self, chunks: Iterable[Chunk]) -> int:
        self._ready.clear()
        return self.index.add(chunks)

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        self._ready.clear()
        self.index.delete_documents(doc_ids)

    def commit(self) -> None:
        self.index.commit()

    def count(self) -> int:
        return self.index.count()

    def close(self) -> None:
        self._ready.clear()
        self.index.close()
