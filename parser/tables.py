"""Tables as pandas DataFrames: cell grids from PDFs (pdfplumber) and HTML, flattened headers, units.

A source hands `build_table` a grid of cells with their row/column spans
already expanded (every grid position says which source cell covers it).
`build_table` drops empty rows and columns, takes unit rows ("（単位：百万円）")
into `Table.unit`, finds the header rows, flattens them ("2021年/金额"),
forward-fills row labels that a merged cell spans, and keeps a body value
only where its cell starts, so a value spanning two columns is read once.

>>> with pdfplumber.open("report.pdf") as pdf:
...     found = find_pdf_tables(pdf.pages[11], 12, ParseSettings())
>>> bbox, table = found[0]
>>> table.table_id, list(table.frame.columns)[:3]
('p12t1', ['项目', '2021年12月31日', '2020年12月31日'])

Layout facts `merge_continued` needs travel in `Table.frame.attrs`:
"bbox" (x0, top, x1, bottom), "page_height", "header_rows", and after a merge
"row_pages" (the page of every body row) and "end_page"/"end_bottom".
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import pandas as pd
from pdfplumber.utils import chars_to_textmap, crop_to_bbox, extract_text

from core.dates import CURRENT_PERIOD, PRIOR_PERIOD, explicit_year, iso_date
from core.folding import nfkc
from core.records import Table
from core.rulebook import pattern_per_book, per_book
from core.units import find_unit, is_dash, is_unit_statement, parse_quantity, rejoin_split_number
from core.vocabulary import vocabulary
from parser.headings import tidy_line
from parser.settings import ParseSettings

# Ruled tables only: Chinese annual reports draw their statement tables with
# full grid lines. pdfplumber's text strategy was tried on the line-less
# Taiwanese statements in ../shared/data/aicup and split dates and wrapped
# labels over several columns, so it is not used.
PDF_TABLE_SETTINGS = {
    "vertical_strategy": "lines",
    "horizontal_strategy": "lines",
    "snap_tolerance": 3,
    "join_tolerance": 3,
    "intersection_tolerance": 3,
    "edge_min_length": 3,
}
MAX_HEADER_ROWS = 4
CAPTION_GAP = 60.0  # points above a PDF table searched for its title and unit line
CONTINUED_TOP = 0.25  # a continuation starts in the top quarter of its page
CONTINUED_BOTTOM = 0.55  # ... and the table it continues ends below this share of its page

# Characters between which a line break is no word break (not full-width digits or letters: "※１" + "1,056").
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff08\uff09\uff0c\uff1a\uff1b"
_WORDS = per_book(lambda: vocabulary("tables"))  # rules/tables.yaml
_PERIOD_LIKE = pattern_per_book(lambda: re.compile(_WORDS["period_like"]))
_PLACEHOLDER = re.compile(r"#\d+$")
_HEADER_WORDS = pattern_per_book(
    lambda: re.compile(f"^(?:{'|'.join(map(re.escape, _WORDS['header_words']))})$")
)
_NTH_PERIOD = pattern_per_book(lambda: re.compile(_WORDS["nth_period"]))
ASIDE = pattern_per_book(lambda: re.compile(_WORDS["aside"]))  # a remark in brackets, not a title
_UNIT_WORDS = pattern_per_book(lambda: re.compile(_WORDS["unit_words"]))


@dataclass(frozen=True)
class GridCell:
    """One grid position: the text and id of the source cell covering it, and whether it starts there."""

    text: str
    cell_id: str = ""
    origin: bool = True


def clean_cell(text: str | None) -> str:
    """Cell text on one line: wrapped lines joined (no space between CJK characters), spacing tidied.

    >>> clean_cell("营业\\n收入"), clean_cell("Marubeni\\nCorporation"), clean_cell("浦　江　明　憲")
    ('营业收入', 'Marubeni Corporation', '浦江明憲')
    """
    if not text:
        return ""
    text = str(text).replace("\ufeff", "").replace("\u200b", "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    joined = lines[0]
    for line in lines[1:]:
        gap = "" if re.match(f"[{_CJK}]", joined[-1]) or re.match(f"[{_CJK}]", line[0]) else " "
        joined += gap + line
    return rejoin_split_number(tidy_line(joined))


def is_placeholder(label: str) -> bool:
    """Column labels made up for columns without a header ("#3")."""
    return bool(_PLACEHOLDER.fullmatch(label))


def column_period(label: str) -> str:
    """A frame column label without the suffix that keeps duplicate labels apart."""
    return "" if is_placeholder(label) else _PLACEHOLDER.sub("", label)


def is_data_cell(text: str) -> bool:
    """A body value: a number (not a year heading such as "2021年") or a nil dash."""
    flat = nfkc(text).strip()
    if not flat or _PERIOD_LIKE.match(flat):
        return False
    return is_dash(flat) or parse_quantity(flat) is not None


def _states_unit(text: str) -> bool:
    """A cell that states the table's unit ("（単位：百万円）", "单位：元"), not a column's ("（％）")."""
    return is_unit_statement(text) and bool(_UNIT_WORDS.search(text))


def _find_header_rows(rows: list[list[GridCell]]) -> int:
    """Leading rows that label the columns: those before the first row holding a number.

    Below the first row, a row only continues the header when it does not
    start a row label of its own (its first cell is empty, spans down from
    above, or is a header word such as 区分) or when it holds only period
    labels (決算年月 | 2016年3月 | ...); otherwise it is the first body row of
    a table that mixes words and numbers (【本店の所在の場所】 | 大阪府…).
    """
    width = len(rows[0]) if rows else 0
    first = next((i for i, row in enumerate(rows) if any(is_data_cell(cell.text) for cell in row)), None)
    if (
        first is not None
        and 0 < first <= MAX_HEADER_ROWS
        and _only_figures(rows[first])
        and all(any(cell.text for cell in row[1:]) for row in rows[:first])
    ):
        # a row of figures alone under rows of words across the columns (女性労働者の割合 | … / 2.6 | 57.1): all
        # header; a row of a label alone (流動項目) still opens the body
        return first
    for i, row in enumerate(rows):
        if any(is_data_cell(cell.text) for cell in row[1:]):
            if i <= MAX_HEADER_ROWS:
                return i
            break
        if not any(cell.text for cell in row[1:]):
            return i  # a label-only row ("流动资产：") opens the body
        if i > 0 and not _continues_header(row, rows[i - 1]):
            return i
        if (
            i == 0
            and width == 2
            and not _continues_header(row, [GridCell("")])
            and not (find_unit(row[1].text) and len(rows) > 1 and is_data_cell(rows[1][1].text))
        ):
            # A two-column table starting with a key and its value has no header; one whose second column is
            # headed by a unit over numbers (セグメントの名称 | 研究開発費（億円）) has.
            return 0
    else:
        # A table without numbers: a header row only where there are several columns to label.
        return 1 if width >= 3 and len(rows) > 1 else 0
    return 1 if width >= 3 else 0


def _only_figures(row: list[GridCell]) -> bool:
    """A row of figures and nil dashes only: no row label, no words."""
    return all(is_data_cell(cell.text) for cell in row if cell.text)


def _label_span(body: list[list[GridCell]], labels: list[str]) -> int:
    """How many leading columns hold the row label: statements indent their labels by putting them in
    narrower or wider leading columns (資産の部 in the first, 流動資産 in the second, 現金及び預金 in the
    third), one label a row, none of these columns holding a value or a header of its own."""
    span = 1
    while span < len(labels) - 1 and labels[span] in ("", labels[0]):
        column = [row[span].text for row in body]
        if any(is_data_cell(text) for text in column):
            break
        if any(text and any(c.text for c in row[:span]) for text, row in zip(column, body)):
            break  # two texts in one row: a column of its own (役職名 | 氏名)
        span += 1
    return span


def _continues_header(row: list[GridCell], above: list[GridCell]) -> bool:
    label = row[0].text
    if _indented_label(row, above):
        return False
    if not label or label == above[0].text or _HEADER_WORDS.match(label.replace(" ", "")):
        return True
    values = [c.text for c in row[1:] if c.text]
    return all(
        explicit_year(v) is not None
        or CURRENT_PERIOD.search(v)
        or PRIOR_PERIOD.search(v)
        or _NTH_PERIOD.match(v)
        for v in values
    )


def _indented_label(row: list[GridCell], above: list[GridCell]) -> bool:
    """A row whose only text stands left of every column the header above labels is a row label indented
    into the leading columns (無形固定資産 opening the second part of a balance sheet split over two tables),
    not a header: a header row labels columns the header above it stands over or beside."""
    headed = [j for j, cell in enumerate(above) if cell.text]
    texts = [j for j, cell in enumerate(row) if cell.text]
    return bool(headed and texts) and max(texts) < min(headed)


def _flatten(parts: list[str]) -> str:
    kept: list[str] = []
    for part in parts:
        if part and (not kept or kept[-1] != part):
            kept.append(part)
    return "/".join(kept)


def build_table(
    grid: list[list[GridCell]],
    table_id: str,
    page: int,
    title: str = "",
    titles: tuple[str, ...] = (),
    unit: str = "",
    with_ids: bool = False,
) -> Table | None:
    """A Table from a span-expanded grid, or None when fewer than two rows or columns hold text."""
    rows = _filled_rows(grid)
    if rows is None:
        return None
    rows, title, unit = _lead_rows(rows, title, unit)
    if not rows:
        return None
    header_rows = _find_header_rows(rows)
    labels, unit = _header_labels(rows, header_rows, unit)
    columns, seen = [], set()
    for j, label in enumerate(labels):
        name = label or f"#{j}"
        if name in seen:
            name = f"{label}#{j}"
        seen.add(name)
        columns.append(name)

    body = rows[header_rows:]
    if not body:
        return None
    # Row labels (first column) repeat over the rows their merged cell spans; values are read once.
    shown = [
        [c if (j == 0 or c.origin) else GridCell("", "", False) for j, c in enumerate(row)] for row in body
    ]
    span = _label_span(shown, labels)
    if span > 1:
        shown = [[next((c for c in row[:span] if c.text), row[0]), *row[span:]] for row in shown]
        columns = [columns[0], *columns[span:]]
    frame = pd.DataFrame([[c.text for c in row] for row in shown], columns=columns, dtype=object)
    frame.attrs["header_rows"] = header_rows
    cell_ids = None
    if with_ids:
        cell_ids = pd.DataFrame([[c.cell_id for c in row] for row in shown], columns=columns, dtype=object)
    return Table(
        table_id=table_id,
        page=page,
        frame=frame,
        title=title,
        titles=tuple(titles),
        cell_ids=cell_ids,
        unit=unit,
    )


def _filled_rows(grid: list[list[GridCell]]) -> list[list[GridCell]] | None:
    """The grid's cells cleaned, its rows padded to one width, without the rows and columns that hold no text;
    None when fewer than two of either are left."""
    width = max((len(row) for row in grid), default=0)
    rows = [
        [GridCell(clean_cell(c.text), c.cell_id, c.origin) for c in row]
        + [GridCell("", "", False)] * (width - len(row))
        for row in grid
    ]
    rows = [row for row in rows if any(c.text for c in row)]
    keep = [j for j in range(width) if any(row[j].text for row in rows)]
    if len(keep) < 2 or len(rows) < 2:
        return None
    return [[row[j] for j in keep] for row in rows]


def _lead_rows(rows: list[list[GridCell]], title: str, unit: str) -> tuple[list[list[GridCell]], str, str]:
    """The rows without what is printed above the first data row as the table's unit or title; with that title
    and unit.

    Unit statements ("（単位：百万円）") become Table.unit, and rows holding one text only ("前連結会計年度",
    "合并资产负债表") before the header become the title.
    """
    body_start = next(
        (i for i, row in enumerate(rows) if any(is_data_cell(c.text) for c in row[1:])), len(rows)
    )
    kept_rows: list[list[GridCell]] = []
    for i, row in enumerate(rows):
        if i < body_start:
            stated = [c.text for c in row if c.text and _states_unit(c.text)]
            if stated:
                unit = find_unit(stated[0]) or unit
                row = [GridCell("", "", False) if _states_unit(c.text) else c for c in row]
            texts = {c.text for c in row if c.text}
            if not texts:
                continue
            if all(is_unit_statement(t) for t in texts):
                unit = find_unit(next(iter(texts))) or unit
                continue
            last = max(j for j, c in enumerate(row) if c.text)
            if (
                not kept_rows
                and last == len(row) - 1
                and len(texts) > 1
                and is_unit_statement(row[last].text)
            ):
                # "（百万円）" alone in the top right-hand corner states the table's unit.
                unit = find_unit(row[last].text) or unit
                row = row[:last] + [GridCell("", "", False)]
                texts = {c.text for c in row if c.text}
            lone = next(iter(texts)) if len(texts) == 1 else ""
            dateline = lone and not row[0].text and explicit_year(lone) is not None  # "2020年3月31日現在"
            if (
                lone
                and (row[0].text or all(c.text for c in row) or dateline)
                and not kept_rows
                and i + 1 < body_start
            ):
                title = f"{title} {lone}" if title and lone not in title else lone
                continue
        kept_rows.append(row)
    return kept_rows, title, unit


def _header_labels(rows: list[list[GridCell]], header_rows: int, unit: str) -> tuple[list[str], str]:
    """Each column's label from the header rows' texts (parts joined by "/"), and the table's unit, which a unit
    statement in the label column's header gives when nothing above the table did."""
    labels = []
    for j in range(len(rows[0])):
        parts = [rows[i][j].text for i in range(header_rows)]
        if j == 0:
            stated = [p for p in parts if is_unit_statement(p)]
            if stated:
                unit = unit or find_unit(stated[0])
                parts = [p for p in parts if not is_unit_statement(p)]
        labels.append(_flatten(parts))
    return labels, unit


