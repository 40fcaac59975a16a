"""parse_pdf on real aicup PDFs and on small PDFs the tests draw with reportlab."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest

from core.errors import InputError
from core.records import DocumentMeta
from parser.pdf import parse_pdf
from parser.settings import ParseSettings

reportlab = pytest.importorskip("reportlab", reason="reportlab (a dev dependency) draws the test PDFs")
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfbase import pdfmetrics  # noqa: E402
from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

SETTINGS = ParseSettings()


def aicup(shared_data, name: str) -> Path:
    return shared_data / "aicup" / "reference" / name


def parse(path: Path, settings: ParseSettings = SETTINGS, doc_id: str = "doc"):
    return parse_pdf(path, DocumentMeta(doc_id, company="測試公司", year=2023), settings)


@pytest.fixture(scope="module")
def policy(shared_data):
    """insurance/10: two pages of a real policy, header and "第 5 頁，共 11 頁" footer on each."""
    return parse(aicup(shared_data, "insurance/10.pdf"), doc_id="insurance/10")


@pytest.fixture(scope="module")
def notes(shared_data):
    """finance/439: twenty pages of notes to a real quarterly report."""
    return parse(aicup(shared_data, "finance/439.pdf"), doc_id="finance/439")


def chunk_with(doc, text: str):
    found = [c for c in doc.chunks if text in c.text and c.kind == "text"]
    assert found, f"no text chunk contains {text!r}"
    return found[0]


def draw_pdf(path: Path, pages: list[list[tuple[float, str]]], font: str = "STSong-Light", **options) -> Path:
    """A PDF with the given (y, text) lines on each page, in a built-in CJK font."""
    if font not in pdfmetrics.getRegisteredFontNames():  # a TrueType font the caller registered stays
        pdfmetrics.registerFont(UnicodeCIDFont(font))
    pdf = canvas.Canvas(str(path), pagesize=A4, **options)
    for lines in pages:
        pdf.setFont(font, 11)
        for y, text in lines:
            pdf.drawString(72, y, text)
        pdf.showPage()
    pdf.save()
    return path


# ---- headings on real pages -------------------------------------------------------------------


def test_insurance_clause_chunk_carries_its_clause_title(policy):
    doc = policy
    chunk = chunk_with(doc, "達九十六歲之保單年度末仍生存")
    assert chunk.titles == ("第十三條 滿期保險金的給付",)
    assert chunk_with(doc, "受益人申領「完全失能保險金」時應檢具").titles == (
        "第十八條 完全失能保險金的申領",
    )
    assert (chunk.page_start, chunk.company, chunk.year) == (1, "測試公司", 2023)


def test_finance_note_chunk_carries_the_full_heading_path(notes):
    doc = notes
    chunk = chunk_with(doc, "短期員工福利係以預期支付之非折現金額衡量")
    assert chunk.titles == ("四、重大會計政策之彙總說明", "(五)員工福利", "1.短期員工福利")
    assert chunk.page_start == 20


def test_heading_wrapped_by_the_layout_is_joined_into_one_title(notes):
    doc = notes
    chunk = chunk_with(doc, "下表彙列國際會計準則理事會已發布但尚未納入金管會認可")
    assert chunk.titles == ("(三)國際會計準則理事會已發布但尚未經金管會認可之國際財務報導準則之影響",)


def test_list_items_written_as_sentences_stay_in_their_clause(policy):
    doc = policy
    chunk = chunk_with(doc, "一、若依本契約第二十二條減少「保險金額」者")
    assert chunk.titles == ("第十五條 身故保險金或喪葬費用保險金的給付",)


def test_text_set_with_rounding_noise_in_its_matrix_reads_in_lines(notes):
    """finance/439 page 1 has a table whose characters pdfminer calls non-upright (b, c ~ 1e-7)."""
    assert any("國際財務報導準則第17號「保險合約」" in c.text for c in notes.chunks)


def test_compatibility_ideographs_become_ordinary_ones(shared_data, policy):
    with pdfplumber.open(aicup(shared_data, "insurance/10.pdf")) as pdf:
        assert "\uf99c" in pdf.pages[0].extract_text()  # the PDF writes 列 as U+F99C
    doc = policy
    assert "應檢具下列文件" in chunk_with(doc, "受益人申領「滿期保險金」時").text
    assert not any("\uf900" <= ch <= "\ufaff" for c in doc.chunks for ch in c.text)


# ---- running headers and footers ----------------------------------------------------------------


def test_running_header_and_page_footer_of_a_real_policy_are_dropped(shared_data, policy):
    with pdfplumber.open(aicup(shared_data, "insurance/10.pdf")) as pdf:
        raw = "\n".join(page.extract_text() for page in pdf.pages)
    assert raw.count("南山人壽新福愛小額終身壽險_MPL3") == 2 and "第 5 頁，共 11 頁" in raw
    assert not any("MPL3" in c.text or "共 11 頁" in c.text for c in policy.chunks)


def test_repeated_edge_lines_are_dropped_only_when_on_enough_pages(tmp_path):
    body = [(700, "本公司主要从事工业软件的研发和销售。"), (680, "报告期内营业收入稳定增长。")]
    pages = [
        [(800, "示例科技股份有限公司 2022 年年度报告"), *body, (40, f"第 {n} 页 共 4 页")]
        for n in range(1, 4)
    ]
    pages.append([(800, "附录：释义"), *body, (40, "第 4 页 共 4 页")])
    path = draw_pdf(tmp_path / "report.pdf", pages)

    doc = parse(path, ParseSettings(header_footer_share=0.5))
    text = "".join(c.text for c in doc.chunks)
    assert "年年度报告" not in text and "共 4 页" not in text
    assert "附录：释义" in text and "报告期内营业收入稳定增长。" in text

    strict = parse(path, ParseSettings(header_footer_share=1.0))  # the header is on 3 of 4 pages only
    strict_text = "".join(c.text for c in strict.chunks)
    assert "示例科技股份有限公司 2022 年年度报告" in strict_text and "共 4 页" not in strict_text


def test_title_repeated_atop_each_page_keeps_its_first_occurrence_as_the_heading(tmp_path):
    pages = [
        [(800, "合并利润表"), (700, f"第{n}部分：本期营业收入较上年同期增长，毛利率保持稳定。")]
        for n in (1, 2, 3)
    ]
    doc = parse(draw_pdf(tmp_path / "statement.pdf", pages))
    (section,) = [c for c in doc.chunks if c.kind == "section"]
    assert section.titles == ("合并利润表",) and (section.page_start, section.page_end) == (1, 3)
    assert "合并利润表" not in section.text


def test_bare_page_numbers_are_dropped_even_on_a_single_page(tmp_path):
    body = "保险合同自本公司同意承保且投保人交纳首期保险费时成立。"
    path = draw_pdf(tmp_path / "one.pdf", [[(700, body), (40, "- 12 -")]])
    assert [c.text for c in parse(path).chunks if c.kind == "text"] == [body]


# ---- fonts pdfminer cannot decode ---------------------------------------------------------------


def test_font_pdfminer_misreads_is_read_through_pdfium(tmp_path):
    """reportlab's MSung-Light (UniCNS-UCS2-H) comes out of pdfminer as the wrong characters."""
    path = draw_pdf(
        tmp_path / "policy.pdf",
        [[(760, "第一條 保險契約的構成"), (740, "本保險單條款均為本保險契約的構成部分。")]],
        font="MSung-Light",
    )
    with pdfplumber.open(path) as pdf:
        assert "保險契約" not in pdf.pages[0].extract_text()
    doc = parse(path)
    assert [(c.titles, c.text) for c in doc.chunks if c.kind == "text"] == [
        (("第一條 保險契約的構成",), "本保險單條款均為本保險契約的構成部分。")
    ]
    assert doc.warnings == []  # pdfium read the page's characters: pdfminer never did


