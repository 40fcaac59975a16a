"""The TextIndex contract, run on both backends (search/embedded.py and search/elastic.py) with one corpus."""

from __future__ import annotations

import dataclasses

import pytest

from search.backend import SearchQuery

MOUTAI, WULIANGYE, UMC, TOYOTA = (
    "贵州茅台酒股份有限公司",
    "宜宾五粮液股份有限公司",
    "聯華電子股份有限公司",
    "トヨタ自動車株式会社",
)


def ids(hits):
    return [h.chunk.chunk_id for h in hits]


def docs(hits):
    return {h.chunk.doc_id for h in hits}


def test_count_is_the_number_of_chunks_added(text_index, corpus):
    assert text_index.count() == len(corpus)


def test_hits_restore_the_whole_chunk(text_index, corpus):
    by_id = {c.chunk_id: c for c in corpus}
    hits = text_index.search(SearchQuery(text="従業員数", limit=3))
    assert hits and hits[0].chunk == by_id["S100IXUZ/S100IXUZ-0105010#text0"]
    assert (
        hits[0].chunk.titles == by_id[hits[0].chunk.chunk_id].titles and hits[0].chunk.cell_id == "cell-712"
    )
    assert all(h.chunk == by_id[h.chunk.chunk_id] for h in hits)


def test_traditional_question_finds_traditional_text_best_first(text_index):
    hits = text_index.search(SearchQuery(text="保單借款的可借金額上限是多少？", limit=5))
    assert docs(hits[:2]) == {"insurance/7", "insurance/241"}
    assert hits[0].score >= hits[1].score > 0


def test_simplified_question_finds_traditional_text(text_index):
    hits = text_index.search(SearchQuery(text="保单借款可借金额上限", limit=2))
    assert docs(hits) == {"insurance/7", "insurance/241"}


def test_quarter_and_year_in_the_question_match_the_text(text_index):
    hits = text_index.search(SearchQuery(text="2023年第1季合併營業收入", limit=3))
    assert docs(hits[:2]) == {"finance/12", "finance/13"}


def test_company_filter_keeps_that_company_and_documents_of_unknown_company(text_index):
    hits = text_index.search(SearchQuery(text="2023年第1季合併營業收入", companies=(UMC,)))
    # finance/12 is another company's; finance/1 names none, so it is neither excluded nor favoured
    assert ids(hits) == ["finance/13#text0", "finance/1#text0"]


def test_year_filter_keeps_only_those_years(text_index):
    hits = text_index.search(SearchQuery(text="营业收入", years=(2021,)))
    assert ids(hits) == ["annual/000858_2021#text0"]
    both = text_index.search(SearchQuery(text="营业收入", years=(2021, 2022)))
    assert {h.chunk.year for h in both} == {2021, 2022}


def test_doc_id_filter_takes_exact_ids_and_path_prefixes(text_index):
    exact = text_index.search(SearchQuery(text="売上高", doc_ids=("S100IXUZ/S100IXUZ-0101010",)))
    assert ids(exact) == ["S100IXUZ/S100IXUZ-0101010#table0"]
    report = text_index.search(SearchQuery(text="売上高 従業員数 キャッシュ・フロー", doc_ids=("S100IXUZ",)))
    assert docs(report) == {
        "S100IXUZ/S100IXUZ-0101010",
        "S100IXUZ/S100IXUZ-0102010",
        "S100IXUZ/S100IXUZ-0105010",
    }
    folder = text_index.search(SearchQuery(text="營業收入", doc_ids=("finance/",), limit=10))
    assert docs(folder) == {"finance/12", "finance/13"}


def test_doc_id_prefixes_end_at_slashes(text_index):
    # "finance/1" is a document of its own, not a prefix of finance/12 and finance/13.
    hits = text_index.search(SearchQuery(text="本公司 合併 營業收入 財務報告", doc_ids=("finance/1",)))
    assert docs(hits) == {"finance/1"}


