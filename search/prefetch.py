"""A question batch's searches and fact look-ups sent at once, then served one by one to code that asks one at a time.

`PrefetchedIndex.prefetch(queries)` runs them with the backend's `search_many`
(one `_msearch` round trip per hundred on Elasticsearch); a later `search`
of an equal query (SearchQuery is a frozen dataclass) is answered from that
batch, any other query goes to the index as before. So the answer code
keeps asking one query at a time and gets the same hits.

>>> index = PrefetchedIndex(open_text_index(settings))
>>> index.prefetch([query_1, query_2])      # one round trip
>>> index.search(query_1)                   # no round trip

`PrefetchedFacts` does the same for a facts store's `lookup` (`lookup_many`:
one `_msearch` per hundred look-ups on Elasticsearch).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.records import Chunk, Fact, ReportYear
from search.backend import FactLookup, FactStore, Hit, SearchQuery, TextIndex


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

    def compact(self) -> bool:
        self._ready.clear()
        return self.index.compact()

    def count(self) -> int:
        return self.index.count()

    def close(self) -> None:
        self._ready.clear()
        self.index.close()


class PrefetchedFacts:
    """A FactStore that answers prefetched look-ups from memory; everything else is delegated to the store.

    >>> import tempfile; from decimal import Decimal; from pathlib import Path
    >>> from core.records import Fact
    >>> from search.sqlite_facts import SqliteFactStore
    >>> store = PrefetchedFacts(SqliteFactStore(Path(tempfile.mkdtemp()) / "facts.sqlite"))
    >>> store.add([Fact("甲", 2021, "营业收入", "10", Decimal(10), "元", "10")])
    1
    >>> store.commit()
    >>> store.prefetch([FactLookup("甲", (2021,), ("营业收入",))])   # one round trip on a server
    >>> [row["value"] for row in store.lookup("甲", [2021], ["营业收入"])], store.served
    (['10'], 1)

    Served rows are shared by the look-ups of equal arguments: callers copy a row before changing it.
    """

    def __init__(self, store: FactStore):
        self.store = store
        self._ready: dict[FactLookup, object] = {}
        self.served = 0  # look-ups answered from a prefetched batch (for benchmarks)

    def prefetch(self, lookups: Sequence[FactLookup]) -> None:
        """Look up `lookups` in one batch; results not asked for by the next batch are dropped."""
        self._ready.clear()
        unique = list(dict.fromkeys(lookups))
        self._ready = dict(zip(unique, self.store.lookup_many(unique)))

    def lookup(self, company: str, years: Iterable[int], fields: Sequence[str]):
        ready = self._ready.get(FactLookup(company, tuple(years), tuple(fields)))
        if ready is not None:
            self.served += 1
            return ready
        return self.store.lookup(company, years, fields)

    def add(self, facts: Iterable[Fact], reports: Iterable[ReportYear] = ()) -> int:
        self._ready.clear()
        return self.store.add(facts, reports)

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        self._ready.clear()
        self.store.delete_documents(doc_ids)

    def __getattr__(self, name: str):
        # The other queries (rankings, counts, row cells, reports) are not batched: the store answers them.
        return getattr(self.store, name)
