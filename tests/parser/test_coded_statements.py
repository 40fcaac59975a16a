"""Unruled statements with account codes and % columns (Taiwanese quarterly reports): real pages of the AI CUP
finance PDFs, and a drawn page for the wrapped label and the hidden-row cases."""

from pathlib import Path

import pytest

from core.records import DocumentMeta
from parser.pdf import parse_pdf
from parser.settings import ParseSettings

reportlab = pytest.importorskip("reportlab", reason="reportlab (a dev dependency) draws the test PDFs")
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfbase import pdfmetrics  # noqa: E402
from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

FONT = "MSung-Light"  # a Traditional Chinese CID font reportlab ships


def finance(shared_data, name: str) -> Path:
    return shared_data / "aicup" / "reference" / "finance" / f"{name}.pdf"


def facts_of(path: Path):
    doc = parse_pdf(path, DocumentMeta(path.stem, company="C", language="zh-Hant"), ParseSettings(ocr=False))
    return {(f.field, f.period): f for f in doc.facts}, doc


def test_coded_income_statement_gives_quarter_and_year_to_date_facts_without_codes_or_shares(shared_data):
    # 145.pdf: codes (4000), notes (六(二十三)及七), brackets printed apart ("(" 57,314,868 ")("), four periods
    # over amount and % columns, letter-spaced ("111 年 7 月 1 日" / "至 9 月 30 日").
    facts, doc = facts_of(finance(shared_data, "145"))
    revenue = facts[("營業收入", "111年7月1日至9月30日")]
    assert revenue.number == 170433361000 and revenue.year == 2022 and revenue.period_kind == "quarter"
    assert revenue.statement == "income_statement" and revenue.scope == "consolidated"
    assert facts[("營業收入", "111年1月1日至9月30日")].period_kind == "ytd"
    assert facts[("營業收入", "110年1月1日至9月30日")].number == 333401180000
    assert facts[("營業成本", "110年7月1日至9月30日")].number == -44473846000  # "(" 44,473,846 ")(" 31 ")"
    # a label whose note wraps to the next line, and one wrapped over two lines
    assert facts[("採用權益法認列之關聯企業及合資損益之份額", "111年7月1日至9月30日")].number == 2415914000
    assert not any(f.field.isdigit() or f.raw in ("100", "(34)") for f in doc.facts)  # no code, no % column
    assert all(f.period for f in doc.facts)


def test_first_quarter_statement_continued_on_the_next_page(shared_data):
    # 137.pdf: Q1 (1月1日至3月31日 is a quarter), the statement runs on to page 2 with its header repeated.
    facts, _ = facts_of(finance(shared_data, "137"))
    assert facts[("推銷費用", "111年1月1日至3月31日")].number == -4961267000
    assert facts[("推銷費用", "111年1月1日至3月31日")].period_kind == "quarter"
    wrapped = facts[("透過其他綜合損益按公允價值衡量之權益工具投資未實現評價損益", "110年1月1日至3月31日")]
    assert wrapped.number == 33365000 and wrapped.page == 2


def test_periods_printed_on_the_column_words_line_and_notes_that_wrap(shared_data):
    # 155.pdf: "附註 至3月31日 至3月31日" on one line; "折舊費用 六(九)(十)" / "(二十五) 3,541,717".
    facts, _ = facts_of(finance(shared_data, "155"))
    assert facts[("折舊費用", "111年1月1日至3月31日")].number == 3541717000
    assert facts[("本期稅前淨利", "110年1月1日至3月31日")].number == 8814247000
    assert facts[("本期稅前淨利", "110年1月1日至3月31日")].statement == "cash_flow"


def draw(path: Path, dated: bool = True) -> Path:
    """A coded quarterly statement: title block, two period lines, 代碼/金額/% words, a label wrapped over two
    lines with the values beside its second half, an unlabelled line of numbers."""
    pdfmetrics.registerFont(UnicodeCIDFont(FONT))
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setFont(FONT, 10)
    pdf.drawString(240, 800, "合併綜合損益表")
    pdf.drawString(200, 786, "單位：新台幣仟元")
    if dated:
        for x, text in ((300, "112年1月1日"), (420, "111年1月1日")):
            pdf.drawString(x, 760, text)
            pdf.drawString(x + 5, 748, "至3月31日")
    for x, text in ((60, "代碼"), (100, "項目"), (320, "金額"), (380, "%"), (440, "金額"), (500, "%")):
        pdf.drawString(x, 734, text)
    rows = [
        ("4000", "營業收入", "$ 1,000,000", "100", "$ 800,000", "100"),
        ("6100", "推銷費用", "( 120,000 )", "( 12 )", "( 90,000 )", "( 11 )"),
        ("7060", "採用權益法認列之關聯企業及合資", None, None, None, None),
        ("", "損益之份額", "5,000", "1", "(4,000)", "-"),
        ("", "", "999,999", "", "", ""),  # no label: not a row of the statement
        ("8200", "本期淨利", "$ 300,000", "30", "$ 200,000", "25"),
    ]
    y = 718
    for code, label, *values in rows:
        pdf.drawString(60, y, code)
        pdf.drawString(100, y, label)
        for x, value in zip((370, 400, 490, 520), values):
            if value:
                pdf.drawRightString(x, y, value)
        y -= 16
    pdf.showPage()
    pdf.save()
    return path


def test_drawn_coded_statement(tmp_path):
    facts, doc = facts_of(draw(tmp_path / "coded.pdf"))
    assert set(facts) == {
        (field, period)
        for field in ("營業收入", "推銷費用", "採用權益法認列之關聯企業及合資損益之份額", "本期淨利")
        for period in ("112年1月1日至3月31日", "111年1月1日至3月31日")
    }
    assert facts[("推銷費用", "112年1月1日至3月31日")].number == -120000000
    assert facts[("採用權益法認列之關聯企業及合資損益之份額", "111年1月1日至3月31日")].number == -4000000
    assert facts[("本期淨利", "111年1月1日至3月31日")].year == 2022
    assert not any(f.raw == "999,999" for f in doc.facts)


def test_columns_nobody_dates_give_no_facts(tmp_path):
    _, doc = facts_of(draw(tmp_path / "undated.pdf", dated=False))
    assert doc.facts == []
