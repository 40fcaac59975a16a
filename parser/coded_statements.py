"""Unruled statements with account codes and percentage columns (Taiwanese quarterly reports), from word positions.

Taiwanese quarterly reports print their statements without ruling lines, in a layout that
parser/unruled.py (a bank's statements) does not read:

    民國111年及110年1月1日至3月31日                  <- the title block (caption: kind, scope, unit)
                      111年1月1日      110年1月1日   <- period lines, each centred over an amount and its %
                      至3月31日        至3月31日
    代碼  項目   附註  金  額    %     金  額    %   <- column words
    4000  營業收入  六(二十) $ 82,538,075 100 $ 72,485,283 100
    5000  營業成本  六(七)(二十五)
                   (二十六)及七 ( 60,025,519 ) ( 73 ) ...

- an account code starts a row ("4000", "590" + "0" split by the text layer); it is dropped, and a
  code whose row has no values yet (its label wraps, or its note does) passes its label to the next
  line without a code of its own;
- labels wrap over two lines with the values set a few points below the first line's top, so words
  are one line when they overlap vertically by `CodedSettings.overlap` of their height, not when
  their tops are equal;
- negatives print their brackets apart from the digits ("(" "60,025,519" ")", ")(" "34)") and a "$"
  stands before the first and total rows: brackets are read as the sign of the number they enclose,
  "$" is dropped;
- a 附註 column of note references stands between labels and values: the words left-aligned on one
  x to the right of the labels, when a column word names the note column, are dropped;
- each amount column has a % column beside it (a share of revenue or of total assets, headed "%"):
  dropped, as is the code column;
- the period lines above the column words are joined per amount column ("111年1月1日" + "至3月31日"),
  and every amount column must be dated, or the block stays running text: a column nobody dates
  gives no fact, so a fact's period (and its kind: core/statements.py, a quarter, the year to date or a
  point in time) always comes from the column's own header; company and year come from the document.

Pages it reads: those without ruling lines around the statement (only words outside the ruled
tables and the tables parser/unruled.py found are read) that have at least `min_columns` number
columns aligned over `min_rows` rows. The grid goes through `build_table`, like every table.

>>> found = find_coded_tables(page, 1, taken=[])
>>> list(found[0][1].frame.columns)
['項目', '111年1月1日至3月31日', '110年1月1日至3月31日']
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from core.dates import date_digits
from core.folding import nfkc
from core.numerals import cjk_number
from core.records import Table
from core.rulebook import pattern_per_book, per_book
from core.units import is_unit_statement
from core.vocabulary import vocabulary
from parser.facts import NOTE_HEADER
from parser.tables import (
    ACCOUNT_CODE,
    ASIDE,
    GridCell,
    centre_inside,
    clean_cell,
    is_data_cell,
)
from parser.unruled import column_of, max_line_gap, page_words, placed_table, value_columns, value_runs

_DATE_PERIOD = pattern_per_book(lambda: re.compile(vocabulary("tables")["date_period"]))  # rules/tables.yaml
# 元 (as in 元年) is no numeral in a date
_FIRST_YEAR = per_book(lambda: vocabulary("numbers")["numerals"]["first_year"])
_PERCENT = "%"
_CASH_FLOW_CODE = re.compile(r"^[A-Z]\d{5}$")  # cash flow statements code their rows A10000, B02700, C00100
_CURRENCY = "$"


@dataclass(frozen=True)
class CodedSettings:
    """How words are read as a coded statement."""

    overlap: float = 0.5  # words on one line overlap vertically by this share of the shorter one's height
    max_gap_lines: float = 2.5  # a vertical gap over this many line heights ends a body
    min_rows: int = 3  # a value column holds at least this many values
    min_columns: int = 2  # ... and a statement has at least this many amount columns (periods compared)
    header_lines: int = 3  # at most this many header lines above a body
    header_gap: float = 60.0  # points between the body and the header line furthest from it
    label_chars: int = 40  # a label-only line longer than this is prose, not a section name
    compact: float = 0.6  # a header line narrower than this share of the value columns' width is one name ...
    centred: float = 0.15  # ... and centred over them when its centre is off theirs by less than this share


@dataclass
class _Value:
    """A number (its sign from brackets printed apart), placed where its digits are."""

    text: str
    x0: float
    x1: float


@dataclass
class _Line:
    words: list[dict]
    top: float
    bottom: float
    code: bool = False  # the line starts with an account code
    labels: list[dict] = field(default_factory=list)  # label words (code and notes left out)
    values: list[_Value] = field(default_factory=list)
    prose: bool = False  # words after a value: running text, not a row

    @property
    def label(self) -> str:
        return clean_cell("\n".join(w["text"] for w in self.labels))


def find_coded_tables(
    page,
    page_no: int,
    taken: list[tuple],
    first_id: int = 1,
    settings: CodedSettings = CodedSettings(),
    words: list[dict] | None = None,
) -> list[tuple[tuple, Table]]:
    """Coded statements read from the words outside the `taken` boxes of a pdfplumber page, as (bbox, Table);
    `words`: the page's `page_words` (parser/unruled.py) when the caller has them."""
    words = _joined_digits(
        [
            w
            for w in (page_words(page) if words is None else words)
            if not any(centre_inside(w, box) for box in taken)
        ]
    )
    lines = _lines(words, settings)
    if not lines:
        return []
    max_gap = max_line_gap(lines, settings.max_gap_lines)
    found = []
    # section names, wrapped labels and coded rows whose values come on the next line sit between value lines
    for start, end in value_runs(lines, max_gap, lambda line: _label_only(line, settings)):
        table = _table(page, page_no, lines, start, end, settings, f"p{page_no}t{first_id + len(found)}")
        if table is not None:
            found.append((table.frame.attrs["bbox"], table))
    return found


