import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.records import ReportYear
from core.rulebook import RuleBook
from qa.records import Question
from qa.understand.analyse import AnalyzerConfig, QuestionAnalyzer
from qa.understand.companies import CompanyRegister


@pytest.fixture(scope="module")
def analyzer():
    register = CompanyRegister.from_reports(
        [
            ReportYear("江苏综艺股份有限公司", 2020, "综艺股份", "600770"),
            ReportYear("宁波旭升集团股份有限公司", 2020, "旭升集团", "603305"),
            ReportYear("河北金牛化工股份有限公司", 2020, "金牛化工", "600722"),
            ReportYear("金宇生物技术股份有限公司", 2020, "生物股份", "600201"),
            ReportYear("青岛汇金通电力设备股份有限公司", 2019, "汇金通", "603577"),
            ReportYear("丸紅株式会社", 2020, "", "8002"),
        ]
    )
    return QuestionAnalyzer(AnalyzerConfig(register=register))


def ask(analyzer, text, **kw):
    return analyzer.run(Question("q", text, **kw))


def test_a_formula_question_gets_formula_operands_and_rounding(analyzer):
    a = ask(analyzer, "综艺股份2020年的资产负债比率是多少?保留2位小数。")
    assert (a.type, a.company.name, a.years, a.formula, a.output.digits) == (
        "formula",
        "江苏综艺股份有限公司",
        (2020,),
        "资产负债比率",
        2,
    )
    assert a.fields == ("负债合计", "资产总计")
    assert a.trace[0].startswith("rule formula_named")


def test_a_growth_rate_of_any_field_is_a_formula(analyzer):
    a = ask(analyzer, "2020年综艺股份的总资产增长率是多少?保留2位小数。")
    assert (a.type, a.formula, a.fields) == ("formula", "总资产增长率", ("资产总计",))


@pytest.mark.parametrize(
    "text",
    [
        "综艺股份2020年的货币资金比2019年增加了多少元？",
        "综艺股份2020年营业收入比上年减少了多少？",
        "综艺股份2020年净利润与2019年相比变化了多少？",
        "综艺股份2020年和2019年的营业收入相差多少？",
    ],
)
def test_how_much_a_value_changed_asks_for_the_difference(analyzer, text):
    a = analyzer.run(Question("d", text))
    assert (a.type, a.asks, a.years) == ("compare_years", "difference", (2020, 2019))


def test_a_growth_rate_against_a_named_year_is_a_formula(analyzer):
    a = analyzer.run(Question("g", "综艺股份2020年营业收入相比2019年的增长率是多少？"))
    assert (a.type, a.formula, a.fields) == ("formula", "营业收入增长率", ("营业收入",))


def test_several_fields_are_one_lookup(analyzer):
    a = ask(analyzer, "旭升集团2020年的销售费用和管理费用分别是多少元?")
    assert (a.type, a.rule_id, a.fields, a.output.unit) == (
        "lookup",
        "lookup_several_fields",
        ("销售费用", "管理费用"),
        "元",
    )


def test_a_field_after_the_company_name_is_not_swallowed_by_it(analyzer):
    a = ask(analyzer, "青岛汇金通电力设备股份有限公司2019年的外文名称是什么?")
    assert (a.type, a.fields, a.keywords) == ("lookup", ("公司的外文名称",), ("外文名称",))


def test_field_words_do_not_trigger_text_rules(analyzer):
    # 公允价值变动收益 contains 变动, a report_text word; field names are masked before the rules run.
    assert ask(analyzer, "2020年综艺股份公允价值变动收益是多少元?").type == "lookup"


def test_year_comparisons_list_the_years(analyzer):
    a = ask(analyzer, "河北金牛化工股份有限公司在2019-2021年间，法定代表人是否都相同?")
    assert (a.type, a.years, a.fields) == ("compare_years", (2019, 2020, 2021), ("法定代表人",))
    one = ask(analyzer, "金牛化工在2020年的法定代表人是否是相同的?")
    assert (one.type, one.years) == ("compare_years", (2019, 2020))


