"""Statements drawn without ruling lines, read from word positions.

A bank's statements and many Taiwanese quarterly statements have no lines,
so pdfplumber's ruled finder (parser/tables.py) sees running text. Its text
strategy was tried on them and split dates and wrapped labels over columns.
Here the columns come from the numbers themselves:

- a body is a run of lines that end in values (numbers, dashes, negatives in
  parentheses) with the label text on the left; short label-only lines
  (section names such as "负债") may sit between them;
- value columns are the x-ranges where the values of several lines overlap
  (numbers are right-aligned, so their ranges share the right edge); a body
  needs `UnruledSettings.min_columns` columns of `min_rows` values each;
- header lines are the lines just above the body with words over the value
  columns and none straddling the label/value boundary (a centred title
  does); a header word spanning two columns ("本集团" over two years) labels
  both. A body without a header stays running text: columns nobody labels
  give no periods, and most such runs are lists, not statements;
- a label-only line that fills the label area, followed by a value line, is
  the first half of a wrapped label.

Only words outside the ruled tables are read, so a table the ruled reader
handles is never read twice or scrambled. The grid goes through
`build_table`, the same path as ruled tables.

>>> found = find_unruled_tables(page, 123, taken=[])
>>> list(found[0][1].frame.columns)
['#0', '附注四', '本集团/2024年12月31日', '本集团/2023年12月31日']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.folding import nfkc
from core.records import Table
from core.units import is_unit_statement
from parser.tables import GridCell, build_table, centre_inside, clean_cell, is_data_cell, pdf_caption


@dataclass(frozen=True)
class UnruledSettings:
    """How word positions are read as a table."""

    line_tolerance: float = 3.0  # words whose tops differ by less are on one line
    max_gap_lines: float = 2.5  # a vertical gap over this many line heights ends a body
    min_rows: int = 3  # a value column holds at least this many values
    min_columns: int = 2  # ... and a body has at least this many such columns
    header_lines: int = 3  # at most this many header lines above a body
    header_gap: float = 60.0  # points between the body and the header line furthest from it
    label_chars: int = 40  # a label-only line longer than this is prose, not a section name


@dataclass
class _Line:
    words: list[dict]
    top: float
    bottom: float
    labels: list[dict] = field(default_factory=list)  # words before the first value
    values: list[dict] = field(default_factory=list)  # the values after them (none: a label-only line)

    @property
    def text(self) -> str:
        return " ".join(w["text"] for w in self.words)


def page_words(page) -> list[dict]:
    """The words of a pdfplumber page, each with its characters, as the readers of unruled tables here and in
    parser/coded_statements.py split them: a page's words are split once for both."""
    return page.extract_words(keep_blank_chars=False, use_text_flow=False, return_chars=True)


def find_unruled_tables(
    page,
    page_no: int,
    taken: list[tuple],
    first_id: int = 1,
    settings: UnruledSettings = UnruledSettings(),
    words: list[dict] | None = None,
) -> list[tuple[tuple, Table]]:
    """Tables read from the words outside the `taken` boxes of a pdfplumber page, as (bbox, Table); `words`:
    the page's `page_words` when the caller has them."""
    words = [
        w
        for w in (page_words(page) if words is None else words)
        if not any(centre_inside(w, box) for box in taken)
    ]
    lines = _lines(words, settings)
    max_gap = max_line_gap(lines, settings.max_gap_lines)
    found = []
    for start, end in value_runs(lines, max_gap, lambda line: _section_name(line, settings)):
        body = lines[start:end]
        columns = value_columns(
            [[(w["x0"], w["x1"]) for w in line.values] for line in body], settings.min_rows
        )
        if len(columns) < settings.min_columns or 2 * sum(1 for line in body if line.values) < len(body):
            continue  # mostly label-only lines: wrapped prose beside a few numbers, not a statement
        value_left = columns[0][0]
        while (
            start > 0
            and _section_name(lines[start - 1], settings)
            and all(w["x1"] <= value_left for w in lines[start - 1].words)
            and body[0].top - lines[start - 1].bottom <= max_gap
        ):
            start -= 1  # "负债" above the first row belongs to the body
            body.insert(0, lines[start])
        label_right = max((w["x1"] for line in body for w in line.labels), default=value_left)
        header = _header(lines[:start], body[0].top, label_right, settings)
        if not header:
            continue  # columns nobody labels are no statement to read: the lines stay running text
        # Column headings are centred, the numbers right-aligned: a column spans both.
        columns = [widened(column, header[-1].words) for column in columns]
        grid = [_header_row(line, columns, label_right) for line in header]
        grid += _body_rows(body, columns, label_right)
        table = placed_table(page, page_no, f"p{page_no}t{first_id + len(found)}", header + body, grid)
        if table is not None:
            found.append((table.frame.attrs["bbox"], table))
    return found