def _table(
    page, page_no: int, lines: list[_Line], start: int, end: int, settings: CodedSettings, table_id: str
):
    """The table of the body lines[start:end] under its header, or None when it is no dated statement."""
    columns = value_columns(
        [[(v.x0, v.x1) for v in line.values] for line in lines[start:end]], settings.min_rows
    )
    if len(columns) < settings.min_columns:
        return None
    # The first row holds values in several columns: a date line above ("…及9月 30日") is no row.
    start = next(i for i in range(start, end) if _in_columns(lines[i], columns) >= settings.min_columns)
    max_gap = max_line_gap(lines, settings.max_gap_lines)
    while (
        start > 0
        and _label_only(lines[start - 1], settings)
        and not lines[start - 1].code
        and all(w["x1"] <= columns[0][0] for w in lines[start - 1].words)
        and lines[start].top - lines[start - 1].bottom <= max_gap
    ):
        start -= 1  # "流動資產" above the first row belongs to the body
    body = lines[start:end]
    header = _header(lines[:start], body, columns, settings)
    if not header:
        return None
    shares = _percent_columns(columns, header[-1])
    amounts = [j for j in range(len(columns)) if j not in shares]
    if len(amounts) < settings.min_columns:
        return None
    boundary = max((w["x1"] for line in body for w in line.labels), default=columns[0][0])
    _drop_notes(body, [w for line in header for w in line.words])
    area = (
        min([columns[0][0], *(w["x0"] for line in header for w in line.words if w["x0"] > boundary)]),
        max([columns[-1][1], *(w["x1"] for line in header for w in line.words)]),
    )
    if any(_names_columns(line, area, settings) for line in header):
        return None  # another company's figures (a subsidiary's summary), or a measure's (所持股權百分比)
    periods = _periods(header, columns, amounts, boundary)
    if periods is None:
        return None
    grid = [[GridCell("")] + [GridCell(period) for period in periods]]
    grid += _rows(body, columns, amounts, settings)
    return placed_table(page, page_no, table_id, header + body, grid)


def _in_columns(line: _Line, columns: list[tuple[float, float]]) -> int:
    return sum(1 for v in line.values if column_of({"x0": v.x0, "x1": v.x1}, columns) is not None)