def test_report_text_questions_carry_topic_keywords(analyzer):
    a = ask(analyzer, "请根据金宇生物技术股份有限公司2020年的年报，简要介绍公司的社会责任工作情况。")
    assert a.type == "report_text" and "社会责任工作" in a.keywords


def test_a_quarter_is_part_of_the_period_not_of_the_topic(analyzer):
    a = ask(analyzer, "金宇生物技术股份有限公司在2020年第3季有关诉讼事项的进展如何？")
    assert a.quarter == 3 and a.keywords and not any("第3季" in k for k in a.keywords)


def test_general_questions_are_open(analyzer):
    a = ask(analyzer, "什么是存货周转率？")
    assert (a.type, a.company, a.years) == ("open", None, ())


def test_japanese_quoted_labels(analyzer):
    a = ask(analyzer, "丸紅株式会社の2020年時点における「自己資本比率、経営指標等」は？")
    assert (a.type, a.language, a.years, a.company.name) == ("lookup", "ja", (2020,), "丸紅株式会社")
    assert "自己資本比率、経営指標等" in a.keywords


def test_no_model_means_the_llm_step_is_skipped_and_said_so(analyzer):
    a = ask(analyzer, "2020年综艺股份的经营情况")
    if not a.keywords:
        assert any("LLM fallback skipped" in t for t in a.trace)
    b = ask(analyzer, "2020年综艺股份的")
    assert any("LLM fallback skipped (no model configured)" in t for t in b.trace)


def test_sources_make_a_question_a_text_question(analyzer):
    assert ask(analyzer, "保單借款的可借金額上限？", sources=("insurance/7",)).type == "report_text"


def test_from_reports_builds_the_register_from_a_fact_stores_rows():
    rows = [{"company": "示例科技股份有限公司", "year": 2022, "short_name": "示例科技", "code": "000000"}]
    a = QuestionAnalyzer.from_reports(rows, jieba_dictionary=False).run(
        Question("1", "2022年示例科技的电子信箱是什么?")
    )
    assert (a.type, a.company.short_name, a.fields) == ("lookup", "示例科技", ("电子信箱",))


def test_bad_configuration_is_refused():
    with pytest.raises(InputError, match="rules folder not found"):
        AnalyzerConfig(rules=RuleBook.at("/nonexistent"))
    with pytest.raises(InputError, match="field_fuzzy_threshold"):
        AnalyzerConfig(field_fuzzy_threshold=20)


def test_a_broken_rule_file_stops_construction_with_file_line(tmp_path):
    import shutil

    from core.rulefile import data_dir

    rules = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), rules)
    (rules / "question_types.yaml").write_text(
        "types:\n  lookup: {route: data}\n  open: {route: text}\n"
        "rules:\n  - id: x\n    type: lookup\n    patterns:\n      any: ['[']\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"question_types.yaml:8: bad regex"):
        QuestionAnalyzer(AnalyzerConfig(rules=RuleBook.at(rules)))


# ---------------------------------------------------------------------- bad input never crashes
@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "no words"),
        ("   ", "no words"),
        ("？！。，、……", "no words"),
        ("😀🚀💰", "no words"),
        ("营" * 10_000, "more than max_chars"),
        (None, "not text"),
        (42, "not text"),
        (b"bytes", "not text"),
    ],
)
def test_bad_input_is_open_with_a_reason(analyzer, text, reason):
    a = analyzer.run(Question("bad", text))
    assert a.type == "open" and a.rule_id == "input_rejected" and reason in a.trace[0]


