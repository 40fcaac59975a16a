"""qa/data/answer.py: answers from a real SQLite facts store, the shipped formulas, fields and templates."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from core.records import Fact, ReportYear
from qa.answers import AnswerTemplates
from qa.data.answer import DataAnswerer
from qa.formulas import FormulaBook
from qa.records import Analysis, Company, OutputRequest, Question
from search.sqlite_facts import SqliteFactStore

KANGXI = Company("康希诺生物股份公司", "康希诺", "688185")
JIA = Company("甲科技股份有限公司", "甲科技", "600001")
YI = Company("乙制造股份有限公司", "乙制造", "600002")
BING = Company("丙电子股份有限公司", "丙电子", "600003")
DING = Company("丁能源股份有限公司", "丁能源", "600004")
TOYO = Company("東洋精機株式会社", "東洋精機", "9999")
NEGATIVE_WORDS = ("无", "不", "没有", "未", "否", "非")


def f(company, year, field, value, doc, page=50, unit="元", period="本期", cell_id="", raw=None):
    number = Decimal(value) if re.fullmatch(r"-?\d+(\.\d+)?", value) else None
    return Fact(
        company.name,
        year,
        field,
        value,
        number,
        unit if number is not None else "",
        value if raw is None else raw,
        period,
        company.short_name,
        company.code,
        doc,
        page,
        f"p{page}t1",
        cell_id,
    )


def report(company, year, doc):
    return ReportYear(company.name, year, company.short_name, company.code, doc)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    store = SqliteFactStore(tmp_path_factory.mktemp("facts") / "facts.sqlite")
    facts = [
        # 康希诺 2020 (FinGLM dev values)
        f(KANGXI, 2020, "负债合计", "677219000.0", "kx/2020", page=120, cell_id="kx-r40c2"),
        f(KANGXI, 2020, "资产总计", "6748073000.0", "kx/2020", page=119),
        f(KANGXI, 2020, "电子信箱", "ir@cansinotech.com", "kx/2020", page=4),
        # 甲 2020 and 2021 reports; the 2021 report restates 2020's 净利润 and alone lists 2020's 存货
        f(JIA, 2020, "营业收入", "800.00", "jia/2020"),
        f(JIA, 2020, "营业成本", "600.00", "jia/2020"),
        f(JIA, 2020, "净利润", "100.00", "jia/2020"),
        f(JIA, 2020, "流动资产合计", "300.00", "jia/2020"),
        f(JIA, 2020, "流动负债合计", "150.00", "jia/2020"),
        f(JIA, 2020, "法定代表人", "张三", "jia/2020", page=3),
        f(JIA, 2021, "营业收入", "1000.00", "jia/2021"),
        f(JIA, 2021, "营业成本", "700.00", "jia/2021"),
        f(JIA, 2021, "净利润", "120.00", "jia/2021"),
        f(JIA, 2021, "流动资产合计", "330.00", "jia/2021"),
        f(JIA, 2021, "流动负债合计", "220.00", "jia/2021"),
        f(JIA, 2021, "存货", "55.00", "jia/2021"),
        f(JIA, 2021, "法定代表人", "李 四", "jia/2021", page=3),
        f(JIA, 2021, "销售费用", "20.00", "jia/2021"),
        f(JIA, 2021, "管理费用", "40.00", "jia/2021"),
        f(JIA, 2021, "财务费用", "0", "jia/2021"),
        f(JIA, 2021, "基本每股收益", "0.744095", "jia/2021", unit="元/股"),
        f(JIA, 2021, "在职员工的数量合计", "400", "jia/2021", unit="人"),
        f(JIA, 2021, "硕士", "21", "jia/2021", unit="人"),
        f(JIA, 2021, "每股经营现金流量", "1.293", "jia/2021"),
        f(JIA, 2020, "净利润", "98.00", "jia/2021", period="上期"),
        f(JIA, 2019, "营业收入", "640.00", "jia/2020", period="上期"),
        f(JIA, 2020, "财务费用", "0", "jia/2020"),
        f(JIA, 2020, "存货", "50.00", "jia/2021", period="上期", cell_id="jia-r9c3"),
        # 乙 2021, 2020 (same 法定代表人), 丙 and 丁 2021 for rankings (丙 and 丁 tie)
        f(YI, 2021, "营业收入", "5000.00", "yi/2021"),
        f(YI, 2021, "法定代表人", "王五", "yi/2021"),
        f(YI, 2020, "法定代表人", "王五", "yi/2020"),
        f(YI, 2021, "总负债", "900.00", "yi/2021"),
        Fact(YI.name, 2021, "股票代码", "2155", Decimal(2155), "", "002155", doc_id="yi/2021", page=1),
        f(BING, 2021, "营业收入", "700.00", "bing/2021"),
        f(DING, 2021, "营业收入", "700.00", "ding/2021"),
        # 東洋精機 (Japanese): 営業利益 and 売上高 in 円
        f(TOYO, 2021, "营业利润", "75000000", "toyo/2021", unit="円"),
        f(TOYO, 2021, "营业收入", "1000000000", "toyo/2021", unit="円"),
        f(TOYO, 2020, "营业收入", "800000000", "toyo/2021", unit="円", period="前期"),
        # Japanese tables: a label the field list does not know, a ratio column next to an amount
        f(TOYO, 2021, "前払費用", "9000000", "toyo/2021", unit="円", period="当連結会計年度(2021年３月31日)"),
        f(
            TOYO,
            2021,
            "長期前払費用",
            "5000000",
            "toyo/2021",
            unit="円",
            period="当連結会計年度(2021年３月31日)",
        ),
        f(
            TOYO,
            2021,
            "营业利润",
            "7.5",
            "toyo/2021",
            page=10,
            unit="%",
            period="当連結会計年度/売上高比（％）",
        ),
    ]
    reports = [
        report(KANGXI, 2020, "kx/2020"),
        report(JIA, 2020, "jia/2020"),
        report(JIA, 2021, "jia/2021"),
        report(YI, 2021, "yi/2021"),
        report(YI, 2020, "yi/2020"),
        report(BING, 2021, "bing/2021"),
        report(DING, 2021, "ding/2021"),
        report(TOYO, 2021, "toyo/2021"),
    ]
    store.add(facts, reports)
    store.commit()
    yield DataAnswerer(store, FormulaBook.load(), AnswerTemplates.load())
    store.close()


def ask(answerer, type_, company=None, years=(), fields=(), keywords=(), text="", **more):
    analysis = Analysis(
        question=Question("q1", text or "问题"),
        type=type_,
        rule_id="test",
        company=company,
        years=tuple(years),
        fields=tuple(fields),
        keywords=tuple(keywords),
        **more,
    )
    return answerer.run(analysis)


def is_negative(answer):
    return (
        answer.value is None
        and any(w in answer.answer for w in NEGATIVE_WORDS)
        and answer.route.startswith("negative")
    )


# -- lookup ---------------------------------------------------------------------------------------------------------


def test_lookup_gives_the_value_as_printed_with_its_unit_and_its_source(answerer):
    answer = ask(answerer, "lookup", KANGXI, [2020], ["负债合计"], ["总负债"])
    assert answer.value == "677219000.0"
    assert "677219000.0元" in answer.answer and "总负债" in answer.answer and "2020" in answer.answer
    assert answer.route == "lookup:facts" and answer.documents == ["kx/2020"]
    assert (answer.evidence[0].doc, answer.evidence[0].page, answer.evidence[0].cell_id) == (
        "kx/2020",
        120,
        "kx-r40c2",
    )


def test_asking_for_the_unit_the_value_already_has_keeps_it_as_printed(answerer):
    answer = ask(
        answerer, "lookup", KANGXI, [2020], ["负债合计"], ["总负债"], output=OutputRequest(unit="元")
    )
    assert answer.value == "677219000.0" and "677219000.0元" in answer.answer


def test_a_number_is_shown_as_printed_when_that_is_the_stored_number(answerer):
    # A facts workbook cell "002155" is stored as 2155; the answer keeps the printed digits.
    answer = ask(answerer, "lookup", YI, [2021], ["股票代码"], ["证券代码"])
    assert answer.value == "002155" and "002155" in answer.answer


def test_the_field_is_named_as_the_question_names_it_spelled_as_the_field_list_does(answerer):
    answer = ask(answerer, "lookup", JIA, [2021], ["每股经营现金流量"], ["每股的经营现金流量"])
    assert "的每股经营现金流量是1.293元" in answer.answer
    answer = ask(answerer, "lookup", YI, [2021], ["负债合计"], ["总负债"])
    assert "的总负债是900.00元" in answer.answer


def test_lookup_of_a_text_field_gives_the_text(answerer):
    answer = ask(answerer, "lookup", KANGXI, [2020], ["电子信箱"], ["电子信箱"])
    assert answer.value == "ir@cansinotech.com" and "ir@cansinotech.com" in answer.answer


def test_lookup_finds_a_fact_stored_under_a_synonym(answerer):
    answer = ask(answerer, "lookup", YI, [2021], ["负债合计"], ["负债合计"])
    assert answer.value == "900.00" and answer.evidence[0].text.count("总负债") == 1


def test_a_value_missing_from_its_own_report_comes_from_the_next_years_report_and_says_so(answerer):
    answer = ask(answerer, "lookup", JIA, [2020], ["存货"], ["存货"])
    assert answer.value == "50.00"
    assert answer.documents == ["jia/2021"] and "2021年年报中的上年数" in answer.evidence[0].text
    assert answer.evidence[0].cell_id == "jia-r9c3"


def test_a_year_without_its_report_is_answered_from_the_next_reports_previous_year_column(answerer):
    answer = ask(answerer, "lookup", JIA, [2019], ["营业收入"], ["营业收入"])
    assert answer.value == "640.00" and "2020年年报中的上年数" in answer.evidence[0].text
    # ... but what no report of the corpus gives is the negative answer for a missing report.
    assert ask(answerer, "lookup", JIA, [2019], ["净利润"], ["净利润"]).route == "negative:no_report"


def test_the_years_own_report_wins_over_a_restated_figure(answerer):
    assert ask(answerer, "lookup", JIA, [2020], ["净利润"], ["净利润"]).value == "100.00"


def test_several_fields_of_one_company_are_listed_together(answerer):
    # FinGLM 1-2 questions (X和Y分别是多少) reach the data route typed as ranking, without an N.
    answer = ask(answerer, "ranking", JIA, [2021], ["销售费用", "管理费用"], ["销售费用", "管理费用"])
    assert "销售费用为20.00元" in answer.answer and "管理费用为40.00元" in answer.answer
    assert answer.value == "20.00；40.00" and answer.type == "ranking"


def test_a_lookup_over_several_years_answers_each_year_in_order(answerer):
    answer = ask(answerer, "lookup", JIA, [2021, 2020], ["营业收入"], ["营业收入"])
    assert answer.value == "800.00；1000.00" and answer.answer.index("800.00元") < answer.answer.index(
        "1000.00元"
    )
    assert answer.documents == ["jia/2020", "jia/2021"]


def test_lookup_converts_to_the_unit_and_precision_asked(answerer):
    answer = ask(
        answerer,
        "lookup",
        KANGXI,
        [2020],
        ["资产总计"],
        ["资产总额"],
        output=OutputRequest(digits=2, unit="万元"),
    )
    assert answer.value == "674807.30" and "674807.30万元" in answer.answer


def test_a_unit_that_does_not_fit_the_value_is_ignored(answerer):
    answer = ask(
        answerer,
        "lookup",
        JIA,
        [2021],
        ["在职员工的数量合计"],
        ["职工总数"],
        output=OutputRequest(unit="万元"),
    )
    assert answer.value == "400" and "400人" in answer.answer


def test_lookup_rounds_at_a_named_place(answerer):
    answer = ask(
        answerer,
        "lookup",
        TOYO,
        [2021],
        ["营业收入"],
        ["売上高"],
        language="ja",
        output=OutputRequest(round_at="千万円", unit="百万円"),
    )
    assert answer.value == "1000" and "1000百万円" in answer.answer


def ask_ja(answerer, question, fields=(), keywords=()):
    return ask(answerer, "lookup", TOYO, [2021], fields, keywords, text=question, language="ja")


def test_a_quoted_row_label_is_looked_up_as_written_before_the_field_it_contains(answerer):
    answer = ask_ja(
        answerer,
        "東洋精機株式会社の2021年時点における「長期前払費用」は？",
        ["预付款项"],
        ["前払費用", "長期前払費用"],
    )
    assert answer.value == "5000000"


def test_a_percentage_column_does_not_answer_for_an_amount(answerer):
    answer = ask_ja(answerer, "東洋精機株式会社の2021年における「営業利益」は？", ["营业利润"], ["営業利益"])
    assert answer.value == "75000000"


# -- negative answers -----------------------------------------------------------------------------------------------


def test_a_company_year_not_in_the_corpus_gets_the_negative_answer_without_numbers(answerer):
    answer = ask(answerer, "lookup", KANGXI, [2019], ["负债合计"], ["总负债"])
    assert is_negative(answer) and answer.route == "negative:no_report"
    assert re.sub(r"2019", "", answer.answer) == re.sub(r"\d", "", re.sub(r"2019", "", answer.answer))


@pytest.mark.parametrize(
    "type_,fields,extra",
    [
        ("formula", ("负债合计", "资产总计"), {"formula": "资产负债比率"}),
        ("compare_years", ("法定代表人",), {}),
    ],
)
def test_every_data_question_about_a_missing_company_year_is_answered_negatively(
    answerer, type_, fields, extra
):
    years = (2018, 2019) if type_ == "compare_years" else (2019,)
    answer = ask(answerer, type_, KANGXI, years, fields, **extra)
    assert is_negative(answer) and answer.route == "negative:no_report"


def test_an_unknown_company_gets_the_negative_answer(answerer):
    answer = ask(answerer, "lookup", Company("不存在股份有限公司", "不存在"), [2021], ["营业收入"])
    assert is_negative(answer)


def test_a_value_the_report_lacks_gets_the_negative_value_answer(answerer):
    answer = ask(answerer, "lookup", KANGXI, [2020], ["研发费用"], ["研发费用"])
    assert is_negative(answer) and answer.route == "negative:no_value" and "研发费用" in answer.answer


# -- formulas -------------------------------------------------------------------------------------------------------


def test_a_formula_answer_states_formula_operands_with_units_and_result(answerer):
    answer = ask(
        answerer,
        "formula",
        KANGXI,
        [2020],
        ["负债合计", "资产总计"],
        formula="资产负债比率",
        output=OutputRequest(digits=2),
    )
    assert answer.value == "10.04%"  # 677219000 / 6748073000 = 0.100357...
    assert "资产负债比率=总负债/资产总额" in answer.answer
    assert "总负债为677219000.0元" in answer.answer and "资产总额为6748073000.0元" in answer.answer
    assert answer.route == "formula:facts" and set(answer.documents) == {"kx/2020"}


def test_formula_operands_all_come_from_the_asked_year(answerer):
    # 甲 2021: (330 - 55) / 220 = 1.25; 2020's 流动资产合计 300 and 存货 50 must not be mixed in.
    answer = ask(answerer, "formula", JIA, [2021], formula="速动比率")
    assert answer.value == "1.25"
    assert {e.text.split()[1] for e in answer.evidence} == {"2021年"}


def test_growth_reads_the_previous_year_from_the_same_report(answerer):
    # 2021 report: 净利润 120, its previous-year column 98 (restated; the 2020 report says 100).
    answer = ask(answerer, "formula", JIA, [2021], ["净利润"], formula="净利润增长率")
    assert answer.value == "22.45%"  # (120 - 98) / 98 = 0.224489...
    assert (
        "上年净利润为98.00元" in answer.answer
        and "净利润增长率=(净利润-上年净利润)/上年净利润" in answer.answer
    )


def test_growth_without_the_previous_year_is_answered_negatively(answerer):
    answer = ask(answerer, "formula", YI, [2021], ["营业收入"], formula="营业收入增长率")
    assert is_negative(answer) and "上年营业收入" in answer.answer


def test_the_question_can_ask_for_more_decimals_or_a_ratio_instead_of_a_percentage(answerer):
    answer = ask(
        answerer, "formula", JIA, [2021], formula="毛利率", output=OutputRequest(digits=4, percent=False)
    )
    assert answer.value == "0.3000"  # (1000 - 700) / 1000


def test_a_zero_divisor_is_reported_not_computed(answerer):
    assert ask(answerer, "formula", JIA, [2021], formula="财务费用率").value == "0.00%"  # 0 / 1000 is fine
    # 甲's 财务费用 was 0 in 2020 too: its growth rate is undefined.
    answer = ask(answerer, "formula", JIA, [2021], ["财务费用"], formula="财务费用增长率")
    assert answer.value is None and answer.route == "negative:formula_undefined"
    assert "分母为0" in answer.answer and any(w in answer.answer for w in NEGATIVE_WORDS)


def test_an_optional_operand_the_report_omits_counts_as_zero_and_the_answer_says_so(answerer):
    answer = ask(answerer, "formula", JIA, [2021], formula="企业硕士及以上人员占职工人数比例")
    assert answer.value == "0.05"  # 21 / 400 = 0.0525
    assert "博士及以上人数未列示，按0计" in answer.answer


def test_a_share_asked_without_ratio_or_percent_states_the_ratio_and_its_percentage(answerer):
    # 21 / 400 = 0.0525: the formula's ratio is the value, the percentage annual reports print follows it.
    answer = ask(
        answerer,
        "formula",
        JIA,
        [2021],
        formula="企业硕士及以上人员占职工人数比例",
        text="甲科技2021年硕士及以上人员占职工人数的比例是多少?保留2位小数。",
        output=OutputRequest(digits=2, share=True),
    )
    assert answer.value == "0.05" and "比例是0.05（5.25%）" in answer.answer


def test_a_ratio_that_is_no_share_or_a_share_asked_as_a_ratio_states_the_ratio_alone(answerer):
    quick = ask(answerer, "formula", JIA, [2021], formula="速动比率", text="甲科技2021年的速动比率是多少?")
    asked = ask(
        answerer,
        "formula",
        JIA,
        [2021],
        formula="企业硕士及以上人员占职工人数比例",
        text="甲科技2021年硕士及以上人员占职工人数的比例是多少?以小数形式表示。",
        output=OutputRequest(percent=False),
    )
    assert "%" not in quick.answer and "%" not in asked.answer


def test_a_per_share_figure_the_report_prints_wins_over_computing_it(answerer):
    answer = ask(answerer, "formula", JIA, [2021], formula="每股收益")
    assert (
        answer.value == "0.744095" and answer.route == "formula:reported" and "0.744095元/股" in answer.answer
    )


def test_an_impossible_precision_falls_back_to_the_formulas_own(answerer):
    answer = ask(answerer, "formula", JIA, [2021], formula="毛利率", output=OutputRequest(digits=40))
    assert answer.value == "30.00%"


def test_an_unknown_formula_is_answered_negatively(answerer):
    assert is_negative(ask(answerer, "formula", JIA, [2021], formula="不存在的比率"))


def test_japanese_formula_answers_use_japanese_wording(answerer):
    answer = ask(answerer, "formula", TOYO, [2021], formula="営業利益率", language="ja")
    assert (
        answer.value == "7.5%" and "営業利益率=営業利益/売上高" in answer.answer and "です" in answer.answer
    )
    growth = ask(answerer, "formula", TOYO, [2021], ["营业收入"], formula="売上高増減率", language="ja")
    assert growth.value == "25.0%" and "前期売上高" in growth.answer


# -- comparisons across years ---------------------------------------------------------------------------------------


def test_compare_years_says_different_and_gives_each_years_value(answerer):
    answer = ask(answerer, "compare_years", JIA, [2021, 2020], ["法定代表人"], ["法定代表人"])
    assert answer.value == "不相同" and "2020年为张三" in answer.answer and "2021年为李 四" in answer.answer


def test_a_difference_between_years_is_the_value_with_both_years_figures(answerer):
    answer = ask(answerer, "compare_years", JIA, [2021, 2020], ["营业收入"], asks="difference")
    assert answer.value == "200.00" and answer.route == "compare_years:difference"
    assert "较2020年增加200.00元" in answer.answer and "2020年为800.00元" in answer.answer
    current = ask(answerer, "compare_years", JIA, [2021, 2020], ["流动资产合计"], asks="difference")
    assert current.value == "30.00"
    assert (
        ask(answerer, "compare_years", JIA, [2020, 2021], ["营业成本"], asks="difference").value == "100.00"
    )


def test_compare_years_says_same_and_ignores_layout_spaces(answerer):
    answer = ask(answerer, "compare_years", YI, [2020, 2021], ["法定代表人"])
    assert answer.value == "相同" and "王五" in answer.answer and "不相同" not in answer.answer


def test_compare_years_of_a_number_says_how_it_changed(answerer):
    answer = ask(answerer, "compare_years", JIA, [2020, 2021], ["营业收入"])
    assert answer.value == "不相同" and "较2020年增加200.00元（25.00%）" in answer.answer


def test_compare_years_needs_each_years_figures(answerer):
    assert is_negative(ask(answerer, "compare_years", KANGXI, [2020, 2021], ["电子信箱"]))


# -- which fact: scope, statement, period ----------------------------------------------------------------------------


def where(fact, statement, scope, period_kind=""):
    return Fact(**{**fact.__dict__, "statement": statement, "scope": scope, "period_kind": period_kind})


@pytest.fixture(scope="module")
def kinds_answerer(tmp_path_factory):
    store = SqliteFactStore(tmp_path_factory.mktemp("kinds") / "facts.sqlite")
    facts = [
        where(f(JIA, 2021, "货币资金", "900.00", "jia/2021", page=5), "key_figures", ""),
        where(f(JIA, 2021, "货币资金", "500.00", "jia/2021", page=50), "balance_sheet", "consolidated"),
        where(f(JIA, 2021, "货币资金", "790.00", "jia/2021", page=52), "balance_sheet", "parent"),
        where(
            f(JIA, 2021, "营业收入", "250.00", "jia/2021", page=6, period="第四季度"),
            "key_figures",
            "",
            "quarter",
        ),
        where(f(JIA, 2021, "营业收入", "1000.00", "jia/2021", page=6, period="2021年"), "key_figures", ""),
    ]
    store.add(facts, [report(JIA, 2021, "jia/2021")])
    store.commit()
    yield DataAnswerer(store, FormulaBook.load(), AnswerTemplates.load())
    store.close()


def test_a_lookup_takes_the_consolidated_statement_over_earlier_key_figures_and_the_parents(kinds_answerer):
    answer = ask(kinds_answerer, "lookup", JIA, [2021], ["货币资金"], text="甲科技2021年的货币资金是多少元?")
    assert answer.value == "500.00"
    assert (answer.evidence[0].statement, answer.evidence[0].scope) == ("balance_sheet", "consolidated")
    assert answer.trace[0].startswith("货币资金 #1: consolidated balance_sheet") and len(answer.trace) == 3


def test_a_question_about_the_parent_company_takes_the_parents_statement(kinds_answerer):
    answer = ask(
        kinds_answerer, "lookup", JIA, [2021], ["货币资金"], text="甲科技2021年母公司的货币资金是多少元?"
    )
    assert answer.value == "790.00" and answer.evidence[0].scope == "parent"


def test_an_annual_figure_never_comes_from_a_quarter_column(kinds_answerer):
    answer = ask(kinds_answerer, "lookup", JIA, [2021], ["营业收入"], text="甲科技2021年的营业收入是多少元?")
    assert answer.value == "1000.00"