def _joined_digits(words: list[dict]) -> list[dict]:
    """Digit words that touch on one line as one word: the text layer splits some codes ("590" "0")."""
    out: list[dict] = []
    for word in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        last = out[-1] if out else None
        if (
            last is not None
            and abs(last["top"] - word["top"]) < 1
            and 0 <= word["x0"] - last["x1"] < 0.5
            and last["text"].isdigit()
            and word["text"].isdigit()
        ):
            out[-1] = {
                **last,
                "text": last["text"] + word["text"],
                "x1": word["x1"],
                "chars": [*last.get("chars", ()), *word.get("chars", ())],
            }
        else:
            out.append(word)
    return out


def _lines(words: list[dict], settings: CodedSettings) -> list[_Line]:
    """Words grouped into lines by vertical overlap with each line's first word, each line read as a row."""
    lines: list[_Line] = []
    for word in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if lines:
            first = lines[-1].words[0]
            shared = min(first["bottom"], word["bottom"]) - max(first["top"], word["top"])
            height = min(first["bottom"] - first["top"], word["bottom"] - word["top"])
            if height > 0 and shared >= settings.overlap * height:
                lines[-1].words.append(word)
                lines[-1].bottom = max(lines[-1].bottom, word["bottom"])
                continue
        lines.append(_Line([word], word["top"], word["bottom"]))
    for line in lines:
        line.words.sort(key=lambda w: w["x0"])
        _read_row(line)
    return [line for line in lines if line.labels or line.values or line.code or line.prose]


def _read_row(line: _Line) -> None:
    """Split a line into its account code, label words and values; a line with words after its values is
    prose."""
    words = line.words
    if (
        words
        and (ACCOUNT_CODE.match(words[0]["text"]) or _CASH_FLOW_CODE.match(words[0]["text"]))
        and (len(words) == 1 or not is_data_cell(words[1]["text"]))
    ):
        line.code, words = True, words[1:]
    first = next((i for i, w in enumerate(words) if _number_part(w["text"]) is not None), len(words))
    while first > 0 and not nfkc(words[first - 1]["text"]).replace(_CURRENCY, "").strip("() "):
        first -= 1  # "$" and "(" printed apart belong to the value after them
    line.labels = [w for w in words[:first] if w["text"] != _CURRENCY]
    opened = False  # a "(" printed apart opens a negative
    for word in words[first:]:
        text = nfkc(word["text"]).replace(_CURRENCY, "").strip()
        number = _number_part(text)
        if number is None:
            if text.strip("()"):
                line.prose, line.values = True, []
                line.labels = line.words
                return
            opened = text.endswith("(")
            continue
        negative = opened or text.startswith("(")
        opened = text.endswith("(")
        # Placed by its digits: a bracket the text layer joins to it ("57,314,868)(") is not part of the column.
        digits = [c for c in word.get("chars", ()) if c["text"] not in "()$ "] or [word]
        line.values.append(_Value(f"({number})" if negative else number, digits[0]["x0"], digits[-1]["x1"]))


def _number_part(text: str) -> str | None:
    """The number or dash a word holds inside any brackets and "$" ("(60,025,519", "34)"); None if none."""
    core = nfkc(text).replace(_CURRENCY, "").strip().strip("()").strip()
    return core if core and is_data_cell(core) and not ACCOUNT_CODE.match(core) or core == "-" else None


def _label_only(line: _Line, settings: CodedSettings) -> bool:
    return not line.values and not line.prose and len(line.label) <= settings.label_chars


def _header(
    above: list[_Line], body: list[_Line], columns: list[tuple[float, float]], settings: CodedSettings
):
    """The header lines right above a body: each with words over the value columns, none across the label
    boundary (a centred title or date line crosses it), no unit statement; nearest last."""
    boundary = min(column[0] for column in columns)
    header: list[_Line] = []
    for line in reversed(above[-settings.header_lines :]):
        text = " ".join(w["text"] for w in line.words)
        if body[0].top - line.top > settings.header_gap or is_unit_statement(text) or ASIDE.match(text):
            break
        over = [w for w in line.words if w["x1"] > boundary]
        if not over or any(
            w["x0"] < boundary - 1 and w["x1"] > boundary + 1 and _spans_label(w, body) for w in over
        ):
            break
        header.insert(0, line)
    return header


