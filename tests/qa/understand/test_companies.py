import pytest

from core.errors import InputError
from core.records import ReportYear
from qa.understand.companies import MARKS, CompanyRegister, name_shaped


@pytest.fixture(scope="module")
def register():
    return CompanyRegister.from_reports(
        [
            ReportYear("四方科技集团股份有限公司", 2019, "四方科技", "603339"),
            ReportYear("无锡市太极实业股份有限公司", 2021, "太极实业", "600667"),
            ReportYear("重庆太极实业集团股份有限公司", 2021, "太极集团", "600129"),
            ReportYear("福建龙溪轴承集团股份有限公司", 2021, "龙溪股份", "600592"),
            ReportYear("浙江华仪电气股份有限公司", 2020, "*ST华仪", "600290"),
            ReportYear("甲公司一号股份有限公司", 2019, "同名股份", "000001"),
            ReportYear("乙公司二号股份有限公司", 2020, "同名股份", "000002"),
            ReportYear("丸紅株式会社", 2020, "", "8002"),
        ]
    )


def test_short_and_full_names_are_found(register):
    assert register.find("2019年四方科技的电子信箱是什么?").company.name == "四方科技集团股份有限公司"
    match = register.find("四方科技集团股份有限公司2019年的营业收入")
    assert (match.how, match.written, match.start) == ("exact", "四方科技集团股份有限公司", 0)


def test_the_longest_name_wins_over_a_short_name_inside_it(register):
    match = register.find("重庆太极实业(集团)股份有限公司2021年的资产总计是多少元?")
    assert match.company.name == "重庆太极实业集团股份有限公司"
    assert match.written == "重庆太极实业(集团)股份有限公司"  # reported as written, parentheses and all


def test_full_width_parentheses_and_suffix_free_names_match(register):
    assert register.find("福建龙溪轴承（集团）股份有限公司2021年").company.short_name == "龙溪股份"
    assert register.find("2021年福建龙溪轴承集团的年报").how == "alias"


def test_special_treatment_prefix_is_optional(register):
    assert register.find("2020年华仪的营业收入").company.name == "浙江华仪电气股份有限公司"


def test_codes_match_but_years_are_not_codes(register):
    assert register.find("600592在2021年的营业收入").company.short_name == "龙溪股份"
    assert register.find("8002の2020年").company.name == "丸紅株式会社"
    assert register.find("2020年的营业收入").company is None


def test_a_name_shared_by_two_companies_is_ambiguous_unless_the_year_decides(register):
    match = register.find("同名股份的营业收入")
    assert match.company is None
    assert {c.name for c in match.candidates} == {"甲公司一号股份有限公司", "乙公司二号股份有限公司"}
    assert register.find("2020年同名股份的营业收入", years=(2020,)).company.name == "乙公司二号股份有限公司"


def test_a_misspelt_full_name_is_found_by_fuzzy_match(register):
    match = register.find("2019年四方科枝集团股份有限公司的营业收入")
    assert match.how == "fuzzy" and match.company.name == "四方科技集团股份有限公司" and match.score >= 80


def test_a_shared_legal_form_does_not_make_different_companies_alike():
    register = CompanyRegister.from_reports(
        [
            ReportYear("湖南泰嘉新材料科技股份有限公司", 2019, "泰嘉股份", "002843"),
            ReportYear("杭州平治信息技术股份有限公司", 2021, "平治信息", "300571"),
        ]
    )
    for question in (
        "2019年南亚新材料科技股份有限公司研发费用是多少元?",
        "杭州初灵信息技术股份有限公司2021年的固定资产增长率是多少？",
    ):
        assert register.find(question).how == "unregistered"


def test_an_unknown_company_with_a_legal_form_is_kept_as_written(register):
    match = register.find("湖南华凯文化创意股份有限公司2021年的重大关联交易情况如何？")
    assert match.how == "unregistered"
    assert match.company.name == "湖南华凯文化创意股份有限公司"


def test_no_company_in_a_general_question(register):
    assert register.find("什么是存货周转率？").company is None


def test_japanese_names(register):
    assert register.find("丸紅株式会社の2020年時点における「負債」は？").company.name == "丸紅株式会社"


def test_the_finglm_reports_list_loads_and_keeps_every_short_name(shared_data):
    register = CompanyRegister.from_reports_list(shared_data / "finglm" / "reports_list.csv")
    assert len(register) > 4000
    assert register.find("2020年综艺股份资产负债比率是多少?").company.name == "江苏综艺股份有限公司"
    assert register.years_of("江苏综艺股份有限公司") >= {2019, 2020, 2021}


