"""HTML reports (Japanese securities reports, 有価証券報告書) -> text chunks, tables and facts.

Headings come from the markup (h1-h6, or the level an EDINET heading class names: smt_head3 is level 4 on a
paragraph too, style_lv7 level 7; rules/layout.yaml `heading_classes`), so
the chunker gets `Line.heading_level` set. A heading or a table's caption that
opens the next item of the innermost heading's numbering (ⅱ after ⅰ, ロ after
イ, (3) after (2): rules/layout.yaml `item_mark`, `numberings`) is that
heading's sibling, however the markup nests it or leaves it a paragraph. Each <table> becomes a Table with
its `table-id` attribute as id and the `cell-id` attribute of every cell in
`Table.cell_ids` (NTCIR-18 U4 annotates EDINET reports that way:
"S100IXUZ-0105010-tab89" / "S100IXUZ-0105010-tab89-r25c9"); tables without
ids get "t1", "t2" ... Rowspan and colspan are expanded on the grid. A table's
title is the nearest short caption above it ("前事業年度（自 2018年4月1日
至 2019年3月31日）") or else its heading, and a unit line above it
("（単位：百万円）") becomes `Table.unit`.

>>> doc = parse_html(Path("reports/S100IXUZ/S100IXUZ-0105010.html"), meta, ParseSettings())
>>> doc.table_list[0].table_id, doc.facts[0].cell_id, doc.facts[0].field, doc.facts[0].value
('S100IXUZ-0105010-tab85', 'S100IXUZ-0105010-tab85-r4c3', '売上収益', '367960000000')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import lxml.etree
import lxml.html

from core.errors import InputError
from core.language import cjk_language
from core.records import DocumentMeta, Line, ParsedDocument, Table
from core.rulebook import pattern_per_book, per_book
from core.units import find_unit, is_unit_statement
from core.vocabulary import vocabulary
from parser.chunking import Chunker
from parser.facts import add_tables
from parser.headings import HeadingRules, HeadingStack, fold_width
from parser.settings import ParseSettings, TableLimits
from parser.tables import GridCell, build_table, clean_cell

_SKIPPED = frozenset({"script", "style", "title", "meta", "head", "colgroup", "col", "noscript", "template"})
_TEXT_BLOCKS = frozenset({"p", "li", "dt", "dd", "caption", "pre", "blockquote", "address"})
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_MAX_SPAN = 1000
_PARSER_DEPTH = 256  # libxml2 stops building the tree there (lxml without huge_tree)
# A paragraph that is only a bracketed caption ("①【連結財政状態計算書】") is a heading.
_CAPTION_HEADING = pattern_per_book(
    lambda: re.compile(vocabulary("layout")["caption_heading"])
)  # rules/layout.yaml
_ITEM_MARK = pattern_per_book(lambda: re.compile(vocabulary("layout")["item_mark"]))
_MARK_NUMBER = re.compile(r"[0-9]+|[^\s().]")  # the number within an item mark: "2" of "(2)", "ⅱ" of "(ⅱ)"
_HEADING_CLASSES = per_book(lambda: vocabulary("layout")["heading_classes"])  # rules/layout.yaml
_NUMBERINGS = per_book(
    lambda: vocabulary("layout")["numberings"]
)  # rules/layout.yaml: the orders marks count in
MAX_CAPTION_CHARS = 60
LANGUAGE_LINES, LANGUAGE_TABLES = 200, 5  # what the language of a document without metadata is read from
_CHARSET = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


@dataclass
class HtmlDocument:
    """What one HTML file holds, in reading order."""

    lines: list[Line] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # limits hit: tables skipped, nesting cut


def parse_html(
    path: Path, meta: DocumentMeta, settings: ParseSettings, rules: HeadingRules | None = None
) -> ParsedDocument:
    """Text chunks, table-row chunks and facts of one HTML file; InputError when it cannot be read.

    The tables themselves are on `ParsedDocument.table_list` for the tables workbook.
    """
    html = read_html(Path(path), settings.tables)
    if not meta.language:  # the row sentences are written in the document's language
        meta = replace(meta, language=_language(html))
    doc = ParsedDocument(meta=meta, warnings=list(html.warnings))
    chunker = Chunker(settings, rules or HeadingRules.shared())
    doc.chunks = chunker.run(meta, html.lines)
    add_tables(doc, html.tables, settings.tables)
    return doc


def _language(html: HtmlDocument) -> str:
    """The language of the document's lines and its tables' row labels (a section may be all tables)."""
    labels = [str(label) for table in html.tables[:LANGUAGE_TABLES] for label in table.frame.iloc[:, 0]]
    return cjk_language("\n".join([line.text for line in html.lines[:LANGUAGE_LINES]] + labels))


def read_html(path: Path, limits: TableLimits | None = None) -> HtmlDocument:
    """Lines (headings marked) and tables of an HTML file; a table whose spans expand to more than
    `limits.cells` cells or `limits.columns` columns is skipped (with a warning) before its grid is built."""
    root, cut = _load(path)
    body = root.find("body")
    walker = _Walker(limits or TableLimits())
    if cut:
        walker.warnings.append(
            f"the HTML is nested deeper than {_PARSER_DEPTH} levels: the parser dropped what lies deeper"
        )
    walker.walk(body if body is not None else root)
    return HtmlDocument(walker.lines, walker.tables, walker.warnings)


def _load(path: Path) -> tuple:
    """The parsed root, and whether libxml2 cut the tree at its depth limit."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    if not data.strip():
        raise InputError("empty file, not HTML", str(path))
    declared = _CHARSET.search(data[:4096])
    encodings = ([declared.group(1).decode("ascii")] if declared else []) + [
        "utf-8",
        "cp932",
        "gb18030",
        "big5",
    ]
    for encoding in encodings:
        try:
            data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
        try:
            parser = lxml.html.HTMLParser(encoding=encoding, remove_comments=True)
            root = lxml.html.document_fromstring(data, parser=parser)
        except (lxml.etree.ParserError, ValueError) as exc:
            raise InputError(f"not readable as HTML ({exc})", str(path)) from None
        return root, any("Excessive depth" in entry.message for entry in parser.error_log)
    raise InputError("cannot decode the text: not UTF-8, Shift_JIS, GB18030 or Big5", str(path))


