"""PDF -> running text lines, tables and chunks, page by page.

For each page (closed right after, so memory stays bounded on long reports),
read by pdfium where it can stand in for pdfminer (parser/pdfium_page.py),
otherwise by pdfplumber: tables come from the tables helper (`parser.tables.find_pdf_tables`), the
characters outside them become lines; a page with fewer than
`min_text_chars` characters has no text layer and is read by OCR
(parser/ocr.py). After the last page, running headers and footers (the same
line, digits folded, at the top or bottom of at least `header_footer_share`
of the pages) and bare page numbers are dropped, lines the layout wrapped
at the right margin are joined, the heading path is set on each table, and
the lines are chunked (parser/chunking.py).

>>> doc = parse_pdf(Path("insurance/10.pdf"), DocumentMeta("insurance/10"), ParseSettings())
>>> doc.pages, doc.chunks[0].titles
(2, ('第十三條 滿期保險金的給付',))
"""

from __future__ import annotations

import collections
import math
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pdfplumber
from pdfplumber.utils.exceptions import PdfminerException

from core.errors import InputError
from core.records import Box, DocumentMeta, Line, ParsedDocument, Table
from core.rulebook import pattern_per_book
from core.sentences import SENTENCE_END, join_text
from core.vocabulary import vocabulary
from parser.chunking import Chunker
from parser.coded_statements import find_coded_tables
from parser.facts import add_tables
from parser.headings import HeadingRules, HeadingStack, canonical_cjk, fold_width
from parser.ocr import PageOcr
from parser.pages_read import page_read
from parser.pdfium_document import PdfiumDocument
from parser.plumber import fast_chars
from parser.settings import ParseSettings
from parser.tables import centre_inside, find_pdf_tables, merge_continued
from parser.unruled import find_unruled_tables, page_words

