"""OCR of pages without a text layer: a real scanned aicup finance page through Tesseract."""

from __future__ import annotations

import re
import shutil

import pdfplumber
import pytest

from core.errors import InputError
from core.records import DocumentMeta
from parser.ocr import PageOcr, clean_ocr_line, render_page
from parser.pdf import parse_pdf
from parser.settings import ParseSettings

# finance/226 is a scanned income statement: its only page has no text layer.
SCANNED = ("aicup", "reference", "finance", "226.pdf")
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-chi-tra; "
    "docker/install-system-deps.sh does it)",
)


@pytest.fixture(scope="module")
def scanned(shared_data):
    path = shared_data.joinpath(*SCANNED)
    with pdfplumber.open(path) as pdf:
        assert len(pdf.pages) == 1 and len(pdf.pages[0].chars) < ParseSettings().min_text_chars
    return path


def test_page_is_rendered_at_the_requested_resolution(scanned):
    image = render_page(scanned, 0, dpi=100)
    with pdfplumber.open(scanned) as pdf:
        width = float(pdf.pages[0].width)
    assert abs(image.width - width * 100 / 72) <= 1


@needs_tesseract
def test_scanned_statement_page_is_read_by_ocr(scanned):
    settings = ParseSettings(ocr_languages="chi_tra")
    doc = parse_pdf(scanned, DocumentMeta("finance/226"), settings)
    assert (doc.pages, doc.ocr_pages, doc.no_text_pages) == (1, 1, 0)
    text = "".join(c.text for c in doc.chunks)
    found = [
        word for word in ("營業收入", "營業成本", "營業毛利", "營業外收入及支出", "稅前淨利") if word in text
    ]
    assert len(found) >= 3, text[:500]
    assert not re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", text)  # Tesseract's gaps between CJK closed


@needs_tesseract
def test_missing_language_pack_is_named():
    ocr = PageOcr(ParseSettings(ocr_languages="chi_tra+xx_nonexistent"))
    assert ocr.missing == "Tesseract language pack xx_nonexistent not installed"


def test_missing_tesseract_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert PageOcr(ParseSettings()).missing == "Tesseract not installed"


@pytest.mark.parametrize("languages", ["chi_tra; rm -rf /", "", "chi_tra++"])
def test_language_setting_must_be_tesseract_codes(languages):
    with pytest.raises(InputError, match="ocr_languages"):
        PageOcr(ParseSettings(ocr_languages=languages))


def test_ocr_gaps_between_cjk_characters_and_in_digit_groups_are_closed():
    assert (
        clean_ocr_line("  營 業 收 入 ( 附 註 三 四 )  $ 30, 795, 422   100 ")
        == "營業收入 ( 附註三四 )  $ 30,795,422   100"
    )
    assert clean_ocr_line("Hon Hai, 2023 年") == "Hon Hai, 2023 年"