def _text(element) -> str:
    """An element's text on one line; its paragraphs and line breaks joined like wrapped lines."""
    pieces: list[str] = []

    def collect(el):
        tag = el.tag if isinstance(el.tag, str) else ""
        if not tag or tag in _SKIPPED or ":" in tag:  # comments, <?xml …?>, hidden XBRL elements
            if el.tail:
                pieces.append(el.tail)
            return
        if tag in ("p", "br", "div", "tr") and pieces:
            pieces.append("\n")
        if el.text:
            pieces.append(el.text)
        for child in el:
            collect(child)
        if tag in ("td", "th"):
            pieces.append(" ")
        if el.tail and el is not element:
            pieces.append(el.tail)

    collect(element)
    return clean_cell("".join(pieces))


class _Walker:
    """Walks the body in document order, collecting lines, headings and tables."""

    def __init__(self, limits: TableLimits):
        self.limits = limits
        self.warnings: list[str] = []
        self.lines: list[Line] = []
        self.tables: list[Table] = []
        self.headings = HeadingStack()
        self.captions: list[str] = []  # short lines since the last heading or table
        self.tag_level = 5  # level of the last h1-h6 heading

    def walk(self, element) -> None:
        for child in element:
            tag = child.tag if isinstance(child.tag, str) else ""
            if not tag or tag in _SKIPPED or ":" in tag or _hidden(child):
                continue
            if tag == "table":
                self._table(child)
            elif tag in _HEADINGS:
                self._heading(child, tag)
            elif tag in _TEXT_BLOCKS:
                text = _text(child)
                if _class_level(child) is not None:
                    self._heading(child, tag, text)
                elif _CAPTION_HEADING.match(text):
                    self._heading(child, "", text)
                elif text:
                    self.lines.append(Line(text))
                    self.captions.append(text)
            else:
                if child.text and child.text.strip():
                    self._loose_text(child.text)
                self.walk(child)
            if child.tail and child.tail.strip():
                self._loose_text(child.tail)

    def _loose_text(self, text: str) -> None:
        text = clean_cell(text)
        if text:
            self.lines.append(Line(text))
            self.captions.append(text)

    def _next_item(self, text: str) -> int | None:
        """The level of the innermost heading when a heading or a table's caption opens the next item of its kind (ⅱ
        after a heading ⅰ …): the report numbers it as a sibling of that heading, though the markup may nest it or
        mark up only the first as a heading, so what follows is under it, not under both."""
        innermost = self.headings.innermost
        if innermost is None or len(text) > MAX_CAPTION_CHARS:
            return None
        mark = _item_mark(text)
        if mark is None:
            return None
        level, heading = innermost
        previous = _item_mark(heading)
        return level if previous is not None and _follows(mark, previous) else None

    def _heading(self, element, tag: str, text: str = "") -> None:
        text = text or _text(element)
        if not text:
            return
        classed = _class_level(element)
        if tag in _HEADINGS or classed is not None:
            # The next item of the innermost heading's numbering is its sibling, though the markup may nest it
            # (an EDINET file tags (ⅰ) h4 and (ⅱ) h5).
            sibling = self._next_item(text)
            tagged = _HEADINGS.get(tag, 0) if classed is None or tag == "h1" else classed
            level = self.tag_level = sibling if sibling is not None and sibling < tagged else tagged
        else:  # a 【…】 caption in a paragraph sits one level below the last marked-up heading
            level = self.tag_level + 1
        self.lines.append(Line(text, heading_level=level))
        self.headings.push(level, text)
        self.captions = []

    def _table(self, element) -> None:
        unit = next(
            (find_unit(c) for c in reversed(self.captions) if find_unit(c) and len(c) <= MAX_CAPTION_CHARS),
            "",
        )
        caption = next(
            (c for c in reversed(self.captions) if len(c) <= MAX_CAPTION_CHARS and not is_unit_statement(c)),
            "",
        )
        sibling = self._next_item(caption) if caption else None
        if sibling is not None:
            self.headings.push(sibling, caption)
        path = self.headings.path
        table_id = element.get("table-id") or element.get("id") or f"t{len(self.tables) + 1}"
        grid = self._grid(element, table_id)
        if grid is None:
            return
        table = build_table(grid, table_id, 0, title=caption, titles=path, unit=unit, with_ids=True)
        if table is None:
            # A one-cell layout table ("（単位：百万円）", a caption) reads as a line of text.
            self._loose_text(_text(element))
            return
        previous = self.tables[-1] if self.tables else None
        if previous is not None and previous.titles == path:
            # A statement split over several tables (too wide for one page, or 前事業年度 then
            # 当事業年度) states its unit once above the first, and a part without a caption of
            # its own continues the part before it.
            table.unit = table.unit or previous.unit
            table.title = table.title or previous.title
        table.title = table.title or (path[-1] if path else "")
        self.tables.append(table)
        self.captions = []
        for nested in element.iterdescendants("table"):
            nested_id = nested.get("table-id") or nested.get("id") or f"t{len(self.tables) + 1}"
            grid = self._grid(nested, nested_id)
            nested_table = (
                build_table(grid, nested_id, 0, titles=path, with_ids=True) if grid is not None else None
            )
            if nested_table is not None:
                self.tables.append(nested_table)

    def _grid(self, element, table_id: str) -> list[list[GridCell]] | None:
        """The table's grid, or None (with a warning) when its spans expand past the cell or column limit."""
        rows = _rows(element)
        cells = sum(_span(cell, "rowspan") * _span(cell, "colspan") for row in rows for cell in row)
        columns = max((sum(_span(cell, "colspan") for cell in row) for row in rows), default=0)
        if cells > self.limits.cells:
            why = f"its spans expand to {cells} cells, over the limit of {self.limits.cells} (--max-table-cells)"
        elif columns > self.limits.columns:
            why = f"{columns} columns, over the limit of {self.limits.columns} (--max-table-columns)"
        else:
            return _grid(element)
        self.warnings.append(f"table {table_id}: skipped, {why}")
        return None


