"""search/elastic_facts.py against a real Elasticsearch server (docker/elasticsearch.sh).

The FactStore contract tests (tests/search/test_facts.py) run against this store
too; here: what is particular to Elasticsearch, and both stores answering a
generated corpus alike.
"""

from __future__ import annotations

import random
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from core.errors import InputError
from core.records import Fact, ReportYear
from search.backend import Condition, FactLookup
from search.elastic import connect
from search.elastic_facts import ElasticFactStore
from search.settings import IndexSettings
from search.sqlite_facts import SqliteFactStore
from search.stores import open_fact_store


@pytest.fixture
def settings(es_url, tmp_path):
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    yield IndexSettings(Path(tmp_path), backend="elasticsearch", es_url=es_url, es_prefix=prefix)
    client = connect(es_url)
    client.indices.delete(index=f"{prefix}-facts", ignore_unavailable=True)
    client.close()


@pytest.fixture
def store(settings):
    with ElasticFactStore(settings) as opened:
        yield opened


def test_open_fact_store_gives_the_elasticsearch_store_for_that_backend(settings):
    store = open_fact_store(settings)
    try:
        assert isinstance(store, ElasticFactStore) and store.name == f"{settings.es_prefix}-facts"
    finally:
        store.close()


def test_adding_the_same_facts_again_replaces_them(store):
    facts = [
        Fact("甲", 2021, "净利润", "1", Decimal(1), "元", doc_id="甲/2021"),
        Fact("甲", 2021, "营业收入", "2", Decimal(2), "元", doc_id="甲/2021"),
    ]
    store.add(facts)
    store.add(facts)
    store.commit()
    assert store.count() == 2


def test_delete_finds_facts_added_since_the_last_commit(store):
    store.add(
        [Fact("甲", 2021, "净利润", "1", Decimal(1), "元", doc_id="甲/2021")],
        [ReportYear("甲", 2021, doc_id="甲/2021")],
    )
    store.delete_documents(["甲/2021"])
    store.commit()
    assert store.count() == 0 and store.reports() == []


def test_an_unreachable_server_is_a_one_line_error_naming_the_url(tmp_path):
    settings = IndexSettings(Path(tmp_path), backend="elasticsearch", es_url="http://127.0.0.1:9")
    with pytest.raises(InputError, match=r"http://127\.0\.0\.1:9: Elasticsearch does not answer"):
        ElasticFactStore(settings)


def test_an_index_of_another_mapping_version_is_refused(settings):
    client = connect(settings.es_url)
    client.indices.create(index=f"{settings.es_prefix}-facts", mappings={"_meta": {"finqa_mapping": 0}})
    client.close()
    with pytest.raises(InputError, match="made by another version of finqa"):
        ElasticFactStore(settings)


def generated_corpus(seed: int = 7):
    """Companies with own-year and previous-year facts, duplicate figures at other pages and precisions,
    synonyms and text values: everything the preference order decides."""
    rng = random.Random(seed)
    facts, reports = [], []
    for c in range(40):
        company = f"公司{c:02d}"
        for year in (2020, 2021):
            doc = f"{company}/{year}"
            reports.append(ReportYear(company, year, doc_id=doc))
            for field in ("营业收入", "净利润", "负债合计"):
                for previous in (0, 1):
                    value = Decimal(rng.randrange(-(10**6), 10**9)) / 100
                    facts.append(
                        Fact(
                            company,
                            year - previous,
                            field,
                            str(value),
                            value,
                            "元",
                            f"{value:,}",
                            "上期" if previous else "本期",
                            doc_id=doc,
                            page=rng.randrange(1, 200),
                            table=f"t{rng.randrange(5)}",
                            cell_id=f"c{rng.randrange(10**6)}",
                        )
                    )
                if rng.random() < 0.3:  # the same figure rounded to 万元 in a summary table
                    value = Decimal(rng.randrange(10**5)) * 10**4
                    facts.append(
                        Fact(
                            company,
                            year,
                            field,
                            str(value),
                            value,
                            "元",
                            f"{value / 10**4}",
                            doc_id=doc,
                            page=rng.randrange(1, 200),
                        )
                    )
            facts.append(Fact(company, year, "总负债", "1", Decimal(1), "元", "1", doc_id=doc, page=1))
            facts.append(Fact(company, year, "法定代表人", f"张{rng.randrange(3)}", doc_id=doc, page=2))
    return facts, reports


