"""A document's pages for identity: the PDF text layer, reused where the parser read it, chunks elsewhere."""

from __future__ import annotations

from core.records import Chunk
from parser.page_texts import document_pages, pdf_page_texts


def test_chunks_stand_in_for_pages_without_a_text_layer(tmp_path):
    chunks = [
        Chunk("x#text0", "x", "中國鋼鐵股份有限公司及子公司", page_start=1),
        Chunk("x#section0", "x", "repeated", page_start=1, kind="section"),
        Chunk("x#text1", "x", "民國111年1月1日至3月31日", page_start=2),
    ]
    assert document_pages(tmp_path / "x.txt", chunks, 10) == [
        "中國鋼鐵股份有限公司及子公司",
        "民國111年1月1日至3月31日",
    ]


def test_page_texts_the_pdf_parser_read_are_reused_not_read_again(shared_data):
    from core.records import DocumentMeta
    from parser.pdf import parse_pdf
    from parser.settings import ParseSettings

    path = shared_data / "aicup" / "reference" / "finance" / "22.pdf"
    document = parse_pdf(path, DocumentMeta("finance/22"), ParseSettings(ocr=False))
    assert document.page_texts and None not in document.page_texts
    assert pdf_page_texts(path, 50, document.page_texts) == pdf_page_texts(path, 50)
    given = ["given", *[None] * (len(document.page_texts) - 1)]
    assert pdf_page_texts(path, 50, given) == ["given", *pdf_page_texts(path, 50)[1:]]