# ---- PDF ----------------------------------------------------------------------------------------


def find_pdf_tables(page, page_no: int, settings: ParseSettings) -> list[tuple[tuple, Table]]:
    """The ruled tables on a pdfplumber page, top to bottom, as (bbox, Table); ids "p{page}t{n}".

    `settings` is the parse configuration (no table option in it yet; the
    table finder's own settings are PDF_TABLE_SETTINGS).
    """
    found = []
    plumber_tables = sorted(page.find_tables(PDF_TABLE_SETTINGS), key=lambda t: (t.bbox[1], t.bbox[0]))
    for plumber_table in plumber_tables:
        grid = _pdf_grid(plumber_table)
        if grid is None:
            continue
        bbox = tuple(plumber_table.bbox)
        title, unit = pdf_caption(page, bbox)
        table = build_table(grid, f"p{page_no}t{len(found) + 1}", page_no, title=title, unit=unit)
        if table is None or table.frame.attrs["header_rows"] + len(table.frame) < 2:
            continue  # a box around one line (a column-heading strip, a framed note) is text
        table.frame.attrs.update(bbox=bbox, page_height=float(page.height))
        found.append((bbox, table))
    return found


def _pdf_grid(plumber_table) -> list[list[GridCell]] | None:
    """pdfplumber's cells placed on the grid of their distinct edges, spans expanded.

    Statements ruled only around blocks of rows (common in Taiwanese reports)
    come out as one cell holding a column of stacked lines; such a row is cut
    into one row per text line (`_split_stacked`).
    """
    cells = plumber_table.cells
    if not cells:
        return None
    xs = sorted({round(c[0], 1) for c in cells})
    tops = sorted({round(c[1], 1) for c in cells})
    if len(xs) < 2 or len(tops) < 2:
        return None
    texts = _cell_texts(plumber_table)
    grid: list[list[GridCell | None]] = [[None] * len(xs) for _ in tops]
    origins: list[list[tuple[int, tuple, int]]] = [[] for _ in tops]  # per row: cells starting there
    block_end = list(range(len(tops)))  # rows a merged cell ties together form one block
    for row, row_texts in zip(plumber_table.rows, texts):
        for cell_bbox, text in zip(row.cells, row_texts):
            if cell_bbox is None:
                continue
            x0, top, x1, bottom = cell_bbox
            c0 = xs.index(round(x0, 1))
            r0 = tops.index(round(top, 1))
            col_span = [c for c in range(c0, len(xs)) if xs[c] < x1 - 0.5]
            row_span = [i for i in range(r0, len(tops)) if tops[i] < bottom - 0.5]
            block_end[r0] = max(block_end[r0], row_span[-1])
            for i in row_span:
                for c in col_span:
                    grid[i][c] = GridCell(text or "", "", origin=(i == r0 and c == c0))
            origins[r0].append((c0, cell_bbox, len(col_span)))
    filled = [[cell or GridCell("", "", False) for cell in row] for row in grid]
    out: list[list[GridCell]] = []
    start = 0
    while start < len(tops):
        end = block_end[start]
        i = start
        while i <= end:  # a block grows while its rows' merged cells reach further down
            end = max(end, block_end[i])
            i += 1
        rows = filled[start : end + 1]
        stacked = any(len((c.text or "").splitlines()) > 1 for row in rows for c in row if c.origin)
        split = None
        if stacked:
            split = _split_stacked(
                plumber_table.page, [o for r in range(start, end + 1) for o in origins[r]], len(xs)
            )
        out += split or rows
        start = end + 1
    return out