def test_font_pdfminer_misreads_on_a_page_left_to_pdfminer_is_read_through_pdfium(tmp_path):
    """Rotated text sends the page to pdfminer (parser/pdfium_page.py), whose characters are then checked."""
    pdfmetrics.registerFont(UnicodeCIDFont("MSung-Light"))
    path = tmp_path / "policy.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setFont("MSung-Light", 11)
    pdf.drawString(72, 760, "第一條 保險契約的構成")
    pdf.drawString(72, 740, "本保險單條款均為本保險契約的構成部分。")
    pdf.rotate(90)
    pdf.drawString(300, -30, "保險")  # a margin note set sideways
    pdf.save()
    doc = parse(path)
    assert [(c.titles, c.text) for c in doc.chunks if c.kind == "text"][0] == (
        ("第一條 保險契約的構成",),
        "本保險單條款均為本保險契約的構成部分。",
    )
    assert doc.warnings == ["page 1: pdfminer misread the fonts; text taken from pdfium, tables skipped"]


# ---- tables ---------------------------------------------------------------------------------------


def test_ruled_table_leaves_the_text_and_becomes_facts_under_its_headings(tmp_path):
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    style = ParagraphStyle("zh", fontName="STSong-Light", fontSize=11, leading=16)
    grid = Table(
        [
            ["项目", "2022年12月31日", "2021年12月31日"],
            ["货币资金", "1,234,567.89", "987,654.32"],
            ["存货", "55,000.00", "44,000.00"],
        ]
    )
    grid.setStyle(
        TableStyle(
            [("FONTNAME", (0, 0), (-1, -1), "STSong-Light"), ("GRID", (0, 0), (-1, -1), 0.5, colors.black)]
        )
    )
    path = tmp_path / "statement.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(
        [
            Paragraph("第十节 财务报告", style),
            Paragraph("合并资产负债表", style),
            Paragraph("编制单位：示例科技股份有限公司。", style),
            grid,
            Paragraph("公司负责人：张明。", style),
        ]
    )

    doc = parse(path)
    assert doc.tables == 1
    assert doc.table_list[0].titles == ("第十节 财务报告", "合并资产负债表")
    text_chunks = [c for c in doc.chunks if c.kind == "text"]
    assert not any("1,234,567.89" in c.text or "货币资金" in c.text for c in text_chunks)
    assert any(c.text.endswith("示例科技股份有限公司。公司负责人：张明。") for c in text_chunks)
    cash = [f for f in doc.facts if f.field == "货币资金"]
    assert {f.value for f in cash} == {"1234567.89", "987654.32"}
    table_chunks = [c for c in doc.chunks if c.kind == "table"]
    assert table_chunks and table_chunks[0].titles[:2] == ("第十节 财务报告", "合并资产负债表")


