"""search/sqlite_facts.py: the facts stores — lookups, which fact wins, rankings, deletes, transactions.

Tests taking the `store` fixture run against both backends (SQLite and, with a
server, Elasticsearch): they are the FactStore contract.
"""

from __future__ import annotations

import sqlite3
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from core.errors import InputError
from core.records import Fact, ReportYear
from search.backend import Condition
from search.fact_rows import RESULT_COLUMNS, precision_of, report_year_of
from search.settings import IndexSettings
from search.sqlite_facts import SqliteFactStore
from search.stores import open_fact_store


def fact(
    company,
    year,
    field,
    value,
    doc_id,
    page=10,
    raw=None,
    unit="元",
    table="p10t1",
    cell_id="",
    period="本期",
):
    number = None
    try:
        number = Decimal(value)
    except ArithmeticError:
        pass
    return Fact(
        company=company,
        year=year,
        field=field,
        value=value,
        number=number,
        unit=unit if number is not None else "",
        raw=value if raw is None else raw,
        period=period,
        doc_id=doc_id,
        page=page,
        table=table,
        cell_id=cell_id,
    )


@pytest.fixture(params=["sqlite", "elasticsearch"])
def store(request, tmp_path):
    """Each backend in turn (Elasticsearch through the es_url fixture: skipped without a server)."""
    if request.param == "sqlite":
        with SqliteFactStore(tmp_path / "facts.sqlite") as opened:
            yield opened
        return
    from search.elastic import connect
    from search.elastic_facts import ElasticFactStore

    es_url = request.getfixturevalue("es_url")
    settings = IndexSettings(
        Path(tmp_path), backend="elasticsearch", es_url=es_url, es_prefix=f"test-{uuid.uuid4().hex[:12]}"
    )
    with ElasticFactStore(settings) as opened:
        yield opened
    client = connect(es_url)
    client.options(ignore_status=404).indices.delete(index=opened.name)
    client.close()


def best(rows: list[dict]) -> dict[tuple[int, str], dict]:
    """The preferred row per (year, field), as the store orders them."""
    chosen: dict[tuple[int, str], dict] = {}
    for row in rows:
        chosen.setdefault((row["year"], row["field"]), row)
    return chosen


def test_lookup_returns_fact_columns_with_exact_decimals_and_sources(store):
    store.add(
        [
            fact("甲公司", 2021, "营业收入", "6799061282.86", "甲/2021", page=88, cell_id="c1"),
            fact("甲公司", 2021, "电子信箱", "ir@jia.cn", "甲/2021", page=3),
        ],
        [ReportYear("甲公司", 2021, short_name="甲", code="600001", doc_id="甲/2021")],
    )
    store.commit()
    rows = {r["field"]: r for r in store.lookup("甲公司", [2021], ["营业收入", "电子信箱"])}
    assert all(list(row) == list(RESULT_COLUMNS) for row in rows.values())
    revenue, mail = rows["营业收入"], rows["电子信箱"]
    assert revenue["number"] == Decimal("6799061282.86") and revenue["unit"] == "元"
    assert (revenue["doc_id"], revenue["page"], revenue["cell_id"]) == ("甲/2021", 88, "c1")
    assert mail["value"] == "ir@jia.cn" and mail["number"] is None
    assert store.lookup("乙公司", [2021], ["营业收入"]) == []
    assert store.lookup("甲公司", [2020], ["营业收入"]) == []


def test_the_years_own_report_wins_over_the_next_years_previous_year_column(store):
    store.add(
        [
            fact("甲", 2020, "净利润", "100.00", "甲/2020"),
            fact("甲", 2020, "净利润", "98.00", "甲/2021", period="上期"),  # restated in the 2021 report
            fact("甲", 2020, "存货", "7.00", "甲/2021", period="上期"),  # absent from the 2020 report
            fact("甲", 2021, "净利润", "120.00", "甲/2021"),
        ],
        [ReportYear("甲", 2020, doc_id="甲/2020"), ReportYear("甲", 2021, doc_id="甲/2021")],
    )
    store.commit()
    chosen = best(store.lookup("甲", [2020], ["净利润", "存货"]))
    assert chosen[2020, "净利润"]["value"] == "100.00" and chosen[2020, "净利润"]["report_year"] == 2020
    # The next year's report supplies what the year's own report lacks, and says so.
    assert chosen[2020, "存货"]["value"] == "7.00" and chosen[2020, "存货"]["report_year"] == 2021


