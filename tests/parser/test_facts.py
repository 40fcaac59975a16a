"""Long-form facts: period -> year, units and negative forms, field names, row sentences."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pdfplumber
import pytest

from core.dates import iso_date
from core.records import DocumentMeta, ParsedDocument, Table
from core.units import find_unit, is_dash, parse_quantity, scale_of
from parser.facts import (
    add_tables,
    by_fiscal_end,
    clean_field,
    current_year,
    explicit_year,
    period_year,
    table_facts,
)
from parser.settings import ParseSettings
from parser.tables import GridCell, build_table, find_pdf_tables

ZH = DocumentMeta(
    "finance/742", company="示例股份有限公司", short_name="示例", code="2330", year=2023, language="zh"
)
JA = DocumentMeta("reports/X/X-0105010", company="例示株式会社", year=2020, language="ja")


def grid_table(rows, table_id="t1", title="", unit="", with_ids=False):
    grid = [
        [GridCell(text, f"{table_id}-r{i + 1}c{j + 1}" if with_ids else "") for j, text in enumerate(r)]
        for i, r in enumerate(rows)
    ]
    return build_table(grid, table_id, 0, title=title, unit=unit, with_ids=with_ids)


# ---- period -> year ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label, year",
    [
        ("本期发生额", 2021),
        ("本年金额", 2021),
        ("期末余额", 2021),
        ("当期", 2021),
        ("本报告期", 2021),
        ("上期发生额", 2020),
        ("上年金额", 2020),
        ("期初余额", 2020),
        ("前期", 2020),
        ("上年同期", 2020),
        ("当事業年度", 2021),
        ("前事業年度", 2020),
        ("当連結会計年度", 2021),
        ("前連結会計年度", 2020),
        ("2019年", 2019),
        ("2019年12月31日", 2019),
        ("2019年度", 2019),
        ("令和3年3月期", 2021),
        ("平成31年3月31日", 2019),
        ("民國112年", 2023),
        ("一一二年第一季", 2023),
        ("111 年 3 月 31 日", 2022),
        ("前事業年度 (自 2018年４月１日 至 2019年３月31日)", 2019),
        ("第92期 (2015年度)/2016年３月", 2016),
        ("2021年/金额", 2021),
        ("项目", None),
        ("金额", None),
        ("本年比上年增减(%)", 2021),
        ("前期比", 2021),
    ],
)
def test_period_label_gives_the_year(label, year):
    assert period_year(label, 2021) == year


def test_keyword_periods_need_the_report_year():
    assert period_year("本期", None) is None
    assert explicit_year("令和元年6月") == 2019


def test_a_year_without_a_month_is_no_vote_for_this_period():
    bonds = grid_table(
        [
            ["", "当連結会計年度末（2021年満期、固定利率 6.1%）", "当連結会計年度末（2022年満期）"],
            ["社債", "10", "20"],
        ]
    )
    dated = grid_table([["", "当連結会計年度（自 2019年4月1日 至 2020年3月31日）"], ["売上収益", "5"]])
    assert current_year([bonds, dated]) == 2020


def test_fiscal_years_named_by_their_start_carry_the_year_they_end_in():
    table = grid_table([["", "2018年度（百万円）", "2019年度（百万円）"], ["交際費", "2,000", "2,342"]])
    facts, _ = table_facts(table, JA)
    march = DocumentMeta("d", company="C", year=2020, language="ja")  # the report's year ends in March 2020
    assert [f.year for f in by_fiscal_end(facts, [table], march)] == [2019, 2020]
    december = DocumentMeta("d", company="C", year=2019, language="ja")  # 2019年度 is the report's own year
    assert [f.year for f in by_fiscal_end(facts, [table], december)] == [2018, 2019]
    dated = grid_table([["", "2018年度/2019年3月", "2019年度/2020年3月"], ["売上高", "1", "2"]])
    assert [f.year for f in by_fiscal_end(table_facts(dated, JA)[0], [dated], march)] == [2019, 2020]


def test_document_states_which_year_this_period_is():
    table = grid_table(
        [
            [
                "",
                "前連結会計年度（自 2018年4月1日 至 2019年3月31日）",
                "当連結会計年度（自 2019年4月1日 至 2020年3月31日）",
            ],
            ["売上収益", "1", "2"],
        ]
    )
    undated = grid_table([["", "前連結会計年度", "当連結会計年度"], ["従業員数", "10", "12"]])
    year = current_year([table, undated])
    assert year == 2020
    facts, _ = table_facts(undated, DocumentMeta("d", company="C", year=2019, language="ja"), year)
    assert [(f.period, f.year) for f in facts] == [("前連結会計年度", 2019), ("当連結会計年度", 2020)]


# ---- numbers, units, negatives -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, unit, negative_parens, number, base",
    [
        ("1,234", "元", True, "1234", "元"),
        ("1,234.5", "千元", True, "1234500", "元"),
        ("12", "万元", True, "120000", "元"),
        ("3", "百万元", True, "3000000", "元"),
        ("△ 4,187", "百万円", False, "-4187000000", "円"),
        ("▲56", "千円", False, "-56000", "円"),
        ("−7", "円", False, "-7", "円"),
        ("-7.8", "", True, "-7.8", ""),
        ("(1,234)", "元", True, "-1234", "元"),
        ("（7.8）", "", True, "-7.8", ""),
        ("( 7,973 )", "人", False, "7973", "人"),
        ("12.5%", "", True, "12.5", "%"),
        ("12.5", "％", True, "12.5", "%"),
        ("323,790", "千株", False, "323790000", "株"),
        ("45", "人", True, "45", "人"),
        ("130.62 円", "百万円", False, "130.62", "円"),
        ("36,917 百万円", "", False, "36917000000", "円"),
        ("17円50銭", "", False, "17.5", "円"),
        ("※１ , ※２ 60,976", "百万円", False, "60976000000", "円"),
        ("$ 95,651,513", "仟元", True, "95651513000", "元"),
    ],
)
def test_cell_number_is_scaled_and_signed(text, unit, negative_parens, number, base):
    quantity = parse_quantity(text, unit, parentheses_negative=negative_parens)
    assert quantity is not None
    assert (quantity.number, quantity.unit, quantity.raw) == (Decimal(number), base, text.strip())


@pytest.mark.parametrize("text", ["－", "-", "—", "(－)", "電子信箱", "2019年12月31日", "注3", "1.5倍増"])
def test_cells_that_are_not_numbers(text):
    assert parse_quantity(text) is None or text == "-"


def test_dashes_dates_and_units():
    assert is_dash("－") and is_dash("(－)") and not is_dash("-5")
    assert iso_date("1964年12月13日 生") == "1964-12-13" and iso_date("令和2年6月19日") == "2020-06-19"
    assert iso_date("第20期（自 2019年4月1日 至 2020年3月31日）") is None
    assert find_unit("单位：人民币千元") == "千元" and find_unit("單位：新台幣仟元") == "仟元"
    assert find_unit("(金額除每股盈餘外，均以新台幣仟元為單位)") == "仟元"
    assert find_unit("金額（百万円）") == "百万円" and find_unit("营业收入") == ""
    assert scale_of("億円") == (Decimal(10**8), "円") and scale_of("公司") is None


# ---- field names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label, field",
    [
        ("1.营业收入", "营业收入"),
        ("其中：营业成本", "营业成本"),
        ("（一）货币资金（注1）", "货币资金"),
        ("加：营业外收入", "营业外收入"),
        ("减：营业外支出", "营业外支出"),
        ("1100 現金及約當現金", "現金及約當現金"),
        ("①売上高", "売上高"),
        ("１株当たり当期純利益（円）", "1株当たり当期純利益"),
        ("流 动 资 产：", "流动资产"),
        ("※２ 有形固定資産", "有形固定資産"),
        ("【本店の所在の場所】", "本店の所在の場所"),
        ("(注)3 任期", "任期"),
        ("三、营业利润（亏损以“－”号填列）", "营业利润"),
        ('营业利润(亏损以"-"号填列)', "营业利润"),
        ("経常利益又は経常損失（△）", "経常利益又は経常損失"),
        ("その他（純額）", "その他(純額)"),
    ],
)
def test_row_label_is_cleaned_to_a_field(label, field):
    assert clean_field(label) == field


# ---- facts and sentences of real and small tables ----------------------------------------------


@pytest.fixture(scope="module")
def income_statement(shared_data):
    with pdfplumber.open(shared_data / "aicup" / "reference" / "finance" / "742.pdf") as pdf:
        [(_, table)] = find_pdf_tables(pdf.pages[0], 1, ParseSettings())
    return table


def test_statement_facts_are_scaled_dated_and_sourced(income_statement):
    facts, _ = table_facts(income_statement, ZH)
    revenue = [f for f in facts if f.field == "營業收入" and f.unit == "元"]
    assert [(f.year, f.value, f.raw) for f in revenue] == [
        (2023, "95651513000", "$ 95,651,513"),
        (2022, "142710849000", "$ 142,710,849"),
    ]
    first = revenue[0]
    assert (first.company, first.short_name, first.code, first.doc_id, first.page, first.table) == (
        "示例股份有限公司",
        "示例",
        "2330",
        "finance/742",
        1,
        "p1t1",
    )
    assert first.period == "一一二年第一季/金 額" and first.number == Decimal("95651513000")
    cost = next(f for f in facts if f.field == "營業成本" and f.year == 2023 and f.unit == "元")
    assert cost.value == "-49739271000"
    share = next(f for f in facts if f.field == "營業成本" and f.year == 2023 and f.unit == "%")
    assert share.value == "-52"


def test_note_and_code_columns_give_no_facts(income_statement):
    facts, _ = table_facts(income_statement, ZH)
    assert not [f for f in facts if "附" in f.period or f.period == "代碼"]
    assert not [f for f in facts if f.field.isdigit()]


def test_per_share_rows_are_not_scaled_by_the_table_unit(income_statement):
    facts, _ = table_facts(income_statement, ZH)
    eps = [f for f in facts if f.field.startswith("基本每股盈餘") and f.number is not None and f.unit == "元"]
    assert eps and all(abs(f.number) < 100 for f in eps)


def test_each_row_becomes_a_searchable_table_chunk(income_statement):
    _, chunks = table_facts(income_statement, ZH)
    first = chunks[0]
    assert first.chunk_id == "finance/742#rp1t1-0" and first.kind == "table"
    assert first.text.startswith("營業收入一一二年第一季/金 額为$ 95,651,513仟元；")
    assert first.titles[-1] == income_statement.title and first.page_start == 1
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_japanese_sentences_and_text_facts():
    table = grid_table(
        [
            ["", "当事業年度"],
            ["【本店の所在の場所】", "大阪府大阪市中央区道修町３丁目１番８号"],
            ["【提出日】", "2020年6月24日"],
            ["従業員数（人）", "5,234"],
            ["平均年間給与", "－"],
        ],
        with_ids=True,
    )
    facts, chunks = table_facts(table, JA)
    by_field = {f.field: f for f in facts}
    office = by_field["本店の所在の場所"]
    assert (office.value, office.number, office.cell_id) == (
        "大阪府大阪市中央区道修町３丁目１番８号",
        None,
        "t1-r2c2",
    )
    assert by_field["提出日"].value == "2020-06-24"
    assert (by_field["従業員数"].value, by_field["従業員数"].unit) == ("5234", "人")
    assert (by_field["平均年間給与"].value, by_field["平均年間給与"].number) == ("-", None)
    assert chunks[0].text == "本店の所在の場所（当事業年度）は大阪府大阪市中央区道修町３丁目１番８号。"
    assert chunks[0].cell_id == "t1-r2c1"


def test_row_chunks_carry_the_heading_rows_above_them_until_their_total():
    table = grid_table(
        [
            ["", "当連結会計年度"],
            ["流動負債", ""],
            ["その他", "120"],
            ["流動負債合計", "900"],
            ["非流動負債", ""],
            ["その他", "45"],
        ],
        with_ids=True,
    )
    _, chunks = table_facts(table, JA)
    titles = {c.text: c.titles for c in chunks}
    assert titles["その他（当連結会計年度）は120。"][-1] == "流動負債"
    assert titles["その他（当連結会計年度）は45。"][-1] == "非流動負債"
    assert "流動負債" not in titles["その他（当連結会計年度）は45。"]


def test_rows_between_dated_balances_belong_to_the_later_year():
    table = grid_table(
        [
            ["", "資本金", "利益剰余金"],
            ["2018年4月1日残高", "100", "50"],
            ["剰余金の配当", "", "△10"],
            ["2019年3月31日残高", "100", "40"],
            ["当期首残高", "100", "40"],
        ],
        unit="百万円",
    )
    facts, _ = table_facts(table, JA)
    got = {(f.field, f.period, f.year): f.value for f in facts}
    assert got[("資本金", "2018年4月1日残高", 2018)] == "100000000"
    assert got[("剰余金の配当", "利益剰余金", 2019)] == "-10000000"
    assert got[("利益剰余金", "2019年3月31日残高", 2019)] == "40000000"
    # the movement is a change within the year, the balances are not
    kinds = {(f.field, f.period): f.period_kind for f in facts}
    assert kinds[("剰余金の配当", "利益剰余金")] == "change"
    assert kinds[("利益剰余金", "2019年3月31日残高")] == ""


def test_dated_rows_take_their_field_from_the_column_name_not_the_unit_row_under_it():
    table = grid_table(
        [
            ["", "商標権", "その他"],
            ["", "百万円", "百万円"],
            ["2019年12月31日残高", "30", "7"],
            ["2020年12月31日残高", "31", "8"],
        ]
    )
    facts, _ = table_facts(table, JA)
    got = {(f.field, f.period): f.value for f in facts}
    assert got[("その他", "2020年12月31日残高")] == "8000000"
    assert got[("商標権", "2019年12月31日残高")] == "30000000"


def test_a_japanese_statement_without_signs_prints_its_negatives_in_brackets():
    table = grid_table(
        [
            ["", "前年度", "当年度"],
            ["売上収益", "2,100", "2,000"],
            ["売上原価", "( 900 )", "( 898 )"],
            ["その他の包括利益", "( 2,811 )", "1,200"],
            ["(うち海外)", "( 50 )", "( 60 )"],
        ],
        unit="百万円",
    )
    got = {(f.field, f.period): f.value for f in table_facts(table, JA)[0]}
    assert got[("その他の包括利益", "前年度")] == "-2811000000"
    assert got[("売上原価", "当年度")] == "898000000"  # an expense shown as a deduction is an expense
    assert got[("(うち海外)", "当年度")] == "60000000"  # a bracketed row's figures are secondary ones


def test_a_japanese_table_that_signs_with_triangles_or_counts_people_keeps_brackets_positive():
    signed = grid_table([["", "当年度"], ["営業利益", "△ 5"], ["その他", "( 12 )"]], unit="百万円")
    people = grid_table([["", "従業員数（名）"], ["全社(共通)", "（7）"]])
    assert [f.value for f in table_facts(signed, JA)[0]] == ["-5000000", "12000000"]
    assert [f.value for f in table_facts(people, JA)[0]] == ["7"]


def test_a_unit_column_states_its_unit_once_for_the_blank_cells_below():
    table = grid_table(
        [
            ["", "前事業年度", "", "当事業年度", ""],
            ["給料及び手当", "85,467", "百万円", "86,000", "百万円"],
            ["減価償却費", "20,029", "", "21,000", ""],
        ]
    )
    got = {(f.field, f.period): f.value for f in table_facts(table, JA)[0]}
    assert got[("減価償却費", "前事業年度")] == "20029000000"


def test_opening_balance_row_is_the_year_before():
    table = grid_table([["项目", "2021年"], ["期初余额", "10"], ["本期增加", "5"], ["期末余额", "15"]])
    facts, _ = table_facts(table, ZH)
    assert [(f.field, f.year) for f in facts] == [("期初余额", 2020), ("本期增加", 2021), ("期末余额", 2021)]


def test_expense_lines_printed_as_deductions_are_positive_in_japanese_statements():
    table = grid_table(
        [
            ["", "当期"],
            ["売上収益", "1,000"],
            ["売上原価", "△ 600"],
            ["研究開発費", "△ 100"],
            ["為替差損益", "△ 5"],
        ],
        unit="百万円",
    )
    facts, _ = table_facts(table, JA)
    values = {f.field: f.value for f in facts}
    assert values == {
        "売上収益": "1000000000",
        "売上原価": "600000000",
        "研究開発費": "100000000",
        "為替差損益": "-5000000",
    }
    chinese, _ = table_facts(grid_table([["项目", "本期"], ["财务费用", "-100"], ["研发费用", "-5"]]), ZH)
    assert [f.value for f in chinese] == ["-100", "-5"]


def test_a_unit_column_with_ditto_marks_repeats_the_unit_above():
    frame = pd.DataFrame(
        [
            ["売上高", "百万円", "700,317"],
            ["経常利益", "〃", "65,348"],
            ["発行済株式総数", "(千株)", "581,628"],
            ["自己株式数", "(〃)", "1,200"],
            ["1株当たり純資産額", "円", "1,111.19"],
            ["自己資本比率", "％", "64.2"],
        ],
        columns=["回次", "回次#1", "第91期/2016年３月"],
        dtype=object,
    )
    facts, _ = table_facts(Table("t1", 0, frame), DocumentMeta("d", language="ja"), 2020)
    got = {f.field: (f.value, f.unit) for f in facts}
    assert got["売上高"] == ("700317000000", "円")
    assert got["経常利益"] == ("65348000000", "円")
    assert got["発行済株式総数"] == ("581628000", "株")
    assert got["自己株式数"] == ("1200000", "株")  # "(〃)" too
    assert got["1株当たり純資産額"] == ("1111.19", "円")


def test_every_fact_carries_its_tables_statement_scope_and_its_columns_period_kind():
    frame = pd.DataFrame(
        [["营业收入", "1,000.00", "900.00", "300.00"]],
        columns=["项目", "本期发生额", "上期发生额", "第三季度（7-9月份）"],
        dtype=object,
    )
    table = Table("p54t1", 54, frame, title="合并利润表", titles=("第十节 财务报告",))
    doc = ParsedDocument(DocumentMeta("d", company="甲公司", year=2021, language="zh"))
    add_tables(doc, [table])
    assert (table.statement, table.scope) == ("income_statement", "consolidated")
    by_period = {f.period: f for f in doc.facts}
    assert {(f.statement, f.scope) for f in doc.facts} == {("income_statement", "consolidated")}
    assert (
        by_period["本期发生额"].period_kind == ""
        and by_period["第三季度（7-9月份）"].period_kind == "quarter"
    )


def test_a_unit_in_one_header_and_units_alone_in_rows_apply_to_the_rows_below():
    frame = pd.DataFrame(
        [
            ["営業収益", "1,500,445", "1,600,000"],
            ["", "％", ""],
            ["配当性向", "42.8", "38.3"],
            ["", "人", ""],
            ["従業員数", "26,555", "25,821"],
        ],
        columns=["回次", "第29期/2016年３月/百万円", "第30期/2017年３月"],
        dtype=object,
    )
    facts, _ = table_facts(Table("t1", 0, frame), DocumentMeta("d", language="ja"), 2020)
    got = {(f.field, f.period): (f.value, f.unit) for f in facts}
    assert got[("営業収益", "第30期/2017年３月")] == ("1600000000000", "円")
    assert got[("配当性向", "第30期/2017年３月")] == ("38.3", "%")
    assert got[("従業員数", "第29期/2016年３月/百万円")] == ("26555", "人")


def test_a_header_ending_in_the_percent_sign_makes_its_column_percent_not_the_table_unit():
    frame = pd.DataFrame(
        [["资产总额", "5,769,270", "100.0"]],
        columns=["项目", "2024年12月31日/余额", "2024年12月31日/占比%"],
        dtype=object,
    )
    facts, _ = table_facts(Table("t1", 22, frame, unit="百万元"), ZH, 2024)
    got = {f.period: (f.value, f.unit) for f in facts}
    assert got["2024年12月31日/余额"] == ("5769270000000", "元")
    assert got["2024年12月31日/占比%"] == ("100", "%")


def test_a_caption_over_one_row_of_figures_and_units_names_their_field():
    # 旭化成's note (S100TQ91-0105100-tab116): no row label, a value and a unit column per period
    earlier, later = (
        "前連結会計年度(自2022年４月１日至2023年３月31日)",
        "当連結会計年度(自2023年４月１日至2024年３月31日)",
    )
    table = grid_table(
        [[earlier, earlier, later, later], ["105,027", "百万円", "106,597", "百万円"]],
        title="※３ 一般管理費及び当期製造費用に含まれる研究開発費は、次のとおりです。",
    )
    facts, _ = table_facts(table, JA)
    assert {(f.field, f.year, f.value) for f in facts} == {
        ("一般管理費及び当期製造費用に含まれる研究開発費", 2023, "105027000000"),
        ("一般管理費及び当期製造費用に含まれる研究開発費", 2024, "106597000000"),
    }


def test_header_rows_over_one_row_of_figures_name_each_figure():
    # the women's-participation figures of 従業員の状況 (S100TVNW-0101010-tab8): three header rows, one row of
    # figures, no row label
    pay = "労働者の男女の賃金の差異（％）（注）１"
    table = grid_table(
        [
            ["当事業年度", "当事業年度", "当事業年度", "当事業年度", "当事業年度", "補足説明"],
            [
                "管理職に占める女性労働者の割合（％）（注）１",
                "男性労働者の育児休業取得率（％）（注）２",
                pay,
                pay,
                pay,
                "補足説明",
            ],
            [
                "管理職に占める女性労働者の割合（％）（注）１",
                "男性労働者の育児休業取得率（％）（注）２",
                "全労働者",
                "正規雇用労働者",
                "パート・有期労働者",
                "補足説明",
            ],
            ["2.6", "57.1", "71.6", "72.5", "62.7", "-"],
        ],
        title="提出会社",
    )
    assert table.frame.attrs["header_rows"] == 3
    facts, _ = table_facts(table, JA)
    got = {f.period: (f.field, f.value, f.unit) for f in facts}
    assert got[f"当事業年度/{pay}/正規雇用労働者"] == ("提出会社", "72.5", "%")
    assert got["当事業年度/男性労働者の育児休業取得率（％）（注）２"] == ("提出会社", "57.1", "%")
    assert {f.year for f in facts} == {2020}