def test_lines_and_table_words_are_kept_with_where_they_are_printed(tmp_path):
    from reportlab.lib import colors
    from reportlab.platypus import SimpleDocTemplate, Spacer, Table, TableStyle

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    grid = Table([["项目", "2022年度"], ["研发费用", "241,986,307.90"]])
    grid.setStyle(
        TableStyle(
            [("FONTNAME", (0, 0), (-1, -1), "STSong-Light"), ("GRID", (0, 0), (-1, -1), 0.5, colors.black)]
        )
    )
    path = tmp_path / "layout.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build([Spacer(1, 200), grid])
    table = parse(path).layout
    first_line, second_line = (
        "第一条 本条款适用于全部保险合同的订立与履行。",
        "公司坚持自主创新，持续加大研发投入，累计获得发明专利八十六项。",
    )
    line_path = draw_pdf(tmp_path / "lines.pdf", [[(700, first_line)], [(500, second_line)]])
    lines = parse(line_path).layout

    assert [(b.page, b.kind, b.text) for b in lines] == [(1, "line", first_line), (2, "line", second_line)]
    first = lines[0]  # drawn at x 72, baseline 700 pt up an A4 page (842 pt): its box, from the top, holds it
    assert abs(first.x0 - 72) < 1 and first.top < A4[1] - 700 < first.bottom and first.x1 > first.x0 + 50
    cells = {b.text: b for b in table if b.kind == "cell"}
    assert set(cells) == {"项目", "2022年度", "研发费用", "241,986,307.90"}
    amount, label = cells["241,986,307.90"], cells["研发费用"]
    assert label.x1 < amount.x0 and abs(label.top - amount.top) < 1 and cells["2022年度"].bottom < amount.top


# ---- pages without a text layer -----------------------------------------------------------------


