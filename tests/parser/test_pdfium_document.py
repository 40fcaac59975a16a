"""parser/pdfium_document.py: a page read for the cover is the page the parser reads, loaded once."""

from __future__ import annotations

import pdfplumber
import pypdfium2

from core.records import DocumentMeta
from parser.metadata import cover_text
from parser.pdf import parse_pdf
from parser.pdfium_document import PdfiumDocument
from parser.settings import ParseSettings


def test_a_page_read_for_its_text_is_kept_loaded_and_read_from_the_same_page_object(shared_data, monkeypatch):
    path = shared_data / "aicup" / "reference" / "insurance" / "10.pdf"
    loads = []
    real_get_page = pypdfium2.PdfDocument.get_page
    monkeypatch.setattr(
        pypdfium2.PdfDocument, "get_page", lambda self, i: loads.append(i) or real_get_page(self, i)
    )
    with PdfiumDocument(path) as document, pdfplumber.open(path) as pdf:
        text = document.page_text(0)
        fast = document.read(pdf.pages[0])
        assert document.page_text(0) == text  # recorded, not loaded again
    assert loads == [0]
    with PdfiumDocument(path) as alone, pdfplumber.open(path) as pdf:
        assert alone.read(pdf.pages[0]).chars == fast.chars
        assert alone.texts[0] == text


def test_the_cover_read_through_the_parsers_document_gives_the_same_cover_and_parse(shared_data):
    path = shared_data / "aicup" / "reference" / "finance" / "439.pdf"
    meta, settings = DocumentMeta("finance/439"), ParseSettings(ocr=False)
    alone = parse_pdf(path, meta, settings)
    with PdfiumDocument(path) as document:
        cover = cover_text(path, 3000, document)
        shared = parse_pdf(path, meta, settings, pdfium=document)
    assert cover == cover_text(path, 3000) and len(cover) >= 200
    assert [c.text for c in shared.chunks] == [c.text for c in alone.chunks]
    assert shared.page_texts == alone.page_texts and len(shared.layout) == len(alone.layout)


def test_a_file_pdfium_cannot_open_has_no_pages_and_no_text(tmp_path):
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(b"%PDF-1.4\nnot a pdf at all")
    with PdfiumDocument(damaged) as document:
        assert len(document) == 0
        assert document.page_text(0) is None
    assert cover_text(damaged) == ""