def test_the_most_precise_figure_wins_then_the_earliest_page(store):
    store.add(
        [
            # MD&A summary in 万元 (page 8), the consolidated statement in 元 (page 60),
            # the parent company's statement in 元 (page 70).
            fact("甲", 2021, "营业收入", "123381500", "甲/2021", page=8, raw="12,338.15"),
            fact("甲", 2021, "营业收入", "123381468.84", "甲/2021", page=60, raw="123,381,468.84"),
            fact("甲", 2021, "营业收入", "98000000.00", "甲/2021", page=70, raw="98,000,000.00"),
        ],
        [ReportYear("甲", 2021, doc_id="甲/2021")],
    )
    store.commit()
    assert [row["page"] for row in store.lookup("甲", [2021], ["营业收入"])] == [60, 70, 8]


def test_the_name_asked_first_wins_over_its_synonyms(store):
    store.add(
        [
            fact("甲", 2021, "总负债", "5", "甲/2021", page=1),
            fact("甲", 2021, "负债合计", "6", "甲/2021", page=50),
        ],
        [ReportYear("甲", 2021, doc_id="甲/2021")],
    )
    store.commit()
    assert [r["value"] for r in store.lookup("甲", [2021], ["负债合计", "总负债"])] == ["6", "5"]
    assert [r["value"] for r in store.lookup("甲", [2021], ["总负债", "负债合计"])] == ["5", "6"]


def test_a_workbook_covering_many_years_marks_previous_year_values_as_from_the_next_report(store):
    reports = [
        ReportYear("甲", 2021, doc_id="facts"),
        ReportYear("乙", 2020, doc_id="facts"),
        ReportYear("乙", 2021, doc_id="facts"),
    ]
    store.add(
        [
            fact("甲", 2020, "净利润", "1", "facts"),
            fact("乙", 2020, "净利润", "2", "facts"),
            fact("甲", 2021, "净利润", "3", "facts"),
        ],
        reports,
    )
    store.commit()
    assert [r["report_year"] for r in store.lookup("甲", [2020], ["净利润"])] == [2021]
    assert [r["report_year"] for r in store.lookup("乙", [2020], ["净利润"])] == [2020]
    assert [r["report_year"] for r in store.lookup("甲", [2021], ["净利润"])] == [2021]


@pytest.mark.parametrize(
    "year,document_years,expected",
    [
        (2020, set(), 2020),
        (2020, {2020}, 2020),
        (2020, {2021}, 2021),
        (2019, {2020, 2021}, 2020),
        (2018, {2020, 2021}, 2018),
        (2020, {2019, 2021}, 2021),
    ],
)
def test_report_year_of(year, document_years, expected):
    assert report_year_of(year, frozenset(document_years)) == expected


@pytest.mark.parametrize(
    "number,raw,expected",
    [
        ("1234.56", "1,234.56", -2),
        ("123381500", "12,338.15", 2),
        ("-1234000", "(1,234)", 3),
        ("4187000000", "△ 4,187", 6),
        ("45137586000.0", "", -1),
        ("0.125", "12.5%", -3),
        ("0", "0.00", -2),
    ],
)
def test_precision_of_is_the_power_of_ten_of_the_last_printed_digit(number, raw, expected):
    assert precision_of(Decimal(number), raw) == expected


def company_values(frame):
    return list(zip(frame["company"], frame["value"]))


def test_ranking_lists_each_company_once_by_its_preferred_fact(store):
    store.add(
        [
            fact("甲", 2021, "营业收入", "300", "甲/2021"),
            fact("甲", 2021, "营业收入", "900", "甲/2021", page=99, raw="9"),
        ]
    )
    store.add(
        [
            fact("乙", 2021, "营业收入", "500", "乙/2021"),
            fact("丙", 2021, "营业收入", "100", "丙/2021"),
            fact("丁", 2020, "营业收入", "999", "丁/2020"),
            fact("戊", 2021, "营业成本", "999", "戊/2021"),
        ]
    )
    store.commit()
    assert company_values(store.ranking("营业收入", 2021, 2)) == [("乙", "500"), ("甲", "300")]
    assert company_values(store.ranking("营业收入", 2021, 1, descending=False)) == [("丙", "100")]
    assert company_values(store.ranking("营业收入", 2021, 10)) == [
        ("乙", "500"),
        ("甲", "300"),
        ("丙", "100"),
    ]


