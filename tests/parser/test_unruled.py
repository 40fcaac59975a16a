"""Statements without ruling lines, read from word positions: a real bank statement and drawn pages."""

from pathlib import Path

import pdfplumber
import pytest

from core.records import DocumentMeta
from parser.pdf import parse_pdf
from parser.settings import ParseSettings
from parser.tables import find_pdf_tables
from parser.unruled import find_unruled_tables

reportlab = pytest.importorskip("reportlab", reason="reportlab (a dev dependency) draws the test PDFs")
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfbase import pdfmetrics  # noqa: E402
from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

FONT = "STSong-Light"


def unruled_tables(path: Path, page: int):
    with pdfplumber.open(path) as pdf:
        found = pdf.pages[page - 1]
        taken = [bbox for bbox, _ in find_pdf_tables(found, page, ParseSettings())]
        return [table for _, table in find_unruled_tables(found, page, taken)]


def value(table, label: str, column: str) -> str:
    frame = table.frame
    hits = frame[frame.iloc[:, 0] == label]
    assert len(hits), f"no row {label!r} in {list(frame.iloc[:, 0])[:8]}"
    return hits.iloc[0][column]


def test_bank_balance_sheet_without_rules_becomes_a_table(shared_data):
    # The bank prints its statements without lines; pdfplumber's ruled finder sees none on this page.
    [report] = (shared_data / "annual-cn" / "reports").glob("*000001*.pdf")
    [table] = unruled_tables(report, 123)
    assert list(table.frame.columns) == ["#0", "附注四", "本集团/2024年12月31日", "本集团/2023年12月31日"]
    assert table.title == "合并资产负债表(续)" and table.unit == "百万元"
    assert value(table, "吸收存款", "本集团/2024年12月31日") == "3,592,313"
    assert value(table, "吸收存款", "附注四") == "25"
    assert value(table, "负债", "本集团/2024年12月31日") == ""  # a section name is a row without values


def test_statement_whose_column_headers_cannot_be_read_stays_text(shared_data):
    # 435.pdf letter-spaces its headers ("111 年 3 月 31 日") and splits "( 10,364,858)" in two: without
    # column labels there are no periods, so its balance sheet is left as it was.
    path = shared_data / "aicup" / "reference" / "finance" / "435.pdf"
    assert unruled_tables(path, 1) == [] and unruled_tables(path, 2) == []


def draw(path: Path, ruled_rows: list[list[str]] | None = None, prose: str = "") -> Path:
    """An unruled two-year statement (with a wrapped label and a negative in brackets), then prose or a
    ruled grid table below it."""
    pdfmetrics.registerFont(UnicodeCIDFont(FONT))
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setFont(FONT, 10)
    pdf.drawString(230, 800, "合并利润表")
    pdf.drawString(200, 786, "单位：元")
    pdf.drawString(60, 760, "项目")
    pdf.drawRightString(400, 760, "2021年度")
    pdf.drawRightString(500, 760, "2020年度")
    body = [
        ("一、营业总收入", "", ""),
        ("营业收入", "1,200,500", "1,000,250"),
        ("其中：以摊余成本计量的金融资产终止确认产", None, None),
        ("生的收益", "3,100", "2,900"),
        ("财务费用", "(12,400)", "(9,800)"),
        ("营业利润", "300,000", "250,000"),
    ]
    y = 740
    for label, this_year, last_year in body:
        pdf.drawString(60, y, label)
        if this_year:
            pdf.drawRightString(400, y, this_year)
            pdf.drawRightString(500, y, last_year)
        y -= 16
    if prose:
        pdf.drawString(60, 560, prose)
    if ruled_rows:
        xs, ys = [60, 220, 340, 460], [560 - 20 * i for i in range(len(ruled_rows) + 1)]
        pdf.grid(xs, ys)
        placed = [
            (xs[j] + 4, ys[i] - 14, text)
            for i, cells in enumerate(ruled_rows)
            for j, text in enumerate(cells)
        ]
        for x, y, text in placed:
            pdf.drawString(x, y, text)
    pdf.showPage()
    pdf.save()
    return path


def test_drawn_unruled_statement_keeps_periods_negatives_and_wrapped_labels(tmp_path):
    [table] = unruled_tables(draw(tmp_path / "statement.pdf"), 1)
    assert list(table.frame.columns) == ["项目", "2021年度", "2020年度"]
    assert table.title == "合并利润表" and table.unit == "元"
    assert value(table, "营业收入", "2021年度") == "1,200,500"
    assert value(table, "财务费用", "2020年度") == "(9,800)"
    assert value(table, "其中：以摊余成本计量的金融资产终止确认产生的收益", "2021年度") == "3,100"


def test_a_ruled_table_on_the_same_page_is_read_once_by_the_ruled_reader(tmp_path):
    rows = [
        ["项目", "2021年12月31日", "2020年12月31日"],
        ["货币资金", "10,000", "9,000"],
        ["应收账款", "2,000", "1,500"],
        ["存货", "3,000", "2,500"],
    ]
    path = draw(tmp_path / "both.pdf", ruled_rows=rows)
    [unruled] = unruled_tables(path, 1)
    assert "货币资金" not in set(unruled.frame.iloc[:, 0])
    doc = parse_pdf(path, DocumentMeta("both"), ParseSettings(ocr=False))
    assert doc.tables == 2
    ruled = next(t for t in doc.table_list if "货币资金" in set(t.frame.iloc[:, 0]))
    assert value(ruled, "存货", "2021年12月31日") == "3,000"


def test_prose_with_numbers_below_a_statement_stays_running_text(tmp_path):
    path = draw(tmp_path / "prose.pdf", prose="本集团共有在职员工 41,011 人，其中研发人员 1,234 人。")
    [table] = unruled_tables(path, 1)
    assert len(table.frame) == 5
    doc = parse_pdf(path, DocumentMeta("prose"), ParseSettings(ocr=False))
    assert any("41,011" in chunk.text for chunk in doc.chunks if chunk.kind != "table")