def _cell_texts(plumber_table) -> list[list[str | None]]:
    """`plumber_table.extract()`: each cell's text from the characters whose centre lies in it, in page order.

    pdfplumber tests every character of the page against every row of the
    table; here a row takes the characters of its band from a list sorted by
    their vertical centre, with the same half-open bounds.
    """
    chars = plumber_table.page.chars
    middles = sorted(((c["top"] + c["bottom"]) / 2, i) for i, c in enumerate(chars))
    keys = [middle for middle, _ in middles]
    texts = []
    for row in plumber_table.rows:
        x0, top, x1, bottom = row.bbox
        band = sorted(i for _, i in middles[bisect.bisect_left(keys, top) : bisect.bisect_left(keys, bottom)])
        row_chars = [chars[i] for i in band if x0 <= (chars[i]["x0"] + chars[i]["x1"]) / 2 < x1]
        row_texts: list[str | None] = []
        for cell in row.cells:
            if cell is None:
                row_texts.append(None)
                continue
            cell_chars = [
                c
                for c in row_chars
                if cell[0] <= (c["x0"] + c["x1"]) / 2 < cell[2]
                and cell[1] <= (c["top"] + c["bottom"]) / 2 < cell[3]
            ]
            row_texts.append(extract_text(cell_chars) if cell_chars else "")
        texts.append(row_texts)
    return texts


