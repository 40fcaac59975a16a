"""PrefetchedIndex: a batch's searches in one round trip, then served to one-at-a-time callers unchanged."""
from __future__ import annotations

from search.backend import SearchQuery
from search.prefetch import PrefetchedIndex


def test_prefetched_queries_are_served_from_the_batch_with_the_same_hits(text_index):
    index = PrefetchedIndex(text_index)
    first, second = SearchQuery(text="保單借款", limit=3), SearchQuery(text="营业收入", limit=4)
    index.prefetch([first, second, first])
    assert [h.chunk.chunk_id for h in index.search(second)] == [h.chunk.chunk_id for h in text_index.search(second)]
    assert index.search(first) == text_index.search(first) and index.served == 2
    other = SearchQuery(text="従業員数", limit=2)
    assert index.search(other) == text_index.search(other) and index.served == 2  # not prefetched: asked directly


def test_a_change_to_the_index_drops_the_prefetched_hits(text_index, corpus):
    index = PrefetchedIndex(text_index)
    query = SearchQuery(text="保單借款", limit=3)
    index.prefetch([query])
    index.delete_documents(["insurance/7"])
    index.commit()
    assert "insurance/7" not in {h.chunk.doc_id for h in index.search(query)} and index.served == 0
