"""A document's text page by page, as the identity finder reads it (core/identity.py): a PDF's own text layer.

The chunks leave out running headers and footers, yet those often are the only place an excerpt names its
company, so identity reads the PDF's text layer (pdfium) and falls back to the chunks' text on pages without one
(OCR) and for other documents. Texts the parser already read with pdfium are reused, not read again.

>>> from core.records import Chunk
>>> document_pages(Path("x.txt"), [Chunk("x#text0", "x", "中國鋼鐵股份有限公司", page_start=1)], 10)
['中國鋼鐵股份有限公司']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path


def pdf_page_texts(path: Path, limit: int, known: Sequence[str | None] = ()) -> list[str]:
    """The text layer of each page (pdfium, with running headers kept), at most `limit` pages; [] if unreadable.

    `known` holds the texts the parser already read with pdfium (None where it did not): only the others are read.
    """
    if len(known) >= limit and all(text is not None for text in known[:limit]):
        return list(known[:limit])
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(str(path))
    except Exception:  # noqa: BLE001 - the parser reports why a PDF cannot be read
        return []
    try:
        pages = []
        for index in range(min(len(document), limit)):
            if index < len(known) and known[index] is not None:
                pages.append(known[index])
                continue
            page = document[index]
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return pages
    finally:
        document.close()


def document_pages(path: Path, chunks, limit: int, known: Sequence[str | None] = ()) -> list[str]:
    """A parsed document's text page by page, for identity: a PDF's own text layer (running headers
    and footers included, which the chunks leave out; `known`: the pages' texts the parser read), with
    the chunks' text (OCR) on pages without one; other documents as their chunks' text."""
    by_page: dict[int, list[str]] = defaultdict(list)
    for chunk in chunks:
        if chunk.kind != "section":  # a section repeats its text chunks
            by_page[chunk.page_start].append(chunk.text)
    pages = pdf_page_texts(path, limit, known) if path.suffix.lower() == ".pdf" else []
    if not pages:
        return ["\n".join(by_page[number]) for number in sorted(by_page)][:limit]
    return [
        text if len(text.strip()) >= 20 else "\n".join(by_page.get(number, []))
        for number, text in enumerate(pages, start=1)
    ]
