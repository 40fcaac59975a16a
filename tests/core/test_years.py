import pytest

from core.years import extract_years, small_number


def test_plain_years_keep_the_order_asked():
    assert extract_years("2021年法定代表人对比2019年是否相同?").years == (2021, 2019)


def test_a_range_asks_every_year_in_it():
    for text in ("2019-2021年间法定代表人是否都相同", "在2019至2021年间", "2019年至2021年"):
        match = extract_years(text)
        assert match.years == (2019, 2020, 2021) and match.is_range


def test_relative_years_count_from_the_year_named():
    assert extract_years("2021年营业收入与上年相比").years == (2021, 2020)
    assert extract_years("2021年的前年和上上年").years == (2021, 2019)


def test_relative_years_without_a_named_year_use_the_reference_year_or_stay_unresolved():
    assert extract_years("去年的营业收入", reference_year=2024).years == (2023,)
    match = extract_years("去年的营业收入")
    assert match.years == () and match.unresolved == ("去年",)


def test_chinese_numeral_and_era_years():
    assert extract_years("二〇二一年营业收入").years == (2021,)
    assert extract_years("令和3年の売上高").years == (2021,)
    assert extract_years("平成31年3月期").years == (2019,)
    assert extract_years("令和元年").years == (2019,)
    assert extract_years("民國112年第3季").years == (2023,)


def test_quarters_are_read_with_their_year():
    match = extract_years("鴻海在2023年第1季度中，存货是多少？")
    assert (match.years, match.quarter) == ((2023,), 1)
    assert extract_years("2022年第三季度").quarter == 3
    assert extract_years("瑞昱在2023年第3季有關涉於哪些專利訴訟").quarter_written == "第3季"
    assert extract_years("2023年营业收入").quarter_written == ""


def test_fiscal_year_words_and_full_width_digits():
    assert extract_years("２０２０年度の売上高").years == (2020,)
    assert extract_years("FY2020 revenue").years == (2020,)


def test_numbers_that_are_not_years_are_left_alone():
    assert extract_years("营业收入是123456789元，代码600898").years == ()


def test_forward_looking_words_add_no_year():
    assert extract_years("2021年的年度报告中，如何规划下一年度的经营计划").years == (2021,)


def test_small_numbers_in_digits_and_chinese():
    assert [small_number(t) for t in ("2", "两", "十", "十二", "二十三", "元", "x")] == [
        2,
        2,
        10,
        12,
        23,
        1,
        None,
    ]
    assert small_number("两三") is None  # 前两三名: "two or three", not 23


@pytest.mark.parametrize(
    "text, period, quarter, written",
    [
        ("聯發科2022年第三季的營業收入", "quarter", 3, "第三季"),
        ("聯發科2022年前三季的營業收入", "ytd", 3, "前三季"),  # nine months, not the third quarter
        ("2022年1-9月的营业收入", "ytd", 3, "1-9月"),
        ("2021年上半年的营业收入", "half", 2, "上半年"),
        ("2021年Q2营业收入", "quarter", 2, "Q2"),
        ("2021年营业收入", "", 0, ""),
    ],
)
def test_the_period_asked_has_a_kind(text, period, quarter, written):
    match = extract_years(text)
    assert (match.period, match.quarter, match.quarter_written, match.impossible) == (
        period,
        quarter,
        written,
        "",
    )


@pytest.mark.parametrize(
    "text, written",
    [("海翔药业2019年第五季度的营业收入", "第五季度"), ("2019年第0季", "第0季"), ("2019年Q5营收", "Q5")],
)
def test_a_quarter_no_year_has_is_kept_to_be_refused(text, written):
    match = extract_years(text)
    assert match.impossible == written and match.quarter == 0 and match.period == ""
