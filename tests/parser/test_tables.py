"""Tables from real aicup statement pages, and ruled tables the tests draw with reportlab."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest

from core.records import DocumentMeta
from parser.facts import table_facts
from parser.settings import ParseSettings
from parser.tables import (
    PDF_TABLE_SETTINGS,
    GridCell,
    _cell_texts,
    build_table,
    clean_cell,
    cropped_chars,
    find_pdf_tables,
    merge_continued,
    text_lines,
)

reportlab = pytest.importorskip("reportlab", reason="reportlab (a dev dependency) draws the test PDFs")
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfbase import pdfmetrics  # noqa: E402
from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

SETTINGS = ParseSettings()
FONT = "STSong-Light"


def cells(*texts: str, origin: bool = True) -> list[GridCell]:
    """A grid row of these texts, each cell its own origin unless `origin` is False (a spanned cell)."""
    return [GridCell(t, "", origin) for t in texts]


def page_tables(shared_data, name: str, page: int = 1):
    with pdfplumber.open(shared_data / "aicup" / "reference" / "finance" / name) as pdf:
        return [table for _, table in find_pdf_tables(pdf.pages[page - 1], page, SETTINGS)]


def row(table, label: str) -> dict:
    frame = table.frame
    hits = frame[frame.iloc[:, 1 if frame.columns[0].startswith("代") else 0] == label]
    assert len(hits), f"no row {label!r} in {list(frame.iloc[:, :2].itertuples(index=False))[:5]}"
    return hits.iloc[0].to_dict()


# ---- real statement pages ----------------------------------------------------------------------


def test_income_statement_block_of_stacked_lines_becomes_one_row_per_line(shared_data):
    # 742.pdf rules the statement in blocks: one pdfplumber cell holds a column of lines.
    [table] = page_tables(shared_data, "742.pdf")
    assert table.table_id == "p1t1" and table.page == 1
    assert list(table.frame.columns)[3:5] == ["一一二年第一季/金 額", "一一二年第一季/%"]
    assert table.unit == "仟元"
    revenue = row(table, "營業收入")
    assert revenue["代碼"] == "4000"
    assert revenue["一一二年第一季/金 額"] == "$ 95,651,513"
    assert revenue["一一一年第一季/金 額"] == "$ 142,710,849"
    assert row(table, "營業成本")["一一二年第一季/%"] == "(52)"
    assert len(table.frame) > 30


def test_equity_statement_three_header_rows_are_flattened(shared_data):
    [table] = page_tables(shared_data, "209.pdf")
    columns = list(table.frame.columns)
    assert "歸屬於母公司業主之權益/保留盈餘/法定盈餘公積" in columns
    assert columns[-2:] == ["非控制權益", "權益總額"]
    assert table.frame.attrs["header_rows"] == 3
    legal_reserve = row(table, "法定盈餘公積")
    assert legal_reserve["歸屬於母公司業主之權益/保留盈餘/法定盈餘公積"] == "5,832,570"


def test_cash_flow_statement_keeps_section_rows_and_values(shared_data):
    [table] = page_tables(shared_data, "653.pdf")
    assert list(table.frame.columns) == [
        "項 目",
        "一一二年一月一日至三月三十一日",
        "一一一年一月一日至三月三十一日",
    ]
    assert row(table, "本期稅前淨利")["一一二年一月一日至三月三十一日"] == "$ 19,128,451"
    assert row(table, "營業活動之現金流量：")["一一二年一月一日至三月三十一日"] == ""
    assert table.unit == "千元"


def test_caption_above_a_table_is_its_title(shared_data):
    tables = page_tables(shared_data, "59.pdf")
    commitments = tables[-1]
    assert commitments.title == "1.已簽約但尚未發生之資本支出"
    assert list(commitments.frame.iloc[0]) == [
        "不動產、廠房及設備",
        "$ 5,649,842",
        "$ 5,375,158",
        "$ 3,281,236",
    ]


def test_boxes_around_column_headings_are_not_tables(shared_data):
    # 359.pdf frames only the period headings of its subsidiaries' summaries.
    assert page_tables(shared_data, "359.pdf", 9) == []
    assert page_tables(shared_data, "359.pdf", 10) == []


def test_page_without_ruled_table_gives_none(shared_data):
    # 435.pdf sets its balance sheet without rules: it stays running text.
    assert page_tables(shared_data, "435.pdf") == []


def test_cell_texts_and_cropped_lines_equal_pdfplumbers(shared_data):
    # The faster cell reading and cropping give what pdfplumber's extract() and crop() give.
    for name in ("742.pdf", "209.pdf", "59.pdf"):
        with pdfplumber.open(shared_data / "aicup" / "reference" / "finance" / name) as pdf:
            page = pdf.pages[0]
            for plumber_table in page.find_tables(PDF_TABLE_SETTINGS):
                assert _cell_texts(plumber_table) == plumber_table.extract()
                above, first_cell = (0, 0, float(page.width), plumber_table.bbox[1]), plumber_table.cells[0]
                assert text_lines(cropped_chars(page.chars, above), above) == page.crop(
                    above, strict=False
                ).extract_text_lines(strip=True, return_chars=False)
                block = cropped_chars(page.chars, plumber_table.bbox)
                assert text_lines(cropped_chars(block, first_cell), first_cell) == page.crop(
                    plumber_table.bbox, strict=False
                ).crop(first_cell, strict=False).extract_text_lines(strip=True, return_chars=False)


# ---- continued tables (drawn) ------------------------------------------------------------------


def draw_ruled_tables(path: Path, pages: list[dict]) -> Path:
    """Each page: {"rows": [[cell, ...], ...], "top": y of the table's top edge, "caption": text above}."""
    pdfmetrics.registerFont(UnicodeCIDFont(FONT))
    pdf = canvas.Canvas(str(path), pagesize=A4)
    width = [160, 120, 120]
    for spec in pages:
        pdf.setFont(FONT, 10)
        top, rows = spec["top"], spec["rows"]
        if spec.get("caption"):
            pdf.drawString(60, top + 8, spec["caption"])
        xs = [60]
        for w in width[: len(rows[0])]:
            xs.append(xs[-1] + w)
        ys = [top - 20 * i for i in range(len(rows) + 1)]
        pdf.grid(xs, ys)
        for i, cells in enumerate(rows):
            for j, text in enumerate(cells):
                pdf.drawString(xs[j] + 4, ys[i] - 14, text)
        pdf.showPage()
    pdf.save()
    return path


def tables_of(path: Path):
    found = []
    with pdfplumber.open(path) as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            found += [table for _, table in find_pdf_tables(page, number, SETTINGS)]
    return found


BALANCE_ROWS = [[f"资产{i}", f"{i},000", f"{i},500"] for i in range(1, 30)]


def test_table_continuing_on_next_page_without_header_is_merged(tmp_path):
    header = ["项目", "2021年12月31日", "2020年12月31日"]
    path = draw_ruled_tables(
        tmp_path / "continued.pdf",
        [
            {"top": 700, "caption": "单位：元", "rows": [header] + BALANCE_ROWS[:30]},
            {"top": 800, "rows": [["负债合计", "9,000", "8,000"], ["所有者权益合计", "7,000", "6,000"]]},
        ],
    )
    tables = tables_of(path)
    assert len(tables) == 2 and tables[1].frame.attrs["header_rows"] == 0
    [merged] = merge_continued(tables)
    assert list(merged.frame.columns) == header
    assert len(merged.frame) == 29 + 2
    assert merged.frame.iloc[-1].tolist() == ["所有者权益合计", "7,000", "6,000"]
    assert merged.unit == "元"
    facts, chunks = table_facts(merged, DocumentMeta("doc", company="示例公司", year=2021, language="zh"))
    total = [f for f in facts if f.field == "负债合计" and f.year == 2021]
    assert [(f.value, f.page) for f in total] == [("9000", 2)]
    assert [f.page for f in facts if f.field == "资产1"] == [1, 1]
    assert chunks[-1].page_start == 2


def test_table_repeating_its_header_on_the_next_page_is_merged(tmp_path):
    header = ["项目", "本期发生额", "上期发生额"]
    path = draw_ruled_tables(
        tmp_path / "repeated.pdf",
        [
            {"top": 700, "rows": [header] + BALANCE_ROWS[:30]},
            {"top": 800, "rows": [header, ["营业收入", "5,000", "4,000"]]},
        ],
    )
    [merged] = merge_continued(tables_of(path))
    assert merged.frame.iloc[-1].tolist() == ["营业收入", "5,000", "4,000"]
    assert "项目" not in merged.frame.iloc[:, 0].tolist()


def test_tables_with_other_columns_or_mid_page_start_stay_apart(tmp_path):
    path = draw_ruled_tables(
        tmp_path / "apart.pdf",
        [
            {"top": 700, "rows": [["项目", "2021年", "2020年"]] + BALANCE_ROWS[:30]},
            {"top": 800, "rows": [["股东名称", "持股数量"], ["甲公司", "1,000"]]},
            {"top": 400, "rows": [["负债合计", "9,000"], ["所有者权益合计", "7,000"]]},
        ],
    )
    tables = tables_of(path)
    assert len(merge_continued(tables)) == 3


# ---- building a table from a grid --------------------------------------------------------------


def test_merged_row_label_is_filled_down_and_spanned_value_read_once():

    grid = [
        cells("", "", "（単位：百万円）"),
        cells("区分", "前期", "当期"),
        cells("売上高", "1,000", "1,200"),
        [GridCell("売上高", "", False), GridCell("900", "", True), GridCell("900", "", False)],
    ]
    table = build_table(grid, "t1", 3)
    assert table.unit == "百万円"
    assert list(table.frame.columns) == ["区分", "前期", "当期"]
    assert table.frame.values.tolist() == [["売上高", "1,000", "1,200"], ["売上高", "900", ""]]


def test_cell_lines_are_joined_without_space_between_cjk():
    assert clean_cell("归属于上市公司股东的\n净利润") == "归属于上市公司股东的净利润"
    assert clean_cell("Net\nprofit") == "Net profit"
    assert clean_cell("※１\n1,056") == "※１ 1,056"
    assert clean_cell(None) == ""


def test_labels_indented_across_leading_columns_become_one_label_column():

    grid = [
        cells("", "", "", "前事業年度", "当事業年度"),
        cells("資産の部", "", "", "", ""),
        cells("", "流動資産", "", "", ""),
        cells("", "", "現金及び預金", "43,077", "23,671"),
        cells("", "", "売掛金", "135,802", "126,141"),
    ]
    table = build_table(grid, "t1", 0)
    assert list(table.frame.columns)[1:] == ["前事業年度", "当事業年度"]
    assert table.frame.iloc[:, 0].tolist() == ["資産の部", "流動資産", "現金及び預金", "売掛金"]
    assert table.frame.iloc[2, 1:].tolist() == ["43,077", "23,671"]


def test_a_statement_part_opening_with_an_indented_section_label_keeps_its_period_header():
    # The second table of a balance sheet split in two: its first body row (無形固定資産) stands in the
    # leading columns, left of the period headers, like the rows below it, and is no header of its own.

    grid = [
        cells("", "", "", "前事業年度", "当事業年度"),
        cells("", "無形固定資産", "", "", ""),
        cells("", "", "借地権", "1,358", "1,357"),
        cells("", "", "無形固定資産合計", "6,575", "6,285"),
    ]
    table = build_table(grid, "t1", 0)
    assert list(table.frame.columns)[1:] == ["前事業年度", "当事業年度"]
    assert table.frame.iloc[:, 0].tolist() == ["無形固定資産", "借地権", "無形固定資産合計"]
    # a second header row under the periods still continues the header
    headed = build_table(
        [cells("", "前期", "当期"), cells("", "金額", "金額"), cells("売上高", "10", "12")], "t2", 0
    )
    assert list(headed.frame.columns)[1:] == ["前期/金額", "当期/金額"]


def test_two_text_columns_of_one_row_stay_apart():

    grid = [
        cells("役職名", "氏名", "所有株式数"),
        cells("取締役社長", "山田 太郎", "12"),
        cells("取締役", "鈴木 花子", "3"),
    ]
    table = build_table(grid, "t1", 0)
    assert list(table.frame.columns) == ["役職名", "氏名", "所有株式数"]


def test_a_two_column_table_is_headed_when_its_second_column_states_a_unit_over_numbers():

    headed = build_table(
        [cells("セグメントの名称", "研究開発費（億円）"), cells("IT", "532"), cells("エネルギー", "77")],
        "t1",
        0,
    )
    assert list(headed.frame.columns) == ["セグメントの名称", "研究開発費（億円）"]
    keyed = build_table([cells("【会社名】", "株式会社テスト"), cells("【資本金】", "26,433百万円")], "t2", 0)
    assert keyed.frame.iloc[:, 0].tolist() == ["【会社名】", "【資本金】"]


def test_rows_of_words_over_a_row_of_figures_alone_are_all_header():
    # 当事業年度 | 補足説明, then the figures' names over two rows (one spanning both), then the figures
    grid = [
        cells("当事業年度", "当事業年度", "当事業年度", "補足説明"),
        cells("女性管理職比率（％）", "賃金の差異（％）", "賃金の差異（％）", "補足説明"),
        cells("女性管理職比率（％）", "全労働者", "正規雇用労働者", "補足説明"),
        cells("2.6", "71.6", "72.5", "-"),
    ]
    table = build_table(grid, "t", 0)
    assert table.frame.attrs["header_rows"] == 3
    assert list(table.frame.columns)[:2] == [
        "当事業年度/女性管理職比率（％）",
        "当事業年度/賃金の差異（％）/全労働者",
    ]
    assert table.frame.iloc[0].tolist() == ["2.6", "71.6", "72.5", "-"]


def test_a_row_of_a_label_alone_above_figures_without_labels_still_opens_the_body():
    # a PDF table whose row labels were lost: the section label 流動項目 stays a body row, not a header part
    grid = [
        cells("", "112年3月31日", "111年12月31日"),
        cells("流動項目", "", ""),
        cells("$ 81,036", "$ 89,431", "1"),
    ]
    table = build_table(grid, "t", 0)
    assert table.frame.attrs["header_rows"] == 1
    assert table.frame.iloc[0].tolist()[0] == "流動項目"
