"""Choosing among candidate facts by scope, statement kind and period kind."""

from qa.data.fact_pick import Asked, asks_parent, explain, fits_period, rank_facts


def row(cell, scope="", statement="other", period_kind="", year=2021, report_year=2021):
    return {
        "cell_id": cell,
        "scope": scope,
        "statement": statement,
        "period_kind": period_kind,
        "year": year,
        "report_year": report_year,
        "field": "营业收入",
        "period": "本期",
        "page": 5,
        "raw": "1",
        "value": "1",
    }


def cells(rows):
    return [r["cell_id"] for r in rows]


def test_consolidated_primary_statement_wins_over_earlier_key_figures_notes_and_parent():
    rows = [
        row("mdna", "", "mdna"),
        row("key", "", "key_figures"),
        row("parent", "parent", "income_statement"),
        row("note", "consolidated", "notes"),
        row("stmt", "consolidated", "income_statement"),
    ]
    assert cells(rank_facts(rows, parent=False)) == ["stmt", "note", "key", "mdna", "parent"]


def test_a_question_about_the_parent_company_takes_the_parents_statement():
    rows = [row("stmt", "consolidated", "balance_sheet"), row("parent", "parent", "balance_sheet")]
    assert cells(rank_facts(rows, parent=True)) == ["parent", "stmt"]
    assert asks_parent("贵州茅台2021年母公司的货币资金是多少元?") and asks_parent("個別決算における「製品」")
    assert not asks_parent("贵州茅台2021年的货币资金是多少元?")


def test_an_annual_question_takes_a_full_year_column_before_a_quarter():
    rows = [row("q3", "consolidated", "key_figures", "quarter"), row("year", "consolidated", "key_figures")]
    assert cells(rank_facts(rows, parent=False)) == ["year", "q3"]


def test_the_years_own_report_still_comes_first_and_equal_facts_keep_the_store_order():
    rows = [row("next", "consolidated", "income_statement", report_year=2022), row("a"), row("b")]
    assert cells(rank_facts(rows, parent=False)) == ["a", "b", "next"]


def test_explain_says_what_a_candidate_is():
    text = explain(row("stmt", "consolidated", "income_statement"))
    assert text.startswith("consolidated income_statement, own report") and "p5" in text


def test_a_field_takes_the_statement_it_stands_in_before_another_primary_statement():
    rows = [
        row("equity", "consolidated", "equity_changes"),
        row("income", "consolidated", "income_statement"),
    ]
    assert cells(rank_facts(rows, parent=False, home={"营业收入": "income_statement"})) == [
        "income",
        "equity",
    ]
    assert cells(rank_facts(rows, parent=False)) == ["equity", "income"]


def _column(kind, label, statement="income_statement"):
    return {"period_kind": kind, "period": label, "statement": statement}


def test_a_quarter_asked_takes_that_quarters_column_only():
    third = Asked(period="quarter", quarter=3)
    assert fits_period(_column("quarter", "111年7月1日至9月30日"), third)
    assert not fits_period(_column("ytd", "111年1月1日至9月30日"), third)  # 前三季 is nine months
    assert not fits_period(_column("quarter", "111年1月1日至3月31日"), third)  # another quarter
    assert not fits_period(_column("", "本期"), third)  # a year's figure
    assert fits_period(_column("", "111年9月30日", "balance_sheet"), third)  # the point in time it ends at
    assert not fits_period(_column("", "110年12月31日", "balance_sheet"), third)


def test_the_year_to_date_and_the_year_take_their_own_columns():
    assert fits_period(_column("ytd", "前三季度"), Asked(period="ytd", quarter=3))
    assert not fits_period(_column("quarter", "第三季度"), Asked(period="ytd", quarter=3))
    assert fits_period(_column("", "本期"), Asked()) and not fits_period(
        _column("quarter", "第三季度"), Asked()
    )