def placed_table(page, page_no: int, table_id: str, block: list, grid: list[list[GridCell]]) -> Table | None:
    """The table of a grid read from the lines `block` (header and body, with .words, .top, .bottom): captioned
    from the page above it, its box in its attrs as ruled tables have it."""
    bbox = (
        min(w["x0"] for line in block for w in line.words),
        block[0].top - 1,
        max(w["x1"] for line in block for w in line.words),
        block[-1].bottom,
    )
    title, unit = pdf_caption(page, bbox)
    table = build_table(grid, table_id, page_no, title=title, unit=unit)
    if table is not None:
        table.frame.attrs.update(bbox=bbox, page_height=float(page.height))
    return table


def _lines(words: list[dict], settings: UnruledSettings) -> list[_Line]:
    """Words grouped into lines top to bottom, each split into its label words and trailing values."""
    lines: list[_Line] = []
    for word in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if lines and word["top"] - lines[-1].top < settings.line_tolerance:
            lines[-1].words.append(word)
            lines[-1].bottom = max(lines[-1].bottom, word["bottom"])
        else:
            lines.append(_Line([word], word["top"], word["bottom"]))
    for line in lines:
        line.words.sort(key=lambda w: w["x0"])
        first = next((i for i, w in enumerate(line.words) if is_data_cell(w["text"])), len(line.words))
        line.labels, rest = line.words[:first], line.words[first:]
        # Text after a value makes the line prose ("共有 41,011 人"), not a table row.
        line.values = rest if all(is_data_cell(w["text"]) for w in rest) else []
        if not line.values:
            line.labels = line.words
    return lines


def value_runs(lines: list, max_gap: float, between: Callable[[object], bool]) -> list[tuple[int, int]]:
    """(start, end) of each run of lines with values (with .values, .top, .bottom), lines without values between
    them included where `between` allows one (a section name) and no gap exceeds `max_gap`."""
    bodies = []
    start = last_value = None
    for i, line in enumerate(lines):
        near = last_value is not None and line.top - lines[i - 1].bottom <= max_gap
        if line.values:
            if start is None or not near:
                if start is not None:
                    bodies.append((start, last_value + 1))
                start = i
            last_value = i
        elif start is not None and not (near and between(line)):
            bodies.append((start, last_value + 1))
            start = last_value = None
    if start is not None:
        bodies.append((start, last_value + 1))
    return bodies


def max_line_gap(lines: list, gap_lines: float) -> float:
    """The vertical gap past which two lines (with .top and .bottom) are not in one table: `gap_lines` median
    line heights."""
    heights = sorted(line.bottom - line.top for line in lines) or [10.0]
    return gap_lines * heights[len(heights) // 2]


def _section_name(line: _Line, settings: UnruledSettings) -> bool:
    return not line.values and len(line.text) <= settings.label_chars


def value_columns(rows: list[list[tuple[float, float]]], min_rows: int) -> list[tuple[float, float]]:
    """The x-ranges where the values (x0, x1 of each value, per row) of at least `min_rows` rows overlap,
    left to right."""
    spans = sorted(span for row in rows for span in row)
    merged: list[list] = []
    for x0, x1 in spans:
        if merged and x0 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], x1)
            merged[-1][2] += 1
        else:
            merged.append([x0, x1, 1])
    return [(x0, x1) for x0, x1, count in merged if count >= min_rows]