def test_ranking_over_many_pages_finds_a_company_whose_largest_figure_is_not_its_preferred_one(store):
    store.page_size = 2  # read two values per step, so the ranking must look past the first pages
    # 甲's MD&A figure (万元, less precise) is the largest number in the store, but its
    # preferred (statement) figure is the smallest: 甲 must not take first place.
    facts = [
        fact("甲", 2021, "营业收入", "990000", "甲/2021", page=5, raw="99"),
        fact("甲", 2021, "营业收入", "10.00", "甲/2021", page=60),
    ]
    facts += [
        fact(f"公司{i:02d}", 2021, "营业收入", f"{1000 + i}.00", f"{i}/2021", page=60) for i in range(12)
    ]
    store.add(facts)
    store.commit()
    top = store.ranking("营业收入", 2021, 3)
    assert list(top["company"]) == ["公司11", "公司10", "公司09"]
    bottom = store.ranking("营业收入", 2021, 1, descending=False)
    assert list(zip(bottom["company"], bottom["value"])) == [("甲", "10.00")]


def test_ranking_keeps_every_company_tied_with_the_last_place(store):
    store.add(
        [
            fact(c, 2021, "净利润", v, f"{c}/2021")
            for c, v in [("甲", "10"), ("乙", "30"), ("丙", "20"), ("丁", "20"), ("戊", "5")]
        ]
    )
    store.commit()
    # Ties are listed by company name.
    assert company_values(store.ranking("净利润", 2021, 2)) == [("乙", "30"), ("丁", "20"), ("丙", "20")]


def test_ranking_can_keep_to_one_unit(store):
    store.add(
        [
            fact("甲", 2021, "营业收入", "10", "甲/2021"),
            fact("乙", 2021, "营业收入", "2000", "乙/2021", unit="円"),
        ]
    )
    store.commit()
    assert company_values(store.ranking("营业收入", 2021, 5, unit="元")) == [("甲", "10")]
    assert company_values(store.ranking("营业收入", 2021, 5, unit="円")) == [("乙", "2000")]
    assert company_values(store.ranking("营业收入", 2021, 5)) == [("乙", "2000"), ("甲", "10")]


def test_ranking_ignores_text_values_and_reads_synonyms(store):
    store.add(
        [
            fact("甲", 2021, "总负债", "10", "甲/2021"),
            fact("乙", 2021, "负债合计", "20", "乙/2021"),
            fact("丙", 2021, "负债合计", "n/a", "丙/2021"),
        ]
    )
    store.commit()
    assert company_values(store.ranking(["负债合计", "总负债"], 2021, 5)) == [("乙", "20"), ("甲", "10")]


def _statistics_corpus(store):
    # 甲's preferred 2021 figure is its statement's 300 (the MD&A's less precise 900 万-scale figure loses),
    # so a threshold of 500 must not count 甲 although one of its facts exceeds it.
    store.add(
        [
            fact("甲", 2021, "营业收入", "300.00", "甲/2021", page=60),
            fact("甲", 2021, "营业收入", "900", "甲/2021", page=5, raw="9"),
            fact("乙", 2021, "营业收入", "500.00", "乙/2021"),
            fact("丙", 2021, "营业收入", "700.00", "丙/2021"),
            fact("乙", 2020, "营业收入", "400.00", "乙/2020"),
            fact("丁", 2021, "营业成本", "999", "丁/2021"),
            fact("甲", 2021, "注册地址", "浙江省杭州市西湖区", "甲/2021"),
            fact("乙", 2021, "注册地址", "江苏省南京市", "乙/2021"),
            fact("丙", 2021, "办公地址", "浙江省宁波市", "丙/2021"),
        ]
    )
    store.commit()


def test_company_values_give_each_company_years_preferred_value_filtered_in_the_store(store):
    _statistics_corpus(store)
    values = store.company_values(["营业收入"], [2020, 2021])
    assert [(r.company, r.year, r.value) for r in values.itertuples()] == [
        ("丙", 2021, "700.00"),
        ("乙", 2020, "400.00"),
        ("乙", 2021, "500.00"),
        ("甲", 2021, "300.00"),
    ]
    over = store.company_values(["营业收入"], [2021], condition=Condition(">=", 500))
    assert sorted(over["company"]) == ["丙", "乙"]
    assert list(store.company_values(["营业收入"], [2021], companies=["甲", "戊"])["company"]) == ["甲"]
    assert store.company_values(["营业收入"], [2021], companies=[]).empty


