"""One pdfium reading of a PDF, shared by the cover reading (parser/metadata.py) and the parser (parser/pdf.py).

Loading a page (parsing its content stream) and building its text page is
most of what pdfium costs: 40-90 ms a page on the AI CUP excerpts, whose
CJK fonts have no simple Unicode map. The metadata finder reads the first
pages' text for the cover right before the parser reads every page, and a
page loaded again costs as much as the first time, so on those files (1.5
pages each) every page was loaded about twice. A `PdfiumDocument` keeps the
pages its `page_text` loads until the parser's `read` takes them: each page
is loaded once per file.

>>> with PdfiumDocument(Path("insurance/10.pdf")) as document:
...     cover = document.page_text(0)  # the page stays loaded ...
...     fast = document.read(plumber_page)  # ... for the parser's reading of it (parser/pdfium_page.py)
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2

from parser.pdfium_page import PdfiumPage, read_page


class PdfiumDocument:
    """pdfium's reading of each page of one PDF: its text (the reference that exposes fonts pdfminer decodes
    wrongly, and the cover's text), and its characters and edges where they can stand in for pdfminer's."""

    def __init__(self, path: Path):
        self.path = path
        self._document = None
        self.texts: dict[int, str] = {}  # by page index, the pages read so far
        self._kept: dict[int, tuple] = {}  # page index -> (page, text page) loaded by page_text, not read yet

    def __enter__(self) -> PdfiumDocument:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for page, textpage in self._kept.values():
            textpage.close()
            page.close()
        self._kept.clear()
        if self._document is not None:
            self._document.close()
            self._document = None

    def __len__(self) -> int:
        """The page count; 0 when pdfium cannot open the file."""
        try:
            return len(self._opened())
        except pypdfium2.PdfiumError:
            return 0

    def _opened(self) -> pypdfium2.PdfDocument:
        if self._document is None:
            self._document = pypdfium2.PdfDocument(str(self.path))
        return self._document

    def page_text(self, index: int) -> str | None:
        """The page's text, or None when pdfium cannot read the file (pdfplumber's text then stands); a page
        loaded for it stays loaded until `read` takes it."""
        if index not in self.texts:
            loaded = self._load(index)
            if loaded is not None:
                self._kept[index] = loaded
        return self.texts.get(index)

    def read(self, plumber_page) -> PdfiumPage | None:
        """The page's characters when pdfium can stand in for pdfminer on it (`read_page`); its text either way."""
        index = plumber_page.page_number - 1
        loaded = self._kept.pop(index, None) or self._load(index)
        if loaded is None:
            return None
        page, textpage = loaded
        try:
            return read_page(page, textpage, plumber_page)
        except pypdfium2.PdfiumError:
            return None
        finally:
            textpage.close()
            page.close()

    def _load(self, index: int) -> tuple | None:
        """The page and its text page, its text recorded; None when pdfium cannot read them."""
        try:
            page = self._opened()[index]
            textpage = page.get_textpage()
            try:
                self.texts[index] = textpage.get_text_range()
            except pypdfium2.PdfiumError:
                textpage.close()
                page.close()
                raise
            return page, textpage
        except pypdfium2.PdfiumError:
            return None