def _item_mark(text: str) -> str | None:
    """The mark a numbered item opens with ("(ⅱ)" of "(ⅱ)監査公認会計士等と同一の…"), width-folded, or None."""
    found = _ITEM_MARK.match(fold_width(text))
    return found["mark"].replace(" ", "") if found else None


def _follows(mark: str, previous: str) -> bool:
    """Whether item mark `mark` is the next after `previous` in one numbering, written alike ("(ⅱ)" after "(ⅰ)",
    "ロ" after "イ", "(3)" after "(2)"; not "(1)" after "(3)", which opens a list of its own)."""
    number, before = _MARK_NUMBER.search(mark), _MARK_NUMBER.search(previous)
    if number is None or before is None or mark.replace(number[0], "#") != previous.replace(before[0], "#"):
        return False
    if number[0].isascii() and number[0].isdigit() and before[0].isascii() and before[0].isdigit():
        return int(number[0]) == int(before[0]) + 1
    return any(
        before[0] in numbering and numbering.find(number[0]) == numbering.find(before[0]) + 1
        for numbering in _NUMBERINGS.value()
    )


def _class_level(element) -> int | None:
    """The heading level a class of the element stands for (EDINET's smt_head3: 4), None when none does."""
    levels = _HEADING_CLASSES.value()
    return next((levels[c] for c in (element.get("class") or "").split() if c in levels), None)


def _hidden(element) -> bool:
    style = (element.get("style") or "").replace(" ", "").lower()
    return "display:none" in style


def _rows(table) -> list[list]:
    """The table's own rows (not those of tables nested in its cells), each a list of td/th."""
    rows = []
    for child in table:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "tr":
            rows.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            rows += [tr for tr in child if isinstance(tr.tag, str) and tr.tag == "tr"]
    return [[cell for cell in tr if isinstance(cell.tag, str) and cell.tag in ("td", "th")] for tr in rows]


def _span(cell, name: str) -> int:
    value = (cell.get(name) or "1").strip()
    return min(int(value), _MAX_SPAN) if value.isdigit() and int(value) > 0 else 1


def _grid(table) -> list[list[GridCell]]:
    """The table's cells on a grid, rowspan/colspan expanded."""
    placed: dict[tuple[int, int], GridCell] = {}
    rows = _rows(table)
    for r, cells in enumerate(rows):
        c = 0
        for cell in cells:
            while (r, c) in placed:
                c += 1
            text, cell_id = _text(cell), cell.get("cell-id") or cell.get("id") or ""
            rowspan = min(_span(cell, "rowspan"), len(rows) - r)
            colspan = _span(cell, "colspan")
            for dr in range(rowspan):
                for dc in range(colspan):
                    placed[(r + dr, c + dc)] = GridCell(text, cell_id, origin=(dr == 0 and dc == 0))
            c += colspan
    if not placed:
        return []
    height = max(r for r, _ in placed) + 1
    width = max(c for _, c in placed) + 1
    empty = GridCell("", "", False)
    return [[placed.get((r, c), empty) for c in range(width)] for r in range(height)]