ACCOUNT_CODE = re.compile(r"^[0-9][0-9X]{3}$")  # an account code ("4000", "11XX") before a label


def _split_stacked(page, origins: list[tuple[int, tuple, int]], width: int) -> list[list[GridCell]] | None:
    """One grid row per text line of a block of cells holding stacked lines; None unless two lines hold values.

    A line without values whose label starts no further left than the next
    line's is the first half of a wrapped label ("透過損益按公允價值衡量之" /
    "金融資產－流動  1,404,647") and is joined to it; a less indented one is a
    section heading ("流動資產") and stays a row of its own.
    """
    bands = _line_bands(_stacked_lines(page, origins))
    if len(bands) < 2:
        return None
    rows = [_band_row(band, width) for band in bands]
    if sum(1 for _, _, has_values in rows if has_values) < 2:
        return None  # one row of values with a wrapped label: the ruled row was right
    return _join_wrapped_labels(rows)


def _stacked_lines(page, origins: list[tuple[int, tuple, int]]) -> list[tuple[int, int, dict]]:
    """The text lines of each cell of the block, as (column, colspan, line)."""
    placed = []
    if not origins:
        return placed
    # Cells are cut from the block, not from the whole page: each crop scans only the block's characters.
    block = cropped_chars(
        page.chars,
        (
            min(b[0] for _, b, _ in origins),
            min(b[1] for _, b, _ in origins),
            max(b[2] for _, b, _ in origins),
            max(b[3] for _, b, _ in origins),
        ),
    )
    for column, bbox, colspan in origins:
        for line in text_lines(cropped_chars(block, bbox), bbox):
            if line["text"].strip():
                placed.append((column, colspan, line))
    return placed