def column_of(word: dict, columns: list[tuple[float, float]]) -> int | None:
    """1-based grid column of a value word (0 is the label column), None when it lies in no column."""
    for j, (x0, x1) in enumerate(columns):
        if word["x0"] <= x1 and word["x1"] >= x0:
            return j + 1
    return None


def _header(above: list[_Line], body_top: float, boundary: float, settings: UnruledSettings) -> list[_Line]:
    """The header lines right above a body: words right of the label/value `boundary`, none across it
    (a centred title or unit line crosses it)."""
    header: list[_Line] = []
    for line in reversed(above[-settings.header_lines :]):
        if body_top - line.top > settings.header_gap or is_unit_statement(line.text):
            break
        over = [w for w in line.words if w["x1"] > boundary]
        if (
            not over
            or any(w["x0"] < boundary < w["x1"] for w in line.words)
            or any(is_data_cell(nfkc(w["text"]).strip("()")) for w in over)
        ):  # "( 10,364,858)" split in two
            break
        header.insert(0, line)
    return header


def widened(column: tuple[float, float], words: list[dict]) -> tuple[float, float]:
    over = [w for w in words if w["x0"] <= column[1] and w["x1"] >= column[0]]
    return min([column[0], *(w["x0"] for w in over)]), max([column[1], *(w["x1"] for w in over)])


def _spanned(word: dict, columns: list[tuple[float, float]]) -> list[int]:
    """The run of grid columns a header word is centred over ("本集团" over its two years), 1-based."""
    centre = (word["x0"] + word["x1"]) / 2
    runs = [(a, b) for a in range(len(columns)) for b in range(a, len(columns))]
    a, b = min(
        runs, key=lambda run: (abs((columns[run[0]][0] + columns[run[1]][1]) / 2 - centre), run[1] - run[0])
    )
    return list(range(a + 1, b + 2))


def _header_row(line: _Line, columns: list[tuple[float, float]], boundary: float) -> list[GridCell]:
    texts: list[list[str]] = [[] for _ in range(len(columns) + 1)]
    spans: list[list[int]] = []
    for word in line.words:
        if word["x1"] <= boundary:
            texts[0].append(word["text"])
            continue
        owned = _spanned(word, columns)
        for j in owned:
            texts[j].append(word["text"])
        spans.append(owned)
    row = [GridCell(clean_cell("\n".join(parts))) for parts in texts]
    for owned in spans:  # a spanning word is one cell: it starts at its first column
        for j in owned[1:]:
            row[j] = GridCell(row[j].text, origin=False)
    return row


def _body_rows(
    body: list[_Line], columns: list[tuple[float, float]], label_right: float
) -> list[list[GridCell]]:
    """One grid row per body line; a label-only line reaching `label_right` joins the next value line."""
    char = min((w["x1"] - w["x0"]) / max(len(w["text"]), 1) for line in body for w in line.words)
    rows: list[list[GridCell]] = []
    pending = ""
    for line in body:
        label = clean_cell("\n".join(w["text"] for w in line.labels))
        if not line.values:
            if pending:
                rows.append([GridCell(pending)] + [GridCell("")] * len(columns))
            filled = line.labels and line.labels[-1]["x1"] >= label_right - 2 * char
            pending = label if filled else ""
            if not filled:
                rows.append([GridCell(label)] + [GridCell("")] * len(columns))
            continue
        if pending:
            label = clean_cell(f"{pending}\n{label}")
            pending = ""
        cells = [[] for _ in columns]
        for word in line.values:
            j = column_of(word, columns)
            if j is not None:
                cells[j - 1].append(word["text"])
        rows.append([GridCell(label)] + [GridCell(" ".join(parts)) for parts in cells])
    if pending:
        rows.append([GridCell(pending)] + [GridCell("")] * len(columns))
    return rows