EDGE_SHARE = 0.15  # a header sits in the top 15% of the page, a footer in the bottom 15%
EDGE_LINES = 3  # ... and among the first / last three lines of the page
GARBLED_AGREEMENT = 0.5  # below this share of characters also found by pdfium, pdfminer misread the fonts
_PAGE_NUMBER = pattern_per_book(
    lambda: re.compile(vocabulary("layout")["page_number"], re.IGNORECASE)
)  # rules/layout.yaml
_DIGITS = re.compile(r"\d+")
_CID = re.compile(r"\(cid:\d+\)")
READABLE_SHARE = 0.7  # below this share of characters in expected scripts, a text layer is unreadable
_RIGHT_TO_LEFT = re.compile(
    "[\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\ufb1d-\ufdff\ufe70-\ufeff]"
)  # Hebrew, Arabic
_EXPECTED_CHARS = (
    "\u0020-\u007e\u00a0-\u00ff\u2000-\u206f\u2100-\u22ff\u2460-\u24ff\u2500-\u25ff"
    "\u3000-\u30ff\u3100-\u312f\u3200-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
_EXPECTED_SCRIPT = re.compile(f"[{_EXPECTED_CHARS}]")
_UNEXPECTED_SCRIPT = re.compile(f"[^{_EXPECTED_CHARS}]")


@dataclass
class _PageLine:
    text: str
    page: int
    top: float | None = None  # None: no geometry (OCR, pdfium text)
    bottom: float | None = None
    x0: float | None = None
    x1: float | None = None
    edge: str = ""  # "top" / "bottom": where a running header or footer could be

    def __post_init__(self):
        self.text = canonical_cjk(self.text)


@dataclass
class _Page:
    number: int
    items: list[_PageLine | Table] = field(default_factory=list)  # reading order
    text_box: tuple[float, float] | None = None  # left and right edge of all the page's characters
    boxes: list[Box] = field(default_factory=list)  # where its lines and table words are (core/layout.py)


def parse_pdf(
    path: Path,
    meta: DocumentMeta,
    settings: ParseSettings,
    rules: HeadingRules | None = None,
    pdfium: PdfiumDocument | None = None,
) -> ParsedDocument:
    """Chunks, tables' facts and page counts of one PDF; InputError when it cannot be opened. `pdfium`: the
    file's pdfium reading, when the caller has read its cover with it (parser/pdfium_document.py)."""
    return PdfParser(settings, rules).run(Path(path), meta, pdfium)


class PdfParser:
    """Reads PDFs with pdfplumber, on pdfium's characters where it can; one instance serves many files."""

    def __init__(self, settings: ParseSettings, rules: HeadingRules | None = None):
        self.settings = settings
        self.rules = rules or HeadingRules.shared()
        self.chunker = Chunker(settings, self.rules)
        self.ocr = PageOcr(settings) if settings.ocr else None

    def run(self, path: Path, meta: DocumentMeta, pdfium: PdfiumDocument | None = None) -> ParsedDocument:
        _check_header(path)
        doc = ParsedDocument(meta=meta)
        pages: list[_Page] = []
        with _open(path) as pdf, pdfium or PdfiumDocument(path) as reference:
            try:
                page_list = pdf.pages
            except Exception as exc:  # pdfminer raises many types on a damaged page tree
                raise InputError(f"damaged PDF, cannot list its pages ({_reason(exc)})", str(path)) from None
            doc.pages = len(page_list)
            for index, page in enumerate(page_list):
                try:
                    pages.append(self._read_page(path, page, index + 1, doc, reference))
                except Exception as exc:  # one broken page must not lose the rest of the document
                    doc.warnings.append(f"page {index + 1}: unreadable ({_reason(exc)})")
                    pages.append(_Page(index + 1))
                finally:
                    page.close()
                    page_read()
            doc.page_texts = [reference.texts.get(index) for index in range(doc.pages)]
        doc.layout = [box for page in pages for box in page.boxes]
        furniture = _drop_headers_footers(pages, self.settings.header_footer_share, self.rules)
        for page in pages:
            _join_wrapped(page)
        tables = merge_continued(self._title_tables(pages, furniture))
        # A table ends the paragraph before it: text on either side is not one sentence.
        lines = [
            Line(item.text, item.page) if isinstance(item, _PageLine) else Line("", item.page)
            for page in pages
            for item in page.items
        ]
        doc.chunks = self.chunker.run(meta, lines)
        add_tables(doc, tables, self.settings.tables)
        return doc

    def _read_page(
        self, path: Path, page, number: int, doc: ParsedDocument, reference: PdfiumDocument
    ) -> _Page:
        fast = reference.read(page)  # most pages: pdfium's characters and edges, without pdfminer
        if fast is not None:
            if self._scanned(fast.chars):
                return self._ocr_page(path, number, doc)
            if readable(c["text"] for c in fast.chars):
                return self._layout_page(fast, number, fast.chars, doc)
        page = fast_chars(page)
        chars = page.chars
        if self._scanned(chars):
            return self._ocr_page(path, number, doc)
        pdfium_text = reference.page_text(number - 1)
        agrees = _agreement(chars, pdfium_text) >= GARBLED_AGREEMENT
        if not (agrees and readable(c["text"] for c in chars)):
            # pdfminer could not map the fonts to Unicode: "(cid:12)" codes or wrong characters
            if not agrees and pdfium_text and readable(pdfium_text):
                doc.warnings.append(
                    f"page {number}: pdfminer misread the fonts; text taken from pdfium, tables skipped"
                )
                return _edges(_Page(number, [_PageLine(t, number) for t in _split_lines(pdfium_text)]))
            if agrees and _right_to_left(pdfium_text):
                # Both readers see the same Arabic or Hebrew words: a real text layer, which OCR with the zh/ja
                # models would turn into noise. pdfium gives it in reading order; pdfplumber's lines would run
                # left to right.
                doc.warnings.append(
                    f"page {number}: right-to-left text, taken from pdfium as written (tables skipped)"
                )
                return _edges(_Page(number, [_PageLine(t, number) for t in _split_lines(pdfium_text)]))
            doc.warnings.append(f"page {number}: text layer has no readable Unicode")
            return self._ocr_page(path, number, doc)
        return self._layout_page(page, number, chars, doc)

    def _scanned(self, chars: list[dict]) -> bool:
        """Fewer than `min_text_chars` visible characters: the page has no text layer to read."""
        return sum(1 for c in chars if not c["text"].isspace()) < self.settings.min_text_chars

    def _layout_page(self, page, number: int, chars: list[dict], doc: ParsedDocument) -> _Page:
        """Tables and the lines of text outside them, top to bottom, edge lines marked."""
        tables = self._find_tables(page, number, doc)
        boxes = [bbox for bbox, _ in tables]
        in_tables: list[dict] = []
        kept: list[dict] = []
        for c in chars:
            (in_tables if any(centre_inside(c, box) for box in boxes) else kept).append(_upright(c))
        items: list[tuple[float, _PageLine | Table]] = []
        if kept:
            textmap = pdfplumber.utils.chars_to_textmap(
                kept, layout_bbox=page.bbox, layout_width=page.width, layout_height=page.height
            )
            for line in textmap.extract_text_lines(strip=True, return_chars=False):
                items.append(
                    (
                        line["top"],
                        _PageLine(line["text"], number, line["top"], line["bottom"], line["x0"], line["x1"]),
                    )
                )
        items += [(bbox[1], table) for bbox, table in tables]
        items.sort(key=lambda pair: pair[0])
        visible = [c for c in chars if not c["text"].isspace()]
        result = _Page(
            number,
            [item for _, item in items],
            text_box=(min(c["x0"] for c in visible), max(c["x1"] for c in visible)),
            boxes=_boxes(number, [item for _, item in items], in_tables),
        )
        height = float(page.height)
        for rank, line in enumerate(_lines(result)):
            if rank < EDGE_LINES and line.top < EDGE_SHARE * height:
                line.edge = "top"
        for rank, line in enumerate(reversed(_lines(result))):
            if rank < EDGE_LINES and line.bottom > (1 - EDGE_SHARE) * height:
                line.edge = line.edge or "bottom"
        return result

    def _find_tables(self, page, number: int, doc: ParsedDocument) -> list[tuple[tuple, Table]]:
        """Ruled tables, then unruled statements in the words outside them (a bank's, then coded ones)."""
        try:
            ruled = list(find_pdf_tables(page, number, self.settings))
        except Exception as exc:  # a table the helper cannot read stays in the running text
            doc.warnings.append(f"page {number}: tables skipped ({_reason(exc)})")
            return []
        words = None  # the page's words, split once for both readers of unruled tables
        try:
            words = page_words(page)
            unruled = find_unruled_tables(
                page, number, [bbox for bbox, _ in ruled], first_id=len(ruled) + 1, words=words
            )
        except Exception as exc:  # the ruled tables still count
            doc.warnings.append(f"page {number}: unruled tables skipped ({_reason(exc)})")
            unruled = []
        try:
            coded = find_coded_tables(
                page,
                number,
                [bbox for bbox, _ in ruled + unruled],
                first_id=len(ruled) + len(unruled) + 1,
                words=words,
            )
        except Exception as exc:  # the other tables still count
            doc.warnings.append(f"page {number}: coded statements skipped ({_reason(exc)})")
            coded = []
        return sorted(ruled + unruled + coded, key=lambda found: found[0][1])

    def _ocr_page(self, path: Path, number: int, doc: ParsedDocument) -> _Page:
        reason = "OCR is off" if self.ocr is None else self.ocr.missing
        if reason:
            doc.no_text_pages += 1
            doc.warnings.append(f"page {number}: no text layer ({reason})")
            return _Page(number)
        if doc.ocr_pages >= self.settings.max_ocr_pages:
            doc.no_text_pages += 1
            if not doc.warnings or not doc.warnings[-1].endswith("(--max-ocr-pages)"):
                doc.warnings.append(
                    f"page {number} on: no text layer, not OCR'd: over the limit of "
                    f"{self.settings.max_ocr_pages} OCR pages per file (--max-ocr-pages)"
                )
            return _Page(number)
        doc.ocr_pages += 1
        try:
            texts = self.ocr.run(path, number - 1)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            doc.no_text_pages += 1
            doc.warnings.append(f"page {number}: no text layer, OCR failed ({_reason(exc)})")
            return _Page(number)
        if not texts:
            doc.no_text_pages += 1
            doc.warnings.append(f"page {number}: no text layer, OCR found no text")
        return _edges(_Page(number, [_PageLine(text, number) for text in texts]))

    def _title_tables(self, pages: list[_Page], furniture: set[str]) -> list[Table]:
        """Give each table the heading path above it (unless the tables helper set one). A caption that is the
        page's running header (a table atop its page: "2024年年度报告") is no title: the heading is."""
        stack = HeadingStack()
        tables = []
        for page in pages:
            for item in page.items:
                if isinstance(item, Table):
                    if item.title and _furniture_key(item.title) in furniture:
                        item.title = ""
                    if not item.titles:
                        item.titles = stack.path
                    if not item.title and stack.path:
                        item.title = stack.path[-1]
                    tables.append(item)
                elif (level := self.rules.level(item.text)) is not None:
                    stack.push(level, item.text)
        return tables


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as handle:
            head = handle.read(1024)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    if not head:
        raise InputError("empty file (0 bytes), not a PDF", str(path))
    if b"%PDF-" not in head:
        raise InputError("not a PDF (no %PDF- header)", str(path))


def _open(path: Path):
    try:
        return pdfplumber.open(path)
    except PdfminerException as exc:
        inner = exc.args[0] if exc.args else exc
        name = type(inner).__name__
        if name == "PDFPasswordIncorrect":
            raise InputError("encrypted: the PDF needs a password to open", str(path)) from None
        if name in ("PDFEncryptionError", "PDFEncryptionWarning"):
            raise InputError(f"encrypted with an unsupported method ({_reason(inner)})", str(path)) from None
        if name in ("PSEOF", "PSEOFError"):
            raise InputError("truncated or damaged: unexpected end of file", str(path)) from None
        raise InputError(f"damaged PDF ({_reason(inner)})", str(path)) from None
    except Exception as exc:  # pdfminer raises assorted types (KeyError, ValueError ...) on damaged files
        raise InputError(f"damaged PDF ({_reason(exc)})", str(path)) from None


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text and text[0] else type(exc).__name__


def _agreement(chars: list[dict], reference: str | None) -> float:
    """Share of pdfplumber's characters that pdfium also reads on the page."""
    if reference is None:
        return 1.0
    ours = collections.Counter(c["text"] for c in chars if not c["text"].isspace())
    theirs = collections.Counter(ch for ch in reference if not ch.isspace())
    total = sum(ours.values())
    return sum((ours & theirs).values()) / total if total else 1.0


def readable(texts) -> bool:
    """Whether most characters are in the scripts of Chinese, Japanese and English reports.

    Fonts without a Unicode map come out as "(cid:123)" from pdfminer and as
    stray Arabic, Thai or Cyrillic letters from pdfium.
    """
    # one string and two C-level passes (a page has thousands of characters): split() drops what isspace() is
    visible = "".join("".join("\ufffd" if _CID.fullmatch(text) else text for text in texts).split())
    total = len(visible)
    good = total - len(_UNEXPECTED_SCRIPT.findall(visible))
    return total > 0 and good >= READABLE_SHARE * total


def _boxes(number: int, items: list[_PageLine | Table], table_chars: list[dict]) -> list[Box]:
    """The page's text lines and its tables' words with where they are printed, recorded as read (before
    running headers are dropped and wrapped lines joined) so that a highlight finds any line it shows."""
    boxes = [
        Box(number, "line", item.text, item.x0, item.top, item.x1, item.bottom)
        for item in items
        if isinstance(item, _PageLine)
    ]
    # a table's words stand for its cells: a label or an amount is one word; unruled statements have no cells
    words = pdfplumber.utils.extract_words(table_chars) if table_chars else []
    return boxes + [Box(number, "cell", w["text"], w["x0"], w["top"], w["x1"], w["bottom"]) for w in words]


def _right_to_left(text: str) -> bool:
    """Whether a text layer is in a right-to-left script (Arabic, Hebrew): most of its letters in that script,
    the rest in the expected ones (digits, punctuation), and written as words. A font without a Unicode map
    gives stray letters of several scripts instead (see readable)."""
    right = other = total = 0
    for ch in text:
        if not ch.isspace():
            total += 1
            right += bool(_RIGHT_TO_LEFT.match(ch))
            other += not _RIGHT_TO_LEFT.match(ch) and not _EXPECTED_SCRIPT.match(ch)
    words = len(text.split())
    return total > 0 and right >= READABLE_SHARE * total and other <= 0.02 * total and words * 15 >= total


def _split_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _upright(char: dict) -> dict:
    """Count a character as upright when its matrix is upright up to rounding noise.

    pdfminer calls a char upright only when b*c <= 0 exactly; some producers write
    b, c of 1e-7, and pdfplumber then sets those lines apart as vertical text.
    """
    if char["upright"]:
        return char
    a, b, c, d, _, _ = char["matrix"]
    if a * d > 0 and abs(b) < 1e-3 * abs(a) and abs(c) < 1e-3 * abs(d):
        return {**char, "upright": True}
    return char


def _lines(page: _Page) -> list[_PageLine]:
    return [item for item in page.items if isinstance(item, _PageLine)]


def _edges(page: _Page) -> _Page:
    """Header/footer candidates of a page without geometry: its first and last lines."""
    lines = _lines(page)
    for line in lines[:EDGE_LINES]:
        line.edge = "top"
    for line in lines[-EDGE_LINES:]:
        line.edge = line.edge or "bottom"
    return page


def _furniture_key(text: str) -> str:
    return _DIGITS.sub("0", re.sub(r"\s+", "", fold_width(text)))


def _drop_headers_footers(pages: list[_Page], share: float, rules: HeadingRules) -> set[str]:
    """Drop bare page numbers at the edges, and edge lines repeated on `share` of the pages; the dropped
    lines' keys (_furniture_key) are returned.

    A repeated heading (a statement title atop each page it runs over) is kept
    where it first appears, so the pages after it stay in its section.
    """
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    for page in pages:
        counts.update({(line.edge, _furniture_key(line.text)) for line in _lines(page) if line.edge})
    needed = max(2, math.ceil(share * len(pages)))
    repeated = {key for key, count in counts.items() if count >= needed} if len(pages) >= 2 else set()
    seen: set[tuple[str, str]] = set()
    running: set[str] = set()  # the repeated lines that are no heading: running headers and footers

    def furniture(line: _PageLine) -> bool:
        if _PAGE_NUMBER.match(line.text.strip()):
            return True
        key = (line.edge, _furniture_key(line.text))
        if key not in repeated:
            return False
        first = key not in seen
        seen.add(key)
        if rules.level(line.text) is not None:
            return not first
        running.add(key[1])
        return True

    for page in pages:
        page.items = [
            item for item in page.items if not (isinstance(item, _PageLine) and item.edge and furniture(item))
        ]
    return running


def _join_wrapped(page: _Page) -> None:
    """Join a line that runs to the right margin with the next: the layout wrapped it.

    A wrapped line spans most of the page's text box (all its characters,
    tables included) and ends within one character of its right edge; a line
    ending a sentence is left alone.
    """
    if page.text_box is None:
        return
    left, right = page.text_box
    joined: list[_PageLine | Table] = []
    for item in page.items:
        previous = joined[-1] if joined else None
        if (
            isinstance(item, _PageLine)
            and isinstance(previous, _PageLine)
            and previous.x1 is not None
            and item.x1 is not None
            and _wraps(previous, item, left, right)
        ):
            previous.text = join_text(previous.text, item.text)
            previous.x1, previous.bottom = item.x1, item.bottom
        else:
            joined.append(item)
    page.items = joined


def _wraps(line: _PageLine, following: _PageLine, left: float, right: float) -> bool:
    size = line.bottom - line.top
    return (
        line.x1 >= right - 0.8 * size
        and line.x1 - line.x0 >= 0.6 * (right - left)
        and following.top - line.bottom < 1.5 * size
        and line.text.rstrip()[-1:] not in SENTENCE_END.value()
    )
