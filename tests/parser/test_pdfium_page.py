"""Pages pdfium reads in pdfminer's stead give pdfplumber's characters, lines and unruled tables, on real reports."""

from __future__ import annotations

import pdfplumber
import pypdfium2
import pytest
from pdfplumber.utils import filter_edges

from core.records import DocumentMeta, ParsedDocument, Table
from parser.pdf import PdfParser
from parser.pdfium_page import _ARRAY_READ, EDGE_MIN_LENGTH, _objects, _segment, path_segments, read_page
from parser.plumber import fast_chars
from parser.settings import ParseSettings

KEYS = ("x0", "x1", "top", "bottom")


def pdfium_page(path, plumber_page):
    with pypdfium2.PdfDocument(str(path)) as document:
        page = document[plumber_page.page_number - 1]
        textpage = page.get_textpage()
        try:
            return read_page(page, textpage, plumber_page)
        finally:
            textpage.close()
            page.close()


def items(page) -> list:
    return [
        (item.frame.to_dict("split"), item.title, item.unit)
        if isinstance(item, Table)
        else (item.text, item.edge)
        for item in page.items
    ]


def bank_report(shared_data):
    [report] = (shared_data / "annual-cn" / "reports").glob("*000001*.pdf")
    return report


def test_characters_equal_pdfminers_without_its_spaces(shared_data):
    report = bank_report(shared_data)
    with pdfplumber.open(report) as pdf:
        for index in (5, 122):  # the chairman's letter; the balance sheet drawn without rules
            page = pdf.pages[index]
            fast = pdfium_page(report, page)
            theirs = [c for c in fast_chars(page).chars if c["text"] != " "]
            assert fast is not None and len(fast.chars) == len(theirs)
            for ours, char in zip(
                sorted(fast.chars, key=lambda c: (c["top"], c["x0"])),
                sorted(theirs, key=lambda c: (c["top"], c["x0"])),
            ):
                assert ours["text"] == char["text"]
                assert all(abs(ours[key] - char[key]) < 0.2 for key in KEYS), (ours, char)


def finder_edges(edges: list[dict]) -> list[dict]:
    """The edges pdfplumber's table finder reads, in page order (its `get_edges` filter)."""
    kept = {
        id(edge)
        for orientation in ("v", "h")
        for edge in filter_edges(edges, orientation, min_length=EDGE_MIN_LENGTH)
    }
    return [edge for edge in edges if id(edge) in kept]


def assert_same_edges(path, index: int) -> None:
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[index]
        fast = pdfium_page(path, page)
        theirs = finder_edges(fast_chars(page).edges)
        assert fast is not None and len(fast.edges) == len(theirs) > 20
        for ours, edge in zip(fast.edges, theirs):
            assert ours["orientation"] == edge["orientation"]
            assert all(abs(ours[key] - edge[key]) < 0.01 for key in (*KEYS, "width", "height")), (ours, edge)


def test_edges_equal_those_of_pdfplumber_its_table_finder_reads(shared_data):
    assert_same_edges(bank_report(shared_data), 8)  # ruled tables


def test_table_finder_settings_that_read_shorter_edges_are_refused(shared_data):
    """The page holds no edge shorter than EDGE_MIN_LENGTH: a finder told to read them would miss some."""
    report = bank_report(shared_data)
    with pdfplumber.open(report) as pdf:
        fast = pdfium_page(report, pdf.pages[8])
    with pytest.raises(ValueError, match="no edge shorter"):
        fast.find_tables({"edge_min_length_prefilter": EDGE_MIN_LENGTH / 2})


def test_edges_drawn_inside_a_form_xobject_equal_pdfplumbers(shared_data):
    """finance/119 draws its whole page, rules included, in a form XObject with a matrix of its own."""
    assert_same_edges(shared_data / "aicup" / "reference" / "finance" / "119.pdf", 0)


def test_lines_and_tables_equal_pdfminers(shared_data):
    report = bank_report(shared_data)
    parser = PdfParser(ParseSettings(ocr=False))
    doc = ParsedDocument(meta=DocumentMeta("bank"))
    with pdfplumber.open(report) as pdf:
        for number in (
            6,
            9,
            123,
            279,
        ):  # prose; ruled tables; a statement and a maturity table set without rules
            page = pdf.pages[number - 1]
            fast = pdfium_page(report, page)
            assert fast is not None
            ours = parser._layout_page(fast, number, fast.chars, doc)
            plumber = fast_chars(page)
            assert items(ours) == items(parser._layout_page(plumber, number, plumber.chars, doc))
            assert (number != 6) == any(isinstance(item, Table) for item in ours.items)


def test_path_segments_read_as_pdfiums_array_equal_its_calls(shared_data):
    """The array read of every path of a ruled page gives what pdfium's segment calls give."""
    report = bank_report(shared_data)
    with pypdfium2.PdfDocument(str(report)) as document:
        page = document[8]
        paths = [obj for obj, kind, _ in _objects(page) if kind == pypdfium2.raw.FPDF_PAGEOBJ_PATH]
        assert len(paths) > 20
        read = [path_segments(obj) for obj in paths]
        assert _ARRAY_READ == [True]  # this pdfium keeps a path's segments in one array
        by_calls = [
            [
                _segment(pypdfium2.raw.FPDFPath_GetPathSegment(obj, i))
                for i in range(pypdfium2.raw.FPDFPath_CountSegments(obj))
            ]
            for obj in paths
        ]
        assert read == by_calls
        page.close()
