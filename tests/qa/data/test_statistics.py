"""Questions over many companies, read by the rules and answered from a real SQLite facts store."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.records import Fact, ReportYear
from qa.answers import AnswerTemplates
from qa.data.statistics import StatisticsAnswerer
from qa.formulas import FormulaBook
from qa.records import Question
from qa.understand.analyse import QuestionAnalyzer
from qa.understand.statistics_request import StatisticsRules
from search.sqlite_facts import SqliteFactStore

# (company, city, 营业收入 2018..2021, 净利润 2021)
COMPANIES = [
    ("甲科技股份有限公司", "浙江省杭州市西湖区文三路1号", (600, 800, 1000, 1200), 300_000_000),
    ("乙制造股份有限公司", "浙江省杭州市滨江区江南大道2号", (900, 800, 5000, 6000), 100_000_000),
    ("丙电子股份有限公司", "广东省深圳市南山区科技园3号", (100, 200, 300, 700), 250_000_000),
    ("丁能源股份有限公司", "江苏省南京市鼓楼区中山路4号", (500, 400, 350, 700), -5_000_000),
]


def _facts():
    facts, reports = [], []
    for name, address, revenue, profit in COMPANIES:
        for year, value in zip(range(2018, 2022), revenue):
            doc = f"{name}/{year}"
            facts.append(
                Fact(name, year, "营业收入", str(value), Decimal(value), "元", str(value), doc_id=doc)
            )
            facts.append(Fact(name, year, "注册地址", address, None, "", address, doc_id=doc))
            reports.append(ReportYear(name, year, short_name=name[:3], doc_id=doc))
        facts.append(
            Fact(name, 2021, "净利润", str(profit), Decimal(profit), "元", str(profit), doc_id=f"{name}/2021")
        )
    return facts, reports


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    store = SqliteFactStore(tmp_path_factory.mktemp("facts") / "facts.sqlite")
    store.add(*_facts())
    store.commit()
    analyzer = QuestionAnalyzer.from_reports(store.reports(), jieba_dictionary=False)
    answerer = StatisticsAnswerer(
        store, FormulaBook.load(), AnswerTemplates.load(), place_fields=analyzer.statistics.place_fields
    )
    yield analyzer, answerer
    store.close()


def ask(engine, text):
    analyzer, answerer = engine
    analysis = analyzer.run(Question("q", text))
    assert analysis.type in ("ranking", "statistics"), analysis.trace
    return answerer.run(analysis)


def test_the_rules_read_place_count_threshold_and_filters():
    rules = StatisticsRules.load()
    request = rules.read("在杭州注册的上市公司中，2021年净利润大于2亿元的有多少家？")
    assert (request.operation, request.threshold.op, request.threshold.amount) == (
        "count",
        ">",
        Decimal(200_000_000),
    )
    assert request.places == ("杭州",) and request.place_fields == ("注册地址",)
    assert rules.read("营业收入第九高的公司").rank == 9 and rules.read("排名第四的公司").rank == 4
    lowest = rules.read("哪家上市公司2020年净利润最低？")
    assert not lowest.descending
    assert rules.read("净利润最低的4家").top_n == 4 and rules.read("哪六家公司营业收入最高").top_n == 6
    assert rules.read("2019-2021年哪些公司营业收入均位列前十？").every_year_top == 10
    assert rules.read("研发费用不少于百分之二十").threshold.amount == Decimal("0.2")
    assert rules.read("请介绍公司的主营业务") is None


def test_ranking_lists_the_top_companies_with_values_and_ties_share_a_place(engine):
    answer = ask(engine, "2021年营业收入最高的前3家公司是哪些？")
    assert answer.value == "乙制造股份有限公司、甲科技股份有限公司、丁能源股份有限公司、丙电子股份有限公司"
    assert (
        "3.丁能源股份有限公司（700元）" in answer.answer and "3.丙电子股份有限公司（700元）" in answer.answer
    )


def test_lowest_is_answered_as_the_lowest_even_with_a_question_word(engine):
    assert ask(engine, "哪家公司2020年营业收入最低？").value == "丙电子股份有限公司"


def test_the_nth_place_names_the_company_there(engine):
    assert ask(engine, "2021年营业收入排名第二的公司是哪家？").value == "甲科技股份有限公司"
    # 丙 and 丁 share third place, so both are the answer for the fourth too.
    assert ask(engine, "2021年营业收入第四高的公司").value == "丁能源股份有限公司、丙电子股份有限公司"


def test_more_places_than_companies_says_so(engine):
    answer = ask(engine, "2021年营业收入排名第九的公司是哪家？")
    assert answer.value is None and "只有4家" in answer.answer


def test_a_count_with_a_threshold_and_a_place_filter(engine):
    assert ask(engine, "2021年净利润超过2亿元的上市公司有几家？").value == "2"
    assert ask(engine, "在杭州注册的上市公司中，2021年净利润大于2亿元的有多少家？").value == "1"
    assert ask(engine, "注册地址在浙江的公司中2021年营业收入最高的是哪家？").value == "乙制造股份有限公司"


def test_a_ranking_by_growth_rate(engine):
    # 2020 growth: 甲 25%, 乙 525%, 丙 50%, 丁 -12.5%
    assert ask(engine, "2020年营业收入增长率最高的上市公司是哪家？").value == "乙制造股份有限公司"
    assert ask(engine, "2020年营业收入增长率最低的公司是哪家？").value == "丁能源股份有限公司"


def test_conditions_over_several_years(engine):
    assert (
        ask(engine, "2019-2021年哪些公司营业收入均位列前二？").value
        == "乙制造股份有限公司、甲科技股份有限公司"
    )
    assert (
        ask(engine, "2019-2021年营业收入连续三年增长的公司有哪些？").value
        == "甲科技股份有限公司、丙电子股份有限公司"
    )


def test_averages_sums_and_medians(engine):
    assert ask(engine, "2021年各公司营业收入的平均值是多少？").value == "2150.00"
    assert ask(engine, "2021年营业收入的中位数是多少？").value == "950.00"
    assert ask(engine, "杭州注册的公司2021年营业收入总和是多少？").value == "7200.00"


def test_a_field_no_company_reports_is_negative(engine):
    answer = ask(engine, "2021年研发费用最高的公司是哪家？")
    assert answer.value is None and "未" in answer.answer


def test_a_ranking_by_a_figure_no_field_names_says_it_is_not_found(engine):
    answer = ask(engine, "2021年碳排放强度最高的上市公司是哪家？")
    assert answer.value is None and "未找到" in answer.answer and "碳排放强度" in answer.answer


def test_a_bad_regex_in_the_statistics_rules_names_its_file_and_line(tmp_path):
    from core.rulefile import data_dir
    from qa.understand.statistics_request import load_statistics_rules

    text = (data_dir("rules") / "statistics.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "statistics.yaml"
    broken.write_text(text.replace("'最高', '最多'", "'最高(', '最多'", 1), encoding="utf-8")
    line = next(
        i for i, row in enumerate(broken.read_text(encoding="utf-8").splitlines(), 1) if "'最高('" in row
    )
    rules, errors = load_statistics_rules(broken)
    assert rules is None and errors and str(errors[0]).startswith(f"{broken}:{line}: bad regex '最高('")


def test_a_ranking_among_named_companies_compares_only_those_each_at_its_latest_asked_year(engine):
    analyzer, _ = engine
    asked = "按各公司年报(甲科技2020年、丁能源2020年)，营业收入最高的公司是哪家?"
    analysis = analyzer.run(Question("q", asked))
    assert (analysis.type, analysis.rule_id) == ("ranking", "ranking_named_companies")
    assert ask(engine, asked).value == "甲科技股份有限公司"  # 乙 (5000 in 2020) is not named
    tie = ask(engine, "按最新一期年报(丙电子2021年、丁能源2021年)，营业收入最低的公司是哪家?")
    assert set(tie.value.split("、")) == {
        "丙电子股份有限公司",
        "丁能源股份有限公司",
    }  # 700 each in 2021: the tie shares the place
    latest = ask(engine, "按最新一期年报(丙电子2019年、乙制造2021年)，营业收入最高的公司是哪家?")
    assert latest.value == "乙制造股份有限公司" and "2021年" in latest.evidence[0].text  # 6000 in 2021