def test_count_companies_counts_preferred_values_meeting_the_condition(store):
    _statistics_corpus(store)
    assert store.count_companies(["营业收入"], 2021) == 3
    assert store.count_companies(["营业收入"], 2021, condition=Condition(">", 500)) == 1
    assert store.count_companies(["营业收入"], 2021, condition=Condition("<", 600)) == 2
    assert (
        store.count_companies(["营业收入"], 2021, companies=["甲", "丙"], condition=Condition(">", 250)) == 2
    )
    assert store.count_companies(["营业收入"], 2019) == 0


def test_companies_with_text_find_addresses_containing_a_place(store):
    _statistics_corpus(store)
    assert store.companies_with_text(["注册地址"], ["杭州"]) == {"甲"}
    assert store.companies_with_text(["注册地址", "办公地址"], ["浙江"]) == {"甲", "丙"}
    assert store.companies_with_text(["注册地址"], ["上海"]) == set()


def test_a_fact_without_a_company_is_no_companys_in_rankings_counts_and_lists(store):
    """Facts of a document whose company is unknown stay with the document (row_cells reads them by cell)
    but never take a place among companies."""
    _statistics_corpus(store)
    store.add(
        [
            fact("", 2021, "营业收入", "999999.00", "unknown/2021", cell_id="unknown-tab1-r1c2"),
            fact("", 2021, "注册地址", "浙江省温州市", "unknown/2021"),
        ]
    )
    store.commit()
    assert company_values(store.ranking("营业收入", 2021, 1)) == [("丙", "700.00")]
    assert "" not in set(store.company_values(["营业收入"], [2021])["company"])
    assert store.count_companies(["营业收入"], 2021) == 3
    assert store.count_companies(["营业收入"], 2021, condition=Condition(">", 500)) == 1
    assert store.companies_with_text(["注册地址"], ["浙江"]) == {"甲"}
    assert [c.value for c in store.row_cells(["unknown-tab1-r1"])["unknown-tab1-r1"]] == ["999999.00"]


def test_delete_documents_removes_their_facts_and_company_years(store):
    store.add(
        [fact("甲", 2021, "净利润", "1", "甲/2021"), fact("乙", 2021, "净利润", "2", "乙/2021")],
        [ReportYear("甲", 2021, doc_id="甲/2021"), ReportYear("乙", 2021, doc_id="乙/2021")],
    )
    store.commit()
    store.delete_documents(["甲/2021"])
    store.commit()
    assert store.lookup("甲", [2021], ["净利润"]) == []
    assert [row["company"] for row in store.reports()] == ["乙"]
    assert store.count() == 1


def test_nothing_is_visible_to_readers_before_commit_and_close_without_commit_rolls_back(tmp_path):
    path = tmp_path / "facts.sqlite"
    writer = SqliteFactStore(path)
    writer.add([fact("甲", 2021, "净利润", "1", "甲/2021")], [ReportYear("甲", 2021, doc_id="甲/2021")])
    with SqliteFactStore(path) as reader:
        assert reader.count() == 0 and reader.reports() == []
    writer.close()
    with SqliteFactStore(path) as reader:
        assert reader.count() == 0
    with SqliteFactStore(path) as writer:
        writer.add([fact("甲", 2021, "净利润", "1", "甲/2021")])
        writer.commit()
    with SqliteFactStore(path) as reader:
        assert reader.count() == 1


def test_adding_the_same_company_year_twice_keeps_one_report_row(store):
    report = ReportYear("甲", 2021, short_name="甲", code="1", doc_id="甲/2021")
    store.add([], [report])
    store.add([], [report])
    store.commit()
    assert store.reports("甲") == [
        {"company": "甲", "year": 2021, "short_name": "甲", "code": "1", "doc_id": "甲/2021"}
    ]
    assert store.reports("乙") == []


def test_a_damaged_store_file_is_a_one_line_error(tmp_path):
    path = tmp_path / "facts.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="facts.sqlite: facts store is damaged .*new INDEX_DIR"):
        SqliteFactStore(path)


