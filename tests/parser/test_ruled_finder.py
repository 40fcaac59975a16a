"""The indexed cell search finds pdfplumber's cells, in pdfplumber's order, on real ruled pages."""

from __future__ import annotations

import pdfplumber
import pypdfium2
from pdfplumber.table import TableFinder, TableSettings, intersections_to_cells

from parser.pdfium_page import read_page
from parser.plumber import fast_chars
from parser.ruled_finder import ruled_cells
from parser.tables import PDF_TABLE_SETTINGS


def crossings(page) -> dict:
    return TableFinder(page, TableSettings.resolve(PDF_TABLE_SETTINGS)).intersections


def test_cells_equal_pdfplumbers_on_a_reports_ruled_pages(shared_data):
    [report] = (shared_data / "annual-cn" / "reports").glob("*000001*.pdf")
    compared = 0
    with pdfplumber.open(report) as pdf:
        for index in range(0, 60, 3):  # statement tables, merged header cells, pages without rules
            page = fast_chars(pdf.pages[index])
            points = crossings(page)
            assert ruled_cells(points) == intersections_to_cells(points)
            compared += len(points)
            page.close()
    assert compared > 1000


def test_a_pdfium_pages_tables_equal_those_pdfplumbers_finder_gives(shared_data):
    """The page parser/pdf.py reads (pdfium's characters and edges) gets pdfplumber's tables, cell for cell."""
    [report] = (shared_data / "annual-cn" / "reports").glob("*000001*.pdf")
    with pdfplumber.open(report) as pdf, pypdfium2.PdfDocument(str(report)) as document:
        plumber_page = pdf.pages[8]  # ruled tables
        page, textpage = document[8], document[8].get_textpage()
        fast = read_page(page, textpage, plumber_page)
        settings = TableSettings.resolve(PDF_TABLE_SETTINGS)
        ours = fast.find_tables(PDF_TABLE_SETTINGS)
        theirs = TableFinder(fast, settings).tables
        assert ours and [t.cells for t in ours] == [t.cells for t in theirs]
        assert [t.extract() for t in ours] == [t.extract() for t in theirs]


def test_crossings_without_a_closed_cell_give_none():
    """Two rules that cross once close no cell; a grid of two by two closes one."""
    v = {"x0": 10.0, "x1": 10.0, "top": 0.0, "bottom": 20.0, "orientation": "v"}
    h = {"x0": 0.0, "x1": 20.0, "top": 10.0, "bottom": 10.0, "orientation": "h"}
    assert ruled_cells({(10.0, 10.0): {"v": [v], "h": [h]}}) == []
    left = {"x0": 0.0, "x1": 0.0, "top": 0.0, "bottom": 10.0, "orientation": "v"}
    right = {**left, "x0": 10.0, "x1": 10.0}
    top = {"x0": 0.0, "x1": 10.0, "top": 0.0, "bottom": 0.0, "orientation": "h"}
    bottom = {**top, "top": 10.0, "bottom": 10.0}
    grid = {
        (0.0, 0.0): {"v": [left], "h": [top]},
        (10.0, 0.0): {"v": [right], "h": [top]},
        (0.0, 10.0): {"v": [left], "h": [bottom]},
        (10.0, 10.0): {"v": [right], "h": [bottom]},
    }
    assert ruled_cells(grid) == intersections_to_cells(grid) == [(0.0, 0.0, 10.0, 10.0)]