def test_several_doc_ids_are_alternatives(text_index):
    hits = text_index.search(SearchQuery(text="保單借款", doc_ids=("insurance/7", "insurance/300")))
    assert docs(hits) == {"insurance/7", "insurance/300"}


def test_kind_filter(text_index):
    hits = text_index.search(SearchQuery(text="负债合计 营业收入", kinds=("table",)))
    assert hits and {h.chunk.kind for h in hits} == {"table"}
    assert docs(hits) == {"annual/600519_2022", "annual/000858_2022"}


def test_filters_alone_return_every_match_unscored_in_id_order(text_index):
    hits = text_index.search(SearchQuery(companies=(TOYOTA,), doc_ids=("S100IXUZ",), kinds=("text",)))
    assert ids(hits) == ["S100IXUZ/S100IXUZ-0102010#text0", "S100IXUZ/S100IXUZ-0105010#text0"]
    assert all(h.score == 0 for h in hits)


def test_an_empty_query_finds_nothing(text_index):
    assert text_index.search(SearchQuery()) == []
    assert text_index.search(SearchQuery(text="。，、")) == []


def test_with_scoring_clauses_every_hit_matches_one_of_them(text_index):
    hits = text_index.search(SearchQuery(text="蒸馏名酒", years=(2022,), limit=10))
    assert ids(hits) == ["annual/600519_2022#text1"]


def test_phrase_requires_the_words_in_order(text_index):
    # insurance/300 has 保單 and 借款, but apart: the phrase clause alone must not find it.
    hits = text_index.search(SearchQuery(phrases=("保單借款",), doc_ids=("insurance",)))
    assert docs(hits) == {"insurance/7", "insurance/241"}


def test_phrase_match_raises_the_score(text_index):
    plain = text_index.search(SearchQuery(text="保單 借款", doc_ids=("insurance",)))
    phrased = text_index.search(SearchQuery(text="保單 借款", phrases=("保單借款",), doc_ids=("insurance",)))
    plain_scores = {h.chunk.doc_id: h.score for h in plain}
    phrased_scores = {h.chunk.doc_id: h.score for h in phrased}
    assert phrased_scores["insurance/7"] > plain_scores["insurance/7"]
    assert phrased_scores["insurance/300"] == pytest.approx(plain_scores["insurance/300"], rel=1e-3)
    assert ids(phrased)[-1] == "insurance/300#text0"


def test_phrase_of_several_words_matches_across_word_parts(text_index):
    hits = text_index.search(SearchQuery(phrases=("営業活動によるキャッシュ・フロー",)))
    assert ids(hits) == ["S100IXUZ/S100IXUZ-0102010#text0"]
    hits = text_index.search(SearchQuery(phrases=("归属于上市公司股东的净利润",)))
    assert ids(hits) == ["annual/600519_2022#text0"]


def test_title_match_is_boosted(text_index):
    without = text_index.search(SearchQuery(text="营业收入", companies=(WULIANGYE, MOUTAI)))
    assert ids(without)[0] == "annual/000858_2021#text0"  # the shortest chunk wins on body alone
    with_title = text_index.search(
        SearchQuery(text="营业收入", titles=("经营情况讨论与分析",), companies=(WULIANGYE, MOUTAI))
    )
    assert ids(with_title)[0] == "annual/600519_2022#text0"
    stronger = text_index.search(
        SearchQuery(
            text="营业收入", titles=("经营情况讨论与分析",), title_boost=4.0, companies=(WULIANGYE, MOUTAI)
        )
    )
    assert stronger[0].score > with_title[0].score


def test_limit_caps_the_hits(text_index):
    assert len(text_index.search(SearchQuery(text="营业收入 營業收入 売上高", limit=3))) == 3


def test_delete_documents_removes_every_chunk_of_them(text_index, corpus):
    text_index.delete_documents(["annual/600519_2022", "insurance/7"])
    text_index.commit()
    assert text_index.count() == len(corpus) - 4
    assert not docs(text_index.search(SearchQuery(text="茅台酒 负债合计 保單借款", limit=20))) & {
        "annual/600519_2022",
        "insurance/7",
    }
    assert "insurance/241" in docs(text_index.search(SearchQuery(text="保單借款")))