def test_both_stores_answer_a_generated_corpus_alike(store, tmp_path):
    facts, reports = generated_corpus()
    store.add(facts, reports)
    store.commit()
    with SqliteFactStore(tmp_path / "facts.sqlite") as sqlite:
        sqlite.add(facts, reports)
        sqlite.commit()
        assert sqlite.count() == store.count()
        assert sqlite.reports() == store.reports()
        for company in ("公司00", "公司17", "公司39"):
            mine = sqlite.lookup(company, [2019, 2020, 2021], ["负债合计", "总负债", "法定代表人", "净利润"])
            theirs = store.lookup(company, [2019, 2020, 2021], ["负债合计", "总负债", "法定代表人", "净利润"])
            assert mine == theirs
        for field, year, limit, descending in [
            ("营业收入", 2021, 5, True),
            ("净利润", 2020, 7, False),
            (["负债合计", "总负债"], 2021, 40, True),
            ("营业收入", 2019, 3, True),
        ]:
            mine = sqlite.ranking(field, year, limit, descending, unit="元")
            theirs = store.ranking(field, year, limit, descending, unit="元")
            assert mine.to_dict("records") == theirs.to_dict("records"), (field, year)
        for names, years, condition in [
            (["营业收入"], [2019, 2021], None),
            (["负债合计", "总负债"], [2021], None),
            (["净利润"], [2020], Condition(">", 4 * 10**8)),
        ]:
            mine = sqlite.company_values(names, years, unit="元", condition=condition)
            theirs = store.company_values(names, years, unit="元", condition=condition)
            assert mine.to_dict("records") == theirs.to_dict("records"), names
            assert sqlite.count_companies(names, years[-1], condition=condition) == store.count_companies(
                names, years[-1], condition=condition
            )


def test_a_batch_of_lookups_gets_on_both_stores_what_each_lookup_gets(settings, tmp_path):
    facts, reports = generated_corpus()
    lookups = [
        FactLookup(f"公司{c:02d}", (2019, 2020, 2021), ("负债合计", "总负债", "法定代表人"))
        for c in range(0, 40, 7)
    ]
    lookups += [
        FactLookup("公司03", (2021,), ("净利润",)),
        FactLookup("公司03", (), ("净利润",)),
        FactLookup("无此公司", (2021,), ("净利润",)),
    ]
    with (
        ElasticFactStore(settings, msearch_size=2) as store,
        SqliteFactStore(tmp_path / "facts.sqlite") as sqlite,
    ):
        for opened in (store, sqlite):
            opened.add(facts, reports)
            opened.commit()
        batch = store.lookup_many(lookups)  # 5 _msearch requests
        assert batch == sqlite.lookup_many(lookups)
        assert batch == [sqlite.lookup(*lookup) for lookup in lookups]
        assert all(batch[:-2]) and batch[-2:] == [[], []]


def test_both_stores_give_the_cells_of_table_rows_alike(store, tmp_path):
    facts = [
        Fact("甲", 2020, "売上高", "10", Decimal(10), "円", "10", doc_id="d", page=1, cell_id="T-tab1-r5c2"),
        Fact("甲", 2021, "売上高", "12", Decimal(12), "円", "12", doc_id="d", page=1, cell_id="T-tab1-r5c3"),
        Fact("甲", 2021, "費用", "7", Decimal(7), "円", "7", doc_id="d", page=1, cell_id="T-tab1-r50c3"),
        Fact("甲", 2021, "代表者", "山田", doc_id="d", page=1, cell_id="T-tab2-r5c3"),
        Fact("甲", 2021, "費用", "3", Decimal(3), "円", "3", doc_id="d", page=1, cell_id="T-tab1-r5c-x-r1c2"),
    ]
    reports = [ReportYear("甲", 2021, doc_id="d")]
    store.add(facts, reports)
    store.commit()
    with SqliteFactStore(tmp_path / "facts.sqlite") as sqlite:
        sqlite.add(facts, reports)
        sqlite.commit()
        for rows in (
            ["T-tab1-r5"],
            ["T-tab1-r50", "T-tab2-r5", "T-tab3-r1"],
            ["T-tab1-r5", "T-tab1-r5c-x-r1"],
            [],
        ):
            assert dict(sqlite.row_cells(rows)) == dict(store.row_cells(rows)), rows
        assert [r.cell_id for r in store.row_cells(["T-tab1-r5"])["T-tab1-r5"]] == [
            "T-tab1-r5c2",
            "T-tab1-r5c3",
        ]
        assert [r.number for r in store.row_cells(["T-tab2-r5"])["T-tab2-r5"]] == [None]