def _spans_label(word: dict, body: list[_Line]) -> bool:
    """A header word reaching from the labels into the values: a title, not a column heading."""
    left = min((w["x0"] for line in body for w in line.labels), default=word["x0"])
    return word["x0"] <= left + 1 or word["x1"] - word["x0"] > 0.5 * (word["x1"] - left)


def _names_columns(line: _Line, area: tuple[float, float], settings: CodedSettings) -> bool:
    """A short undated line centred over the value columns' `area` (their values and headers) names whose or
    what figures they are: a subsidiary ("FIH MOBILE LIMITED", "亞太電信股份有限公司" over 112年1月1日至3月31日 |
    111年…) or a measure (所持股權百分比)."""
    text = "".join(w["text"] for w in line.words)
    left, right = area
    x0, x1 = min(w["x0"] for w in line.words), max(w["x1"] for w in line.words)
    return (
        not _dated(text)
        and x0 >= left - settings.centred * (right - left)
        and x1 - x0 <= settings.compact * (right - left)
        and abs((x0 + x1) / 2 - (left + right) / 2) <= settings.centred * (right - left)
    )


def _percent_columns(columns: list[tuple[float, float]], words_line: _Line) -> set[int]:
    """The columns the column words head with "%" (each "%" heads the column whose centre is nearest its own):
    an amount's share, not an amount."""
    marks = [
        (c["x0"] + c["x1"]) / 2
        for w in words_line.words
        for c in w.get("chars", [w])
        if nfkc(c["text"]) == _PERCENT
    ]
    return {min(range(len(columns)), key=lambda j: abs(sum(columns[j]) / 2 - mark)) for mark in marks}


