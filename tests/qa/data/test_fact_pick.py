"""Choosing among candidate facts by scope, statement kind and period kind."""
from qa.data.fact_pick import asks_parent, explain, rank_facts


def row(cell, scope="", statement="other", period_kind="", year=2021, report_year=2021):
    return {"cell_id": cell, "scope": scope, "statement": statement, "period_kind": period_kind, "year": year,
            "report_year": report_year, "field": "营业收入", "period": "本期", "page": 5, "raw": "1", "value": "1"}


def cells(rows):
    return [r["cell_id"] for r in rows]


def test_consolidated_primary_statement_wins_over_earlier_key_figures_notes_and_parent():
    rows = [row("mdna", "", "mdna"), row("key", "", "key_figures"), row("parent", "parent", "income_statement"),
            row("note", "consolidated", "notes"), row("stmt", "consolidated", "income_statement")]
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
    rows = [row("equity", "consolidated", "equity_changes"), row("income", "consolidated", "income_statement")]
    assert cells(rank_facts(rows, parent=False, home={"营业收入": "income_statement"})) == ["income", "equity"]
    assert cells(rank_facts(rows, parent=False)) == ["equity", "income"]