def _line_bands(placed: list[tuple[int, int, dict]]) -> list[list[tuple[int, int, dict]]]:
    """The lines grouped top to bottom into bands of lines that overlap vertically: one band, one row."""
    placed = sorted(placed, key=lambda item: item[2]["top"])
    bands: list[list] = []
    bottom = None
    for item in placed:
        line = item[2]
        if bottom is None or line["top"] >= bottom - 1:
            bands.append([])
            bottom = line["bottom"]
        else:
            bottom = max(bottom, line["bottom"])
        bands[-1].append(item)
    return bands


def _band_row(band: list[tuple[int, int, dict]], width: int) -> tuple[list[GridCell], float | None, bool]:
    """A band's grid row, where its label starts (None: no label), and whether it holds values."""
    texts: dict[int, list[str]] = {}
    spans: dict[int, int] = {}
    label_x = None
    for column, colspan, line in sorted(band, key=lambda item: item[2]["x0"]):
        texts.setdefault(column, []).append(line["text"])
        spans[column] = colspan
        if (
            label_x is None
            and re.search(f"[{_CJK}A-Za-z]", line["text"])
            and not ACCOUNT_CODE.match(line["text"])
        ):
            label_x = line["x0"]
    row = [GridCell("", "", False)] * width
    for column, parts in texts.items():
        text = clean_cell("\n".join(parts))
        for offset in range(spans[column]):
            if column + offset < width:
                row[column + offset] = GridCell(text, "", origin=offset == 0)
    has_values = any(c.origin and not ACCOUNT_CODE.match(c.text) and is_data_cell(c.text) for c in row)
    return row, label_x, has_values