def _drop_notes(body: list[_Line], header_words: list[dict]) -> None:
    """Take the 附註 column out of the labels: words left-aligned on one x right of the labels, when a column
    word names the note column."""
    if not any(NOTE_HEADER.match(nfkc(w["text"]).replace(" ", "")) for w in header_words):
        return
    starts = Counter(round(w["x0"]) for line in body for w in line.labels[1:])
    lefts = sorted(line.labels[0]["x0"] for line in body if line.labels)
    aligned = [x for x, count in starts.items() if count >= 2 and lefts and x > lefts[len(lefts) // 2]]
    if not aligned:
        return
    note_x = min(aligned) - 1
    for line in body:
        line.labels = [w for w in line.labels if w["x0"] < note_x or w is line.labels[0]]
        if line.labels and line.labels[0]["x0"] >= note_x:
            line.labels = []  # a note's continuation alone on its line


def _periods(
    header: list[_Line], columns: list[tuple[float, float]], amounts: list[int], boundary: float
) -> list[str] | None:
    """The period over each amount column: the header characters within the amount's slot that write a number
    (not 金額 or %), line by line, joined; None unless every amount column has a dated period.

    Read by character, as the text layer may join the end of one period to the start of the next ("1日至3月3").
    """
    periods = [""] * len(amounts)
    for line in header:
        chars = sorted(
            (c for w in line.words if not NOTE_HEADER.match(nfkc(w["text"])) for c in w.get("chars", [w])),
            key=lambda c: c["x0"],
        )
        edges = _slot_edges(chars, columns, amounts, boundary)
        if any(_spanning(w, edges) and not _dated(w["text"]) for w in line.words):
            continue  # a heading over several columns (合併所持股權百分比), not their periods
        for k in range(len(amounts)):
            part = "".join(c["text"] for c in chars if edges[k] < (c["x0"] + c["x1"]) / 2 <= edges[k + 1])
            if _dated(part):
                periods[k] += part.replace(" ", "")
    periods = [nfkc(period) for period in periods]
    return periods if all(_DATE_PERIOD.match(date_digits(period)) for period in periods) else None


def _spanning(word: dict, edges: list[float]) -> bool:
    """A word whose characters stand in more than one slot."""
    slots = {
        k
        for c in word.get("chars", [word])
        for k in range(len(edges) - 1)
        if edges[k] < (c["x0"] + c["x1"]) / 2 <= edges[k + 1]
    }
    return len(slots) > 1


def _slot_edges(chars: list[dict], columns: list[tuple[float, float]], amounts: list[int], boundary: float):
    """Where each amount column's period starts and ends on one header line. A period is centred over its amount
    and % columns, so the next starts right after the %; without a % column, at the widest gap between two
    characters standing between the amounts' centres (letter-spaced dates: "1 1 1 年 1 月 1 日")."""
    edges = [boundary]
    for j in amounts[1:]:
        if j - 1 not in amounts:
            edges.append(columns[j - 1][1] + 1)
            continue
        left, right = sum(columns[j - 1]) / 2, sum(columns[j]) / 2
        between = [c for c in chars if left < (c["x0"] + c["x1"]) / 2 < right]
        gaps = [(b["x0"] - a["x1"], (a["x1"] + b["x0"]) / 2) for a, b in zip(between, between[1:])]
        edges.append(max(gaps)[1] if gaps else (columns[j - 1][1] + columns[j][0]) / 2)
    return [*edges, float("inf")]


def _dated(part: str) -> bool:
    """Header words that write a number, in digits or in Chinese numerals: part of a date."""
    return any(c.isdigit() or (c != _FIRST_YEAR.value() and cjk_number(c) is not None) for c in nfkc(part))


def _rows(
    body: list[_Line], columns: list[tuple[float, float]], amounts: list[int], settings: CodedSettings
) -> list[list[GridCell]]:
    """One grid row per statement row: a label and its amounts (the % columns left out).

    A label-only line carries over to the next value line when it was cut short (it fills the label area)
    or opened a coded row; a value line without a label of its own and nothing carried over is no row (its
    numbers would take the row above's field)."""
    label_right = max((w["x1"] for line in body for w in line.labels), default=0.0)
    char = min(
        ((w["x1"] - w["x0"]) / max(len(w["text"]), 1) for line in body for w in line.labels), default=10.0
    )
    rows: list[list[GridCell]] = []
    empty = [GridCell("")] * len(amounts)
    pending, cut = "", False  # a label waiting for its values; whether it was cut short at the right
    above = None  # the line before this one
    for line in body:
        label = line.label
        if not line.values:
            filled = bool(line.labels) and line.labels[-1]["x1"] >= label_right - 2 * char
            if pending and cut and label and not line.code:
                pending, cut = clean_cell(f"{pending}\n{label}"), filled  # a label wrapped over three lines
            else:
                if pending:
                    rows.append([GridCell(pending), *empty])
                pending, cut = (label, filled) if (filled or line.code) and label else ("", False)
                if label and not pending:
                    rows.append([GridCell(label), *empty])
            above = line
            continue
        if pending and not line.code:
            label = clean_cell(f"{pending}\n{label}")
        elif pending:
            rows.append([GridCell(pending), *empty])
        elif (
            not label and above is not None and not above.values and rows and rows[-1][0].text == above.label
        ):
            label = rows.pop()[0].text  # its note wrapped ("折舊費用 六(九)(十)" / "(二十五) 3,541,717")
        pending, cut = "", False
        above = line
        if not label:
            continue
        cells: list[list[str]] = [[] for _ in columns]
        for value in line.values:
            j = column_of({"x0": value.x0, "x1": value.x1}, columns)
            if j is not None:
                cells[j - 1].append(value.text)
        rows.append([GridCell(label)] + [GridCell(" ".join(cells[j])) for j in amounts])
    if pending:
        rows.append([GridCell(pending), *empty])
    return rows