def test_a_malformed_reports_list_line_is_named(tmp_path):
    path = tmp_path / "reports.txt"
    path.write_text(
        "2023-06-28__国美通讯设备股份有限公司__600898__国美通讯__2021年__年度报告.txt\nnot a report\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"reports.txt:2: expected date__full name"):
        CompanyRegister.from_reports_list(path)


def test_rows_from_a_fact_store_frame_build_a_register():
    import pandas as pd

    frame = pd.DataFrame(
        [{"company": "示例科技股份有限公司", "year": 2022, "short_name": "示例科技", "code": None}]
    )
    register = CompanyRegister.from_rows(frame.to_dict("records"))
    assert register.find("2022年示例科技的电子信箱").company.code == ""


def test_names_match_in_either_chinese_script():
    register = CompanyRegister.from_reports(
        [
            ReportYear("鴻海精密工業股份有限公司", 2023, "鴻海", "2317"),
            ReportYear("江苏综艺股份有限公司", 2020, "综艺股份"),
        ]
    )
    assert register.find("鸿海在2023年第1季度的存货").company.name == "鴻海精密工業股份有限公司"
    assert register.find("2020年綜藝股份的營業收入").company.name == "江苏综艺股份有限公司"


def test_an_abbreviation_keeps_the_core_names_characters_in_order():
    register = CompanyRegister.from_reports(
        [
            ReportYear(name, 2023)
            for name in (
                "聯華電子股份有限公司",
                "台達電子工業股份有限公司",
                "中國鋼鐵股份有限公司",
                "長榮海運股份有限公司",
                "長榮航空股份有限公司",
                "統一企業股份有限公司",
            )
        ]
    )
    match = register.find("聯電在2023年第1季的營業利益是多少？")
    assert (match.company.name, match.how, match.written) == ("聯華電子股份有限公司", "abbreviation", "聯電")
    assert register.find("台達電2022年第1季的營業活動之淨現金流入").company.name == "台達電子工業股份有限公司"
    assert register.find("中鋼公司於2022年第1季提供擔保的資產").company.name == "中國鋼鐵股份有限公司"
    # several companies fit: both are candidates
    assert {c.name for c in register.find("長榮2022年第3季的營業收入").candidates} == {
        "長榮海運股份有限公司",
        "長榮航空股份有限公司",
    }


def test_a_common_word_is_no_abbreviation():
    register = CompanyRegister.from_reports(
        [
            ReportYear(name, 2023)
            for name in ("中國鋼鐵股份有限公司", "統一企業股份有限公司", "中華電信股份有限公司")
        ]
    )
    for question in ("中國的經濟成長率是多少？", "統一發票如何兌獎？", "截至中華民國112年止的負債"):
        match = register.find(question)
        assert match.company is None and not match.candidates, question


def test_a_fuzzy_match_must_be_unique():
    register = CompanyRegister.from_reports(
        [
            ReportYear("四方科技集团股份有限公司", 2019, "四方科技", "603339"),
            ReportYear("四方科技控股股份有限公司", 2019, "四方控股", "603338"),
        ]
    )
    # 四方科技集团 and 四方科技控股 are both within the threshold of 四方科技集团控股: which is meant is a guess
    assert register.find("2019年四方科技集团控股股份有限公司的营业收入").how == "unregistered"


def test_an_abbreviation_is_not_read_inside_a_field_name():
    register = CompanyRegister.from_reports(
        [ReportYear("建发合诚工程咨询股份有限公司", 2021, "合诚股份", "603909")]
    )
    assert register.find("在建工程是指什么?").how == "abbreviation"  # without the field's span it would be
    assert register.find("在建工程是指什么?", reserved=[(1, 5)]).company is None


def test_two_characters_fitting_several_companies_are_no_abbreviation():
    register = CompanyRegister.from_reports(
        [
            ReportYear("新希望六和股份有限公司", 2021, "新希望", "000876"),
            ReportYear("新疆众和股份有限公司", 2021, "新疆众和", "600888"),
        ]
    )
    assert register.find("研发费用对公司的技术创新和竞争优势有何影响？").company is None
    assert register.find("研发费用对公司的技术创新和竞争优势有何影响？").candidates == ()


@pytest.mark.parametrize(
    "marked, names",
    [
        ("贵州茅台YYYYYFFFF是多少元?", ["贵州茅台"]),  # before the year
        ("请问贵州茅台在YYYYY的FFFF", ["贵州茅台"]),  # lead words are not part of it
        ("YYYYY浙江龙盛的FFFF", ["浙江龙盛"]),  # after the year, before its field
        ("YYYYYFFFF最高的公司是哪家?", []),  # a question over companies names none
        ("YYYYY贵州的公司中FFFF最高的是哪家?", []),  # a place
        ("YYYYY在上海注册的公司有几家", []),
        ("请具体描述YYYYY的FFFF", []),  # a request, not a name
    ],
)
def test_name_shaped_spans_stand_where_a_question_names_its_company(marked, names):
    marked = marked.replace("Y", MARKS["year"]).replace("F", MARKS["field"])
    assert [marked[s:e] for s, e in name_shaped(marked)] == names


def test_beside_a_known_company_only_names_joined_to_it_count():
    marked = (
        "YYYYYCCCC和宁德时代的FFFF分别是多少元?".replace("Y", MARKS["year"])
        .replace("C", MARKS["company"])
        .replace("F", MARKS["field"])
    )
    assert [marked[s:e] for s, e in name_shaped(marked, beside_company=True)] == ["宁德时代"]
    marked = (
        "请具体描述YYYYYCCCC的FFFF".replace("Y", MARKS["year"])
        .replace("C", MARKS["company"])
        .replace("F", MARKS["field"])
    )
    assert name_shaped(marked, beside_company=True) == []