def test_a_store_locked_by_another_writer_is_a_clear_error(tmp_path):
    path = tmp_path / "facts.sqlite"
    SqliteFactStore(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with SqliteFactStore(path, timeout=0) as store:
            with pytest.raises(InputError, match="locked by another process"):
                store.add([fact("甲", 2021, "净利润", "1", "甲/2021")])
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_open_fact_store_gives_the_sqlite_store_under_the_index_directory(tmp_path):
    store = open_fact_store(IndexSettings(Path(tmp_path)))
    try:
        assert isinstance(store, SqliteFactStore) and store.path == tmp_path / "facts.sqlite"
    finally:
        store.close()


def test_statement_scope_and_period_kind_are_stored_and_returned(store):
    base = fact("甲公司", 2021, "货币资金", "100", "甲/2021", page=50, cell_id="c1")
    store.add(
        [
            Fact(**{**base.__dict__, "statement": "balance_sheet", "scope": "consolidated"}),
            Fact(
                **{
                    **base.__dict__,
                    "value": "30",
                    "number": Decimal("30"),
                    "page": 90,
                    "cell_id": "c2",
                    "statement": "notes",
                    "scope": "parent",
                    "period_kind": "quarter",
                }
            ),
        ],
        [ReportYear("甲公司", 2021, doc_id="甲/2021")],
    )
    store.commit()
    rows = {r["cell_id"]: r for r in store.lookup("甲公司", [2021], ["货币资金"])}
    kinds = ("statement", "scope", "period_kind")
    assert tuple(rows["c1"][k] for k in kinds) == ("balance_sheet", "consolidated", "")
    assert tuple(rows["c2"][k] for k in kinds) == ("notes", "parent", "quarter")


def test_a_store_written_before_statement_columns_existed_gets_them_empty(tmp_path):
    path = tmp_path / "facts.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE facts (company TEXT NOT NULL, year INTEGER NOT NULL, field TEXT NOT NULL,
        value TEXT NOT NULL, number TEXT, num REAL, unit TEXT NOT NULL DEFAULT '', raw TEXT NOT NULL DEFAULT '',
        period TEXT NOT NULL DEFAULT '', short_name TEXT NOT NULL DEFAULT '', code TEXT NOT NULL DEFAULT '',
        doc_id TEXT NOT NULL DEFAULT '', page INTEGER NOT NULL DEFAULT 0, table_id TEXT NOT NULL DEFAULT '',
        cell_id TEXT NOT NULL DEFAULT '', report_year INTEGER NOT NULL, precision INTEGER NOT NULL DEFAULT 0);
        INSERT INTO facts (company, year, field, value, report_year) VALUES ('甲公司', 2021, '货币资金', '1', 2021);""")
    db.commit()
    db.close()
    with SqliteFactStore(path) as store:
        [row] = store.lookup("甲公司", [2021], ["货币资金"])
    assert (row["value"], row["statement"], row["scope"], row["period_kind"]) == ("1", "", "", "")


def _cell_ids(found: dict) -> dict[str, list[str]]:
    return {row: [fact.cell_id for fact in facts] for row, facts in found.items()}


def test_row_cells_returns_every_fact_of_the_rows_asked_and_no_other(store):
    store.add(
        [
            fact("甲", 2020, "売上高", "10", "甲/a", cell_id="T-tab1-r5c2"),
            fact("甲", 2021, "売上高", "12", "甲/a", cell_id="T-tab1-r5c3"),
            fact("甲", 2021, "費用", "7", "甲/a", cell_id="T-tab1-r50c3"),
            fact("甲", 2021, "売上高", "99", "甲/a", cell_id="T-tab2-r5c3"),
        ],
        [ReportYear("甲", 2021, doc_id="甲/a")],
    )
    store.commit()
    assert _cell_ids(store.row_cells(["T-tab1-r5"])) == {"T-tab1-r5": ["T-tab1-r5c2", "T-tab1-r5c3"]}
    rows = store.row_cells(["T-tab1-r50", "T-tab2-r5", "T-tab3-r1"])  # a row without facts is left out
    assert {row: [(c.value, c.number) for c in facts] for row, facts in rows.items()} == {
        "T-tab1-r50": [("7", Decimal("7"))],
        "T-tab2-r5": [("99", Decimal("99"))],
    }
    assert store.row_cells([]) == {}


def test_row_cells_give_a_row_the_cells_its_id_names_and_no_longer_rows_cells(store):
    """A row id may hold a "c" itself: a cell of the row "T-tab1-r5c-x-r1" sorts among the cells of the row
    "T-tab1-r5", but is only the longer row's."""
    store.add(
        [
            fact("甲", 2021, "売上高", "1", "甲/a", cell_id="T-tab1-r5c2"),
            fact("甲", 2021, "費用", "2", "甲/a", cell_id="T-tab1-r5c-x-r1c2"),
        ]
    )
    store.commit()
    assert _cell_ids(store.row_cells(["T-tab1-r5"])) == {"T-tab1-r5": ["T-tab1-r5c2"]}
    assert _cell_ids(store.row_cells(["T-tab1-r5", "T-tab1-r5c-x-r1"])) == {
        "T-tab1-r5": ["T-tab1-r5c2"],
        "T-tab1-r5c-x-r1": ["T-tab1-r5c-x-r1c2"],
    }


