"""PrefetchedIndex and PrefetchedFacts: a batch's searches and look-ups in one round trip, then served to
one-at-a-time callers unchanged."""

from __future__ import annotations

from decimal import Decimal

from core.records import Fact, ReportYear
from search.backend import FactLookup, SearchQuery
from search.prefetch import PrefetchedFacts, PrefetchedIndex
from search.sqlite_facts import SqliteFactStore


def test_prefetched_queries_are_served_from_the_batch_with_the_same_hits(text_index):
    index = PrefetchedIndex(text_index)
    first, second = SearchQuery(text="保單借款", limit=3), SearchQuery(text="营业收入", limit=4)
    index.prefetch([first, second, first])
    assert [h.chunk.chunk_id for h in index.search(second)] == [
        h.chunk.chunk_id for h in text_index.search(second)
    ]
    assert index.search(first) == text_index.search(first) and index.served == 2
    other = SearchQuery(text="従業員数", limit=2)
    assert (
        index.search(other) == text_index.search(other) and index.served == 2
    )  # not prefetched: asked directly


def test_a_change_to_the_index_drops_the_prefetched_hits(text_index, corpus):
    index = PrefetchedIndex(text_index)
    query = SearchQuery(text="保單借款", limit=3)
    index.prefetch([query])
    index.delete_documents(["insurance/7"])
    index.commit()
    assert "insurance/7" not in {h.chunk.doc_id for h in index.search(query)} and index.served == 0


def test_prefetched_lookups_are_served_from_the_batch_and_a_change_drops_them(tmp_path):
    revenue = Fact("甲", 2021, "营业收入", "10", Decimal(10), "元", "10", doc_id="甲/2021", page=3)
    with SqliteFactStore(tmp_path / "facts.sqlite") as sqlite:
        sqlite.add([revenue], [ReportYear("甲", 2021, doc_id="甲/2021")])
        sqlite.commit()
        store = PrefetchedFacts(sqlite)
        store.prefetch([FactLookup("甲", (2021,), ("营业收入", "营业总收入"))])
        served = store.lookup("甲", [2021], ["营业收入", "营业总收入"])
        assert served == sqlite.lookup("甲", [2021], ["营业收入", "营业总收入"])
        assert [r["value"] for r in served] == ["10"] and store.served == 1
        asked_directly = store.lookup("甲", [2021], ["营业收入"])
        assert [r["value"] for r in asked_directly] == ["10"] and store.served == 1
        assert store.reports() == sqlite.reports()  # the rest is the store's own
        store.add([Fact("甲", 2021, "营业总收入", "12", Decimal(12), "元", "12", doc_id="甲/2021", page=3)])
        store.commit()
        assert len(store.lookup("甲", [2021], ["营业收入", "营业总收入"])) == 2 and store.served == 1
