"""The ingest bench's aicup-text set: the AI CUP PDFs that need no OCR."""

from __future__ import annotations

from eval.bench.ingest import _text_layer_on_every_page


def test_a_pdf_with_a_scanned_page_is_not_in_the_text_layer_set(shared_data):
    reference = shared_data / "aicup" / "reference"
    assert _text_layer_on_every_page(reference / "insurance" / "10.pdf")
    assert _text_layer_on_every_page(reference / "finance" / "439.pdf")  # twenty pages of notes
    assert not _text_layer_on_every_page(reference / "finance" / "226.pdf")  # a scanned excerpt


def test_a_pdf_whose_text_layer_the_parser_cannot_read_is_not_in_the_text_layer_set(shared_data):
    # finance/40: a text layer of fonts without a Unicode map, which the parser OCRs (parser/pdf.py readable)
    assert not _text_layer_on_every_page(shared_data / "aicup" / "reference" / "finance" / "40.pdf")