def test_mixed_languages_and_emoji_around_a_real_question(analyzer):
    a = ask(analyzer, "🚀 Hi! 2020年综艺股份の営業収入 and 营业收入是多少元? 😀")
    assert a.type == "lookup" and a.company.short_name == "综艺股份"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_any_string_gives_an_analysis(analyzer, text):
    a = analyzer.run(Question("h", text))
    assert a.type in analyzer.classifier.types and a.rule_id and a.trace


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.sampled_from(
            [
                "2020年",
                "综艺股份",
                "营业收入",
                "增长率",
                "保留2位小数",
                "「",
                "」",
                "上年",
                "令和",
                "（",
                "）",
                "的",
                "是多少",
                "分别",
                "和",
                "😀",
                "株式会社",
                "民國",
                "第",
                "季",
                " ",
                "\x00",
            ]
        ),
        max_size=20,
    ).map("".join)
)
def test_any_mix_of_question_parts_gives_a_consistent_analysis(analyzer, text):
    a = analyzer.run(Question("h", text))
    assert a.type in analyzer.classifier.types
    if a.type == "formula":
        assert a.company is not None and a.years
    if a.type in ("lookup", "compare_years") and a.rule_id != "input_rejected":
        assert a.fields or a.keywords


def test_finglm_questions_route_by_kind(shared_data):
    """A sample of each FinGLM type routes to its type (the bench measures all 2,000)."""
    rows = [
        json.loads(line)
        for line in (shared_data / "finglm" / "A-list-answer.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    # The full reports list: questions about company-years outside the corpus must still find the company.
    register = CompanyRegister.from_reports_list(shared_data / "finglm" / "reports_list.csv")
    analyzer = QuestionAnalyzer(AnalyzerConfig(register=register, jieba_dictionary=False))
    expected = {
        "1": "lookup",
        "1-2": "lookup",
        "2-1": "formula",
        "2-2": "compare_years",
        "3-1": "report_text",
        "3-2": "open",
    }
    sample = [r for t in expected for r in [r for r in rows if r["type"] == t][:25]]
    wrong = [
        (r["type"], r["question"])
        for r in sample
        if analyzer.run(Question(str(r["id"]), r["question"])).type != expected[r["type"]]
    ]
    assert len(wrong) <= len(sample) * 0.02, wrong


def test_a_name_the_register_lacks_is_refused_by_name_never_a_place_filter(analyzer):
    for text, name in (
        ("贵州茅台2019年营业收入是多少元?", "贵州茅台"),
        ("2019年浙江龙盛的研发费用是多少元?", "浙江龙盛"),
    ):
        a = ask(analyzer, text)
        assert (a.type, a.company.name, a.statistics) == ("lookup", name, None)
        assert f"company: unregistered '{name}'" in " ".join(a.trace)


def test_a_request_verb_or_question_word_where_a_name_would_stand_is_no_company(analyzer):
    for text in (
        "请找出2019年销售费用最少的那家上市公司。",
        "谁是2020年营业成本最多的公司？",
        "请给出2021年营收最多的公司",
    ):
        a = ask(analyzer, text)
        assert (a.type, a.company, a.absent_companies) == ("ranking", None, ()), (text, a.trace)


def test_each_company_asked_about_that_the_register_lacks_is_named(analyzer):
    a = ask(analyzer, "2020年综艺股份和宁德时代的营业收入分别是多少元?")
    assert (a.company.name, a.absent_companies) == ("江苏综艺股份有限公司", ("宁德时代",))
    both = ask(analyzer, "2020年综艺股份和旭升集团的营业收入分别是多少元?")
    assert both.absent_companies == () and len(both.companies) == 2


def test_a_place_filters_only_where_the_wording_says_where_companies_are(analyzer):
    assert ask(analyzer, "2020年贵州的公司中营业收入最高的是哪家?").statistics.places == ("贵州",)
    assert ask(analyzer, "2020年位于浙江的公司营业收入最高的是哪家?").statistics.places == ("浙江",)
    assert ask(analyzer, "2020年营业收入最高的公司是哪家?").statistics.places == ()


def test_a_period_no_year_has_is_kept_for_refusal(analyzer):
    a = ask(analyzer, "综艺股份2020年第五季度的营业收入是多少元?")
    assert (a.impossible_period, a.quarter, a.period) == ("第五季度", 0, "")
    quarter, to_date = (
        ask(analyzer, "综艺股份2020年第三季的营业收入"),
        ask(analyzer, "综艺股份2020年前三季的营业收入"),
    )
    assert (quarter.period, quarter.quarter, to_date.period, to_date.quarter) == ("quarter", 3, "ytd", 3)


@pytest.mark.parametrize(
    "text",
    ["请具体描述2020年综艺股份聘任、解聘会计师事务所情况。", "2020年综艺股份的研发费用情况，请做简要分析。"],
)
def test_a_situation_described_or_analysed_is_report_text(analyzer, text):
    assert ask(analyzer, text).type == "report_text"


def test_a_value_asked_with_introduce_stays_a_lookup(analyzer):
    assert (
        ask(analyzer, "根据2020年综艺股份的年报，请简要介绍报告期内公司每股净资产的情况。").type == "lookup"
    )


def test_a_definition_without_a_company_is_open():
    register = CompanyRegister.from_reports(
        [ReportYear("建发合诚工程咨询股份有限公司", 2021, "合诚股份", "603909")]
    )
    a = QuestionAnalyzer(AnalyzerConfig(register=register)).run(Question("q", "在建工程是指什么?"))
    assert (a.type, a.company) == ("open", None)


@pytest.mark.parametrize(
    "text, topic",
    [
        ("旭升集团2020年度的利润分配预案是什么?", "利润分配预案"),  # 利润 would fuzzily read as 净利润
        ("综艺股份2020年的收入确认政策是什么?", "会计政策"),  # not a question about 营业收入
        ("请简要介绍生物股份2020年控股股东的变更情况", "控股股东变更情况"),  # longer than 控股股东
    ],
)
def test_the_longest_term_wins_over_a_field_inside_it(analyzer, text, topic):
    a = ask(analyzer, text)
    assert (a.type, a.topic, a.fields) == ("report_text", topic, ())
    assert a.keywords[0] in text and any(t.startswith("topic: ") for t in a.trace)


def test_a_field_written_as_long_as_a_topic_term_stays_a_field(analyzer):
    # 会计师事务所 is a field and a topic term: a lookup, as 主营业务收入 (longer than the topic 主营业务) is one.
    auditor = ask(analyzer, "综艺股份2020年的会计师事务所是哪家?")
    revenue = ask(analyzer, "综艺股份2020年的主营业务收入是多少元?")
    assert (auditor.type, auditor.fields, auditor.topic) == ("lookup", ("会计师事务所",), "")
    assert (revenue.type, revenue.fields, revenue.topic) == ("lookup", ("营业收入",), "")


def test_the_rule_files_are_read_once_per_book_and_each_book_reads_its_own(tmp_path):
    import shutil

    from core import rulefile
    from core.rulefile import data_dir

    read: list[str] = []
    original = rulefile.RuleFile.load.__func__

    def counting(cls, path, schema=None):
        read.append(str(path))
        return original(cls, path, schema)

    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    book = RuleBook.at(rules)
    rulefile.RuleFile.load = classmethod(counting)
    try:
        first = QuestionAnalyzer(AnalyzerConfig(rules=book))
        loaded = len(read)
        second = QuestionAnalyzer(AnalyzerConfig(rules=book))
        stricter = QuestionAnalyzer(AnalyzerConfig(rules=book, field_fuzzy_threshold=95))
        other = QuestionAnalyzer(AnalyzerConfig(rules=RuleBook.at(shutil.copytree(rules, tmp_path / "copy"))))
    finally:
        rulefile.RuleFile.load = classmethod(original)
    assert loaded > 0 and any(p.endswith("question_types.yaml") for p in read)
    # a second analyzer of the book (a qa.run worker forked from its parent) parses and validates nothing again
    assert second.classifier is first.classifier and second.fields is first.fields
    assert len(read) > loaded  # another book, or another threshold, reads the files itself
    assert stricter.fields is not first.fields and stricter.fields.fuzzy_threshold == 95
    assert other.classifier is not first.classifier