def _join_wrapped_labels(rows: list[tuple[list[GridCell], float | None, bool]]) -> list[list[GridCell]]:
    """The rows with a value-less line joined to the row of values below it when it is the first half of that
    row's wrapped label (it starts no further left than the label)."""
    merged: list[list[GridCell]] = []
    pending = None  # a value-less line that may be the first half of a wrapped label
    for row, label_x, has_values in rows:
        if pending is not None:
            first, first_x = pending
            pending = None
            if has_values and label_x is not None and first_x is not None and first_x >= label_x - 2:
                row = [
                    GridCell(
                        clean_cell(f"{a.text}\n{b.text}") if (a.text or b.text) else "",
                        "",
                        a.origin or b.origin,
                    )
                    for a, b in zip(first, row)
                ]
            else:
                merged.append(first)
        if not has_values and label_x is not None:
            pending = (row, label_x)
        else:
            merged.append(row)
    if pending is not None:
        merged.append(pending[0])
    return merged


def cropped_chars(chars: list[dict], bbox: tuple) -> list[dict]:
    """The characters of `page.crop(bbox, strict=False)`: those touching `bbox`, clipped to it.

    A crop clips (copies) every object it touches, rectangles too, hundreds on
    a statement page; lines of text need only the characters, and a cheap
    bounds test first leaves the clipping to the few that cross the box's edge (a character inside is
    kept as it is: its clipped copy would hold the same box; the copy's width and height are not read).
    """
    x0, top, x1, bottom = bbox
    cropped = []
    for c in chars:
        if c["x1"] < x0 or c["x0"] > x1 or c["bottom"] < top or c["top"] > bottom:
            continue
        if (
            x0 <= c["x0"]
            and c["x1"] <= x1
            and top <= c["top"]
            and c["bottom"] <= bottom
            and c["x1"] - c["x0"] + c["bottom"] - c["top"] > 0
        ):
            cropped.append(c)  # inside: clipping would copy it unchanged (the lines read no width or height)
        else:
            cropped += crop_to_bbox([c], bbox)
    return cropped


def text_lines(chars: list[dict], bbox: tuple) -> list[dict]:
    """`extract_text_lines(strip=True, return_chars=False)` of a page cropped to `bbox`, holding `chars`."""
    x0, top, x1, bottom = bbox
    textmap = chars_to_textmap(chars, layout_bbox=bbox, layout_width=x1 - x0, layout_height=bottom - top)
    return textmap.extract_text_lines(strip=True, return_chars=False)


def centre_inside(obj: dict, bbox: tuple) -> bool:
    """A pdfplumber character or word lies in `bbox` (x0, top, x1, bottom) when its centre does."""
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return bbox[0] <= x <= bbox[2] and bbox[1] <= y <= bbox[3]