def test_scanned_page_without_tesseract_counts_as_no_text(shared_data, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on this PATH
    doc = parse(aicup(shared_data, "finance/226.pdf"))
    assert (doc.pages, doc.ocr_pages, doc.no_text_pages) == (1, 0, 1)
    assert doc.warnings == ["page 1: no text layer (Tesseract not installed)"]
    assert doc.chunks == []


def test_scanned_page_with_ocr_off_is_reported(shared_data):
    doc = parse(aicup(shared_data, "finance/226.pdf"), ParseSettings(ocr=False))
    assert doc.no_text_pages == 1 and doc.warnings == ["page 1: no text layer (OCR is off)"]


def test_text_layer_without_unicode_counts_as_no_text_layer(shared_data):
    """finance/40 prints as "(cid:2292)…" in pdfminer and as stray Thai/Arabic letters in pdfium."""
    doc = parse(aicup(shared_data, "finance/40.pdf"), ParseSettings(ocr=False))
    assert doc.no_text_pages == 1
    assert doc.warnings == [
        "page 1: text layer has no readable Unicode",
        "page 1: no text layer (OCR is off)",
    ]


# ---- files that are not readable PDFs -----------------------------------------------------------


def test_zero_byte_file_is_an_input_error_naming_it(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty file") as error:
        parse(path)
    assert str(error.value).startswith(f"{path}: ")


def test_file_that_is_not_a_pdf_is_an_input_error(tmp_path):
    path = tmp_path / "notes.pdf"
    path.write_text("第一節 總則\n這不是 PDF。\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"not a PDF") as error:
        parse(path)
    assert str(error.value).startswith(f"{path}: ")


def test_truncated_pdf_is_an_input_error(shared_data, tmp_path):
    data = aicup(shared_data, "finance/359.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="truncated") as error:
        parse(path)
    assert str(error.value).startswith(f"{path}: ")


def test_password_protected_pdf_is_an_input_error(tmp_path):
    from reportlab.lib.pdfencrypt import StandardEncryption

    path = draw_pdf(tmp_path / "locked.pdf", [[(700, "機密文件。")]], encrypt=StandardEncryption("secret"))
    with pytest.raises(InputError, match="encrypted: the PDF needs a password") as error:
        parse(path)
    assert str(error.value).startswith(f"{path}: ")


def test_pdf_encrypted_with_an_empty_user_password_is_read(tmp_path):
    from reportlab.lib.pdfencrypt import StandardEncryption

    path = tmp_path / "owner.pdf"
    pdf = canvas.Canvas(str(path), encrypt=StandardEncryption("", ownerPassword="owner", canPrint=0))
    pdf.setFont("Helvetica", 11)
    pdf.drawString(72, 700, "Printing of this policy document is restricted by its owner.")
    pdf.save()
    assert [c.text for c in parse(path).chunks if c.kind == "text"] == [
        "Printing of this policy document is restricted by its owner."
    ]


def test_a_table_atop_its_page_is_titled_by_its_statement_not_by_the_running_header(tmp_path):
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    style = ParagraphStyle("zh", fontName="STSong-Light", fontSize=11, leading=16)

    def header(pdf, _):
        pdf.setFont("STSong-Light", 9)
        pdf.drawString(72, A4[1] - 40, "示例科技股份有限公司 2022年年度报告")

    def grid(rows):
        table = Table(rows)
        table.setStyle(
            TableStyle(
                [
                    ("FONTNAME", (0, 0), (-1, -1), "STSong-Light"),
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ]
            )
        )
        return table

    path = tmp_path / "report.pdf"
    SimpleDocTemplate(str(path), pagesize=A4, topMargin=52).build(
        [
            Paragraph("第二节 公司简介", style),
            Paragraph("公司是一家示例企业。", style),
            PageBreak(),
            Paragraph("合并利润表", style),
            Paragraph("单位：元", style),
            grid([["项目", "2022年度"], ["营业收入", "2,345,678.90"]]),
            PageBreak(),
            grid([["项目", "2022年度"], ["营业成本", "1,456,789.01"], ["研发费用", "241,986.30"]]),
            PageBreak(),
            Paragraph("其他信息", style),
        ],
        onFirstPage=header,
        onLaterPages=header,
    )

    doc = parse(path)
    assert [t.title for t in doc.table_list] == ["合并利润表", "合并利润表"]


@pytest.mark.parametrize(
    "words",
    [
        ["التقرير", "السنوي", "للشركة", "الإيرادات", "ارتفعت", "بنسبة", "عشرة", "في", "المائة"],
        ["הדוח", "השנתי", "של", "החברה", "ההכנסות", "עלו", "בעשרה", "אחוזים", "השנה"],
    ],
    ids=["arabic", "hebrew"],
)
def test_a_real_right_to_left_text_layer_is_kept_not_sent_to_ocr(tmp_path, words):
    from reportlab.pdfbase.ttfonts import TTFont

    font = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    if not font.exists():
        pytest.skip("DejaVu Sans (Arabic and Hebrew glyphs) is not installed")
    pdfmetrics.registerFont(TTFont("DejaVuSans", str(font)))
    sentence = " ".join(words)
    # Drawn as a right-to-left producer writes it: glyphs left to right on the page, so the last letter first.
    path = draw_pdf(
        tmp_path / "rtl.pdf", [[(780 - 20 * n, sentence[::-1]) for n in range(6)]], font="DejaVuSans"
    )
    doc = parse(path)
    assert not any("OCR" in w or "no readable Unicode" in w for w in doc.warnings), doc.warnings
    assert doc.warnings == ["page 1: right-to-left text, taken from pdfium as written (tables skipped)"]
    assert sentence in " ".join(c.text for c in doc.chunks)