def test_row_cells_read_again_see_what_another_connection_committed_since(tmp_path):
    path = tmp_path / "facts.sqlite"
    with SqliteFactStore(path) as reader, SqliteFactStore(path) as writer:
        writer.add([fact("甲", 2021, "売上高", "12", "甲/a", cell_id="T-tab1-r5c3")])
        writer.commit()
        assert [r.value for r in reader.row_cells(["T-tab1-r5"])["T-tab1-r5"]] == ["12"]
        writer.delete_documents(["甲/a"])
        writer.add(
            [
                fact("甲", 2021, "売上高", "13", "甲/a", cell_id="T-tab1-r5c3"),
                fact("甲", 2021, "売上高", "14", "甲/a", cell_id="T-tab1-r5c4"),
            ]
        )
        writer.commit()
        assert [r.value for r in reader.row_cells(["T-tab1-r5"])["T-tab1-r5"]] == ["13", "14"]


def test_row_cells_read_again_see_the_stores_own_writes(store):
    store.add([fact("甲", 2021, "売上高", "12", "甲/a", cell_id="T-tab1-r5c3")])
    store.commit()
    assert [r.value for r in store.row_cells(["T-tab1-r5"])["T-tab1-r5"]] == ["12"]
    store.delete_documents(["甲/a"])
    store.commit()
    assert store.row_cells(["T-tab1-r5"]) == {}


def test_row_cells_are_whole_when_more_rows_are_asked_than_are_kept(tmp_path):
    with SqliteFactStore(tmp_path / "facts.sqlite", cached_rows=2) as small:
        small.add(
            [
                fact("甲", 2021, "売上高", str(row), "甲/a", cell_id=f"T-tab1-r{row}c{col}")
                for row in range(1, 5)
                for col in (2, 3)
            ]
        )
        small.commit()
        small.row_cells(["T-tab1-r1", "T-tab1-r2"])
        cells = small.row_cells(["T-tab1-r2", "T-tab1-r3", "T-tab1-r4", "T-tab1-r1"])
    assert _cell_ids(cells) == {
        f"T-tab1-r{row}": [f"T-tab1-r{row}c{col}" for col in (2, 3)] for row in (2, 3, 4, 1)
    }


def test_a_full_disk_while_adding_is_one_line_naming_the_store(tmp_path):
    # SQLite's max_page_count makes the file full as a full disk would ("database or disk is full").
    with SqliteFactStore(tmp_path / "facts.sqlite") as facts:
        facts._db.execute(
            f"PRAGMA max_page_count = {facts._db.execute('PRAGMA page_count').fetchone()[0] + 2}"
        )
        with pytest.raises(InputError, match="the disk is full") as error:
            facts.add(fact("示例科技", 2022, f"项目{n}", str(n), "annual/x") for n in range(20_000))
            facts.commit()
        assert str(error.value).startswith(str(tmp_path / "facts.sqlite"))


def test_a_page_damaged_after_opening_is_a_damaged_store_not_a_traceback(tmp_path):
    path = tmp_path / "facts.sqlite"
    with SqliteFactStore(path) as facts:
        facts.add(fact("示例科技", 2022, f"项目{n}", str(n), "annual/x") for n in range(5_000))
        facts.commit()
        facts._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with SqliteFactStore(path) as facts:  # opens fine: the header and the schema pages are intact
        data = bytearray(path.read_bytes())
        page = int.from_bytes(data[16:18], "big")
        data[4 * page :] = b"\xa5" * (len(data) - 4 * page)
        path.write_bytes(bytes(data))
        with pytest.raises(InputError, match="facts store is damaged"):
            facts.lookup("示例科技", [2022], [f"项目{n}" for n in range(0, 5_000, 50)])