def pdf_caption(page, bbox: tuple) -> tuple[str, str]:
    """Title and unit (nearest unit statement above) of a PDF table.

    The title is the nearest short line above that is not a unit, a date or year
    line ("2024年12月31日", "2024年度": the period, not what the table is) or an
    aside; lines are read upward while each is within CAPTION_GAP of the one
    below it, so a unit and a date line between the title and the table do not
    push the title out of reach.
    """
    top = bbox[1]
    if top <= 1:
        return "", ""
    above = (0, 0, float(page.width), top)
    lines = [
        (line["top"], line["bottom"], clean_cell(line["text"]))
        for line in text_lines(cropped_chars(page.chars, above), above)
    ]
    lines = [line for line in lines if line[2]]
    unit = next((find_unit(text) for _, _, text in reversed(lines) if find_unit(text)), "")
    title, below = "", top
    for line_top, line_bottom, text in reversed(lines):
        if below - line_bottom > CAPTION_GAP:
            break
        below = line_top
        if (
            not find_unit(text)
            and len(text) <= 60
            and not ASIDE.match(text)
            and iso_date(text) is None
            and not _PERIOD_LIKE.match(text)
        ):
            title = text
            break
    return title, unit


def merge_continued(tables: list[Table]) -> list[Table]:
    """Tables in document order, with each table that runs on over a page break joined to its start.

    B continues A when B is the first table on the page after A's last page and
    starts near its top, A is the last table on its page and ends near the
    bottom, both have the same number of columns, and B has no header row of
    its own or repeats A's.
    """
    merged: list[Table] = []
    for i, table in enumerate(tables):
        previous = merged[-1] if merged else None
        first_on_page = i == 0 or tables[i - 1].page != table.page
        if previous is not None and first_on_page and _continues(previous, table):
            merged[-1] = _join(previous, table)
        else:
            merged.append(table)
    return merged


def _continues(before: Table, after: Table) -> bool:
    if not runs_on(before, after) or len(before.frame.columns) != len(after.frame.columns):
        return False
    no_header = after.frame.attrs.get("header_rows", 0) == 0
    return no_header or list(after.frame.columns) == list(before.frame.columns)


def runs_on(before: Table, after: Table) -> bool:
    """Whether `after` may go on with `before` over a page break by where they stand: it is on the page after
    `before`'s last one, starts near its top, and `before` ends near the bottom of its page (the caller knows
    they are each the last and first table of their pages)."""
    attrs_b, attrs_a = before.frame.attrs, after.frame.attrs
    end_page = attrs_b.get("end_page", before.page)
    if after.page != end_page + 1 or "bbox" not in attrs_a or "bbox" not in attrs_b:
        return False
    height_a = attrs_a.get("page_height") or 0
    height_b = attrs_b.get("page_height") or 0
    end_bottom = attrs_b.get("end_bottom", attrs_b["bbox"][3])
    if not height_a or not height_b:
        return False
    return attrs_a["bbox"][1] <= CONTINUED_TOP * height_a and end_bottom >= CONTINUED_BOTTOM * height_b


def _join(before: Table, after: Table) -> Table:
    rows_after = after.frame.copy()
    rows_after.columns = before.frame.columns
    frame = pd.concat([before.frame, rows_after], ignore_index=True)
    row_pages = list(before.frame.attrs.get("row_pages", [before.page] * len(before.frame)))
    row_pages += [after.page] * len(after.frame)
    frame.attrs = dict(before.frame.attrs)
    frame.attrs.update(row_pages=row_pages, end_page=after.page, end_bottom=after.frame.attrs["bbox"][3])
    cell_ids = None
    if before.cell_ids is not None and after.cell_ids is not None:
        ids_after = after.cell_ids.copy()
        ids_after.columns = before.cell_ids.columns
        cell_ids = pd.concat([before.cell_ids, ids_after], ignore_index=True)
    return Table(
        table_id=before.table_id,
        page=before.page,
        frame=frame,
        title=before.title,
        titles=before.titles,
        cell_ids=cell_ids,
        unit=before.unit or after.unit,
    )