def test_delete_of_unknown_documents_is_harmless(text_index, corpus):
    text_index.delete_documents(["no/such/doc"])
    text_index.commit()
    assert text_index.count() == len(corpus)


def test_adding_the_same_chunks_again_replaces_them(text_index, corpus):
    changed = dataclasses.replace(corpus[5], text="2021年公司营业收入662.09亿元，净利润233.77亿元。")
    assert text_index.add([*corpus[:5], changed]) == 6
    text_index.commit()
    assert text_index.count() == len(corpus)
    hits = text_index.search(SearchQuery(text="净利润", years=(2021,)))
    assert [h.chunk.text for h in hits] == [changed.text]


def test_chunks_added_then_deleted_before_commit_are_gone(text_index, corpus):
    extra = dataclasses.replace(
        corpus[0], chunk_id="annual/600519_2023#text0", doc_id="annual/600519_2023", year=2023
    )
    text_index.add([extra])
    text_index.delete_documents(["annual/600519_2023"])
    text_index.commit()
    assert text_index.count() == len(corpus)


QUERIES = (
    SearchQuery(text="保單借款的可借金額上限", limit=5),
    SearchQuery(text="2023年第1季合併營業收入", limit=5),
    SearchQuery(text="贵州茅台2022年营业收入是多少", limit=5),
    SearchQuery(text="负债合计", phrases=("负债合计",), limit=5),
    SearchQuery(text="売上高はいくらですか", doc_ids=("S100IXUZ",), limit=5),
    SearchQuery(text="従業員数と平均年間給与", titles=("従業員の状況",), limit=5),
    SearchQuery(text="营业收入", titles=("管理层讨论与分析",), years=(2022,), limit=5),
    SearchQuery(text="借款利率", phrases=("借款利率", "保單"), doc_ids=("insurance/",), limit=5),
)


def test_both_backends_rank_alike(open_backend, corpus):
    """Same tokens, same BM25: the same hits in the same order, with the same scores."""
    indexes = [open_backend(b) for b in ("embedded", "elasticsearch")]
    for index in indexes:
        index.add(corpus)
        index.commit()
    for query in QUERIES:
        embedded, elastic = (index.search(query) for index in indexes)
        assert embedded, query
        assert ids(embedded) == ids(elastic), query
        assert [h.score for h in embedded] == pytest.approx([h.score for h in elastic], rel=1e-3), query


def test_a_batch_of_queries_gets_the_hits_of_each_query_alone(text_index):
    queries = [
        SearchQuery(text="保單借款的可借金額上限是多少？", limit=5),
        SearchQuery(text="营业收入", years=(2021,)),
        SearchQuery(limit=0, text="营业收入"),  # asks for nothing
        SearchQuery(),  # matches nothing
        SearchQuery(doc_ids=("insurance/",), limit=2),  # filters only: chunk_id order
        SearchQuery(text="2023年第1季合併營業收入", companies=(UMC,)),
    ]
    batch = text_index.search_many(queries)
    assert [ids(hits) for hits in batch] == [ids(text_index.search(q)) for q in queries]
    assert [[h.score for h in hits] for hits in batch] == [
        [h.score for h in text_index.search(q)] for q in queries
    ]
    assert batch[0] and batch[2] == [] and batch[3] == [] and text_index.search_many([]) == []


def test_compacting_after_the_last_commit_changes_no_hit(text_index, corpus):
    queries = [SearchQuery(text=t, limit=5) for t in ("保單借款", "2023年第1季合併營業收入", "従業員数")]
    before = [[(h.chunk, h.score) for h in text_index.search(q)] for q in queries]
    assert isinstance(text_index.compact(), bool)
    assert [[(h.chunk, h.score) for h in text_index.search(q)] for q in queries] == before
    assert text_index.count() == len(corpus)
