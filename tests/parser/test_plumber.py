"""Character and rectangle dicts built by parser/plumber.py equal pdfplumber's own, on real report pages."""

from __future__ import annotations

import pdfplumber

from parser.plumber import fast_chars


def both(path, index: int) -> tuple[dict, dict]:
    """pdfplumber's objects of a page, and ours, from one pdfminer layout of it."""
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[index]
        theirs = page.parse_objects()
        return fast_chars(page).parse_objects(), theirs


def assert_same(ours: dict, theirs: dict) -> None:
    assert ours.keys() == theirs.keys()
    for kind in ours:
        assert ours[kind] == theirs[kind], kind
        assert [list(o) for o in ours[kind]] == [list(o) for o in theirs[kind]], f"{kind}: key order"


def test_statement_page_objects_equal_pdfplumbers(shared_data):
    # A ruled statement page: characters, hundreds of rectangles, an image.
    ours, theirs = both(shared_data / "aicup" / "reference" / "finance" / "742.pdf", 0)
    assert {"char", "rect"} <= ours.keys()
    assert_same(ours, theirs)


def test_annual_report_pages_objects_equal_pdfplumbers(shared_data):
    [report] = (shared_data / "annual-cn" / "reports").glob("*000001*.pdf")
    for index in (0, 122, 123):  # the cover, the bank's balance sheet drawn without rules
        assert_same(*both(report, index))
