"""Excel workbooks: the tables of a parsed document, and facts workbooks users supply.

>>> write_tables_workbook(document.table_list, Path("index/tables/finance/12.xlsx"))
>>> doc = read_facts_workbook(Path("corpus/facts/2019.xlsx"), "facts/2019")
>>> doc.facts[0].field, doc.facts[0].value, doc.reports[0].year
('研发费用', '241986307.9', 2019)

A facts workbook (.xlsx, or one .csv) has one row per value with the columns
company, year, field, value and optionally unit, short_name, code, source,
page. Every sheet but `reports` holds facts. The optional sheet `reports`
(company, short_name, code, year) lists the company-years the workbook
covers - the basis of "no such report" answers; without it the company-years
of the facts are taken. A bad row (empty value, unknown unit, no year ...) is
left out and listed in `ParsedDocument.rejected` as "file:row: sheet: reason"
(the spreadsheet's row number); the good rows are kept. A file with no good
row, or with a missing column, is an InputError naming file, sheet and row.

Field names pass through `field_names` (the ingest gives rules/fields.yaml's
canonical names: 硕士员工人数 is stored as 硕士), so a workbook's wording is
read like a question's.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import numbers
import re
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import xlsxwriter
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from core.errors import InputError
from core.folding import nfkc
from core.records import DocumentMeta, Fact, ParsedDocument, ReportYear, Table
from core.rulebook import pattern_per_book
from core.units import find_unit, is_dash, parentheses_negative, parse_quantity, plain, scale_of
from core.vocabulary import vocabulary
from parser.settings import EXCEL_CELL_CHARS, TableLimits

INDEX_SHEET = "index"
FACTS_SHEET = "facts"
FACTS_SHEET_COLUMNS = (
    "company",
    "year",
    "field",
    "value",
    "unit",
    "raw",
    "period",
    "page",
    "table",
    "cell_id",
)
REPORTS_SHEET = "reports"
FACT_COLUMNS = ("company", "year", "field", "value")
OPTIONAL_FACT_COLUMNS = ("unit", "short_name", "code", "source", "page")
REPORT_COLUMNS = ("company", "year")
OPTIONAL_REPORT_COLUMNS = ("short_name", "code")
_SHEET_NAME_MAX = 31  # Excel's limit
_RESERVED_SHEET = "history"  # a name Excel keeps for itself
_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\]")
_YEAR = pattern_per_book(lambda: re.compile(vocabulary("numbers")["year_cell"]))  # rules/numbers.yaml
CSV_ENCODINGS = ("utf-8-sig", "gb18030", "big5", "cp932")


def write_tables_workbook(
    tables: list[Table], path: Path, facts: Sequence[Fact] = (), language: str = ""
) -> None:
    """One sheet per table (named after its id, e.g. "p12t1"), an index sheet listing them (with each table's
    title, heading path, unit, statement kind and scope, and a link to its sheet), and a `facts` sheet.

    A cell that holds only a number (1,234.50, (1,234), △ 4,187) is stored as that number, shown as printed
    (an Excel number format with its decimals and its negative form), so it sums and sorts; the header row of
    every sheet stays in view (frozen panes). `language` is the document's: in a Japanese one (1,234) is a
    secondary figure, stored as 1234 and shown in its parentheses (core.units.parentheses_negative).

    Written by xlsxwriter, in memory, row by row: about half the time of openpyxl's write-only mode, which
    builds a cell object for each value of a row holding a number and writes each sheet to a temporary file
    (openpyxl reads the workbooks). Time is linear in the number of tables and cells.
    """
    used: set[str] = {INDEX_SHEET, FACTS_SHEET, _RESERVED_SHEET}
    named = []
    for table in tables:
        name = _sheet_name(table.table_id, used)
        used.add(name.lower())
        named.append((name, table))
    book = _TablesBook(path)
    _write_index_sheet(book, named)
    for name, table in named:
        _write_table_sheet(book, name, table, language)
    _write_facts_sheet(book, facts)
    book.close()


class _TablesBook:
    """An xlsxwriter workbook whose sheets keep their first row in view, with one format per number format."""

    def __init__(self, path: Path):
        self.book = xlsxwriter.Workbook(str(path), {"in_memory": True})
        self._formats: dict[str, object] = {}

    def sheet(self, name: str, header: Sequence):
        sheet = self.book.add_worksheet(name)
        sheet.freeze_panes(1, 0)
        for column, value in enumerate(header):
            _write(sheet, 0, column, value)
        return sheet

    def number_format(self, shown: str):
        """The cell format showing a number as `shown` (_printed_format), added to the workbook once."""
        cell_format = self._formats.get(shown)
        if cell_format is None:
            cell_format = self._formats[shown] = self.book.add_format({"num_format": shown})
        return cell_format

    def close(self) -> None:
        self.book.close()


def _write_index_sheet(book: _TablesBook, named: list[tuple[str, Table]]) -> None:
    """The index sheet: one row per table, its sheet's name a link to the sheet."""
    index = book.sheet(
        INDEX_SHEET,
        ["sheet", "table_id", "page", "title", "headings", "unit", "statement", "scope", "rows", "columns"],
    )
    for row, (name, table) in enumerate(named, start=1):
        index.write_url(row, 0, f"internal:'{name}'!A1", string=name)  # the sheet name opens the table
        values = (
            table.table_id,
            table.page,
            table.title,
            " > ".join(table.titles),
            table.unit,
            table.statement,
            table.scope,
            len(table.frame),
            len(table.frame.columns),
        )
        for column, value in enumerate(values, start=1):
            _write(index, row, column, value)


def _write_table_sheet(book: _TablesBook, name: str, table: Table, language: str) -> None:
    """A table's sheet: its column labels, then its rows, numbers stored as numbers shown as printed."""
    sheet = book.sheet(name, [str(c) for c in table.frame.columns])
    bracketed_negative = parentheses_negative(
        language,
        table.frame.values.ravel(),
        (table.unit, *(find_unit(str(c)) for c in table.frame.columns)),
    )
    for row, values in enumerate(table.frame.values.tolist(), start=1):  # plain lists: itertuples is slower
        for column, value in enumerate(values):
            printed = _printed_number(value, bracketed_negative) if isinstance(value, str) else None
            if printed is None:
                _write(sheet, row, column, value)
            else:
                sheet.write_number(row, column, printed[0], book.number_format(printed[1]))


def _write_facts_sheet(book: _TablesBook, facts: Sequence[Fact]) -> None:
    """The facts sheet: one row per fact, its value a number when it is one."""
    sheet = book.sheet(FACTS_SHEET, FACTS_SHEET_COLUMNS)
    for row, fact in enumerate(facts, start=1):
        values = (
            fact.company,
            fact.year,
            fact.field,
            _fact_number(fact),
            fact.unit,
            fact.raw,
            fact.period,
            fact.page,
            fact.table,
            fact.cell_id,
        )
        for column, value in enumerate(values):
            _write(sheet, row, column, value)


def _fact_number(fact: Fact) -> int | float | str:
    """A fact's value as a number when it is one (scaled as the facts store holds it), else its text."""
    if fact.number is None:
        return fact.value
    return int(fact.number) if fact.number == fact.number.to_integral_value() else float(fact.number)


def _printed_number(value: str, bracketed_negative: bool = True) -> tuple[int | float, str] | None:
    """A table cell's number and the format that shows it as printed, when the cell holds only a number."""
    quantity = parse_quantity(value, "", parentheses_negative=bracketed_negative)
    # only a number: no unit, and every printed digit is the number's (a note mark ※1 is not)
    if quantity is None or quantity.unit or _digits(value) != _digits(plain(abs(quantity.number))):
        return None
    number = quantity.number
    stored = int(number) if number == number.to_integral_value() else float(number)
    return stored, _printed_format(nfkc(value).strip(), number < 0)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", nfkc(text)).strip("0")  # 1,234.50 prints the digits of 1234.5


def _printed_format(printed: str, negative: bool) -> str:
    """The Excel number format that shows a number as `printed` did: separators, decimals, negative form."""
    decimals = len(printed.rsplit(".", 1)[1].rstrip(")").strip()) if "." in printed else 0
    shape = ("#,##0" if "," in printed else "0") + ("." + "0" * decimals if decimals else "")
    if not negative:
        return f"({shape})" if printed.startswith("(") and printed.endswith(")") else shape
    mark = printed[0]
    if printed.endswith(")"):
        return f"{shape};({shape})"
    return f'{shape};"{mark}"{shape}' if mark != "-" else shape


def _write(sheet, row: int, column: int, value) -> None:
    """A value as Excel can store it: text without control characters, at most the characters a cell holds (a
    long heading path too), and never a formula ("=…" is text); no cell for nothing, an empty text or a
    number Excel cannot hold (NaN, infinite)."""
    if type(value) is str:  # most values: tested first
        text = ILLEGAL_CHARACTERS_RE.sub("", value[:EXCEL_CELL_CHARS])
        if text:
            sheet.write_string(row, column, text)
        return
    if value is None:
        return
    if hasattr(value, "item"):
        value = value.item()  # a numpy number
    if isinstance(value, str):
        _write(sheet, row, column, str(value))  # a str subclass (numpy's) as the str it is
    elif isinstance(value, bool):
        sheet.write_boolean(row, column, value)
    elif isinstance(value, numbers.Number) and math.isfinite(value):
        sheet.write_number(row, column, value)


def _sheet_name(table_id: str, used: set[str]) -> str:
    """A sheet name for the table, unique among `used` (lower-case names, as Excel compares them), as Excel
    allows them: at most 31 UTF-16 code units, none of []:*?/\\, no apostrophe at either end."""
    base = _BAD_SHEET_CHARS.sub("_", table_id)
    name = _name_end(base, _SHEET_NAME_MAX)  # the end of a long id (…-tab89) says most
    n = 2
    while name.lower() in used:
        suffix = f"~{n}"
        name = _name_end(base, _SHEET_NAME_MAX - len(suffix)) + suffix
        n += 1
    return name


def _name_end(text: str, units: int) -> str:
    """The end of `text` in at most `units` UTF-16 code units (a character outside the BMP takes two), without
    apostrophes at its ends; "table" when nothing is left."""
    end = text.strip("'")[-units:]
    while len(end.encode("utf-16-le")) > 2 * units:
        end = end[1:]
    return end.strip("'") or "table"


def read_tables_workbook(path: Path) -> dict[str, pd.DataFrame]:
    """The tables of a workbook written by `write_tables_workbook`, by table id."""
    sheets = pd.read_excel(path, sheet_name=None, dtype=str, keep_default_na=False)
    index = sheets.pop(INDEX_SHEET)
    return {row["table_id"]: sheets[row["sheet"]] for _, row in index.iterrows()}


def read_facts_workbook(
    path: Path,
    doc_id: str,
    field_names: Callable[[str], str | None] | None = None,
    limits: TableLimits | None = None,
) -> ParsedDocument:
    """Facts (and covered company-years) from a user's .xlsx/.csv; bad rows are left out and listed in
    `rejected`; InputError naming file, sheet and row when no row is usable.

    `field_names(written)` gives the name to store a field under (None: as written). `limits` (a cell, a row,
    the columns, the expanded file): a row over a limit is rejected, a file over one fails."""
    path = Path(path)
    limits = limits or TableLimits()
    rejected: list[InputError] = []
    sheets = _read_sheets(path, rejected, limits)
    facts: list[Fact] = []
    reports: list[ReportYear] = []
    report_sheet = next((name for name in sheets if name.strip().lower() == REPORTS_SHEET), None)
    for name, frame in sheets.items():
        if name == report_sheet:
            reports = _reports(frame, path, name, doc_id, rejected, limits)
        else:
            facts += _facts(frame, path, name, doc_id, rejected, limits)
    if rejected and not facts:
        more = f" (and {len(rejected) - 1} more bad rows)" if len(rejected) > 1 else ""
        raise InputError(f"{_message(rejected[0])}{more}; no usable row", str(path), rejected[0].line)
    if field_names is not None:
        facts = [dataclasses.replace(f, field=field_names(f.field) or f.field) for f in facts]
    if report_sheet is None:
        seen = {}
        for fact in facts:
            seen.setdefault(
                (fact.company, fact.year),
                ReportYear(fact.company, fact.year, fact.short_name, fact.code, doc_id),
            )
        reports = list(seen.values())
    companies = {f.company for f in facts} | {r.company for r in reports}
    years = {f.year for f in facts} | {r.year for r in reports}
    meta = DocumentMeta(
        doc_id,
        company=next(iter(companies)) if len(companies) == 1 else "",
        year=next(iter(years)) if len(years) == 1 else None,
    )
    return ParsedDocument(
        meta=meta,
        facts=facts,
        reports=reports,
        rejected=[str(e) for e in rejected],
        warnings=conflicting_facts(facts, path),
    )


def _message(error: InputError) -> str:
    """The reason of an InputError without its file:line prefix."""
    return str(error).split(": ", 1)[1] if error.path else str(error)


def conflicting_facts(facts: list[Fact], path: Path) -> list[str]:
    """One line per fact that repeats an earlier (company, year, field) with another value, naming both rows."""
    first: dict[tuple, Fact] = {}
    conflicts = []
    for fact in facts:
        earlier = first.setdefault((fact.company, fact.year, fact.field), fact)
        if earlier is not fact and (earlier.value, earlier.unit) != (fact.value, fact.unit):
            conflicts.append(
                f"conflicting duplicate facts for {fact.company} {fact.year} {fact.field}: "
                f"{_row_of(earlier, path)} says {earlier.raw!r}, {_row_of(fact, path)} says {fact.raw!r}"
            )
    return conflicts


def _row_of(fact: Fact, path: Path) -> str:
    """`file:row` of a fact read from a workbook (its cell_id is "sheet!row"), with the sheet when there is one."""
    sheet, _, line = fact.cell_id.rpartition("!")
    return f"{path}:{line}" + (f" (sheet {sheet!r})" if sheet and sheet != "csv" else "")


def _read_sheets(path: Path, rejected: list[InputError], limits: TableLimits) -> dict[str, pd.DataFrame]:
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            data = path.read_bytes()
            for encoding in CSV_ENCODINGS:
                try:
                    data.decode(encoding)
                except UnicodeDecodeError:
                    continue
                frame = pd.read_csv(
                    io.StringIO(_bounded_lines(data.decode(encoding), path, rejected, limits)),
                    dtype=str,
                    keep_default_na=False,
                    skipinitialspace=True,
                )
                return {"": frame}
            raise InputError(
                f"cannot decode the text as {'/'.join(CSV_ENCODINGS)}; save it as UTF-8", str(path)
            )
        if suffix in (".xlsx", ".xlsm"):
            with zipfile.ZipFile(path) as archive:  # checked before anything is expanded
                expanded = sum(member.file_size for member in archive.infolist())
            if expanded > limits.expanded_bytes:
                raise InputError(
                    f"expands to {expanded / 1e6:,.0f} MB, more than the {limits.expanded_bytes / 1e6:,.0f} "
                    "MB a facts workbook may",
                    str(path),
                )
            return pd.read_excel(path, sheet_name=None, dtype=str, keep_default_na=False)
    except InputError:
        raise
    except (OSError, ValueError, KeyError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(
            f"cannot read the workbook: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            str(path),
        ) from None
    except Exception as exc:  # openpyxl raises zipfile/XML errors of many types on damaged files
        raise InputError(f"damaged workbook ({type(exc).__name__})", str(path)) from None
    raise InputError(
        f"not a facts workbook: expected .xlsx or .csv, got {suffix or 'no extension'}", str(path)
    )


def _bounded_lines(text: str, path: Path, rejected: list[InputError], limits: TableLimits) -> str:
    """The CSV's text with each line over `limits.row_chars` blanked (an empty row, so later rows keep their numbers)
    and added to `rejected`; InputError when the header is such a line or has too many columns."""
    lines = text.splitlines(keepends=True)
    if lines and (len(lines[0]) > limits.row_chars or len(next(csv.reader(lines[:1]), [])) > limits.columns):
        raise InputError(
            f"the header row has more than {limits.columns:,} columns or {limits.row_chars:,} characters: "
            "not a facts table",
            str(path),
            1,
        )
    for number, line in enumerate(lines[1:], 2):
        if len(line) > limits.row_chars:
            lines[number - 1] = "\n"
            rejected.append(InputError(f"row longer than {limits.row_chars:,} characters", str(path), number))
    return "".join(lines)


def _where(sheet: str) -> str:
    return f"sheet {sheet!r}: " if sheet else ""


def _columns(
    frame: pd.DataFrame, path: Path, sheet: str, required: tuple, optional: tuple, limits: TableLimits
) -> dict[str, str]:
    """Lower-cased column name -> the frame's column; InputError listing the missing ones."""
    if len(frame.columns) > limits.columns:
        raise InputError(
            f"{_where(sheet)}more than {limits.columns:,} columns: not a facts table", str(path), 1
        )
    found = {str(c).strip().lower(): c for c in frame.columns}
    missing = [c for c in required if c not in found]
    if missing:
        raise InputError(
            f"{_where(sheet)}missing column(s) {', '.join(missing)} "
            f"(needed: {', '.join(required)}; optional: {', '.join(optional)})",
            str(path),
            1,
        )
    return {name: found[name] for name in required + optional if name in found}


def _rows(frame: pd.DataFrame, columns: dict[str, str]):
    """(spreadsheet row number, {column: stripped text}) of each non-empty row; the header is row 1."""
    for i, (_, row) in enumerate(frame.iterrows()):
        values = {name: str(row[column]).strip() for name, column in columns.items()}
        if any(values.values()):
            yield i + 2, values


def _year(text: str, path: Path, sheet: str, line: int) -> int:
    match = _YEAR.match(nfkc(text))
    if not match:
        raise InputError(f"{_where(sheet)}year {text!r} is not a year (1900-2099)", str(path), line)
    return int(match.group(1))


def _facts(
    frame: pd.DataFrame, path: Path, sheet: str, doc_id: str, rejected: list[InputError], limits: TableLimits
) -> list[Fact]:
    columns = _columns(frame, path, sheet, FACT_COLUMNS, OPTIONAL_FACT_COLUMNS, limits)
    facts = []
    for line, row in _rows(frame, columns):
        try:
            _within_limits(row, limits, path, sheet, line)
            facts.append(_fact(row, path, sheet, doc_id, line))
        except InputError as exc:
            rejected.append(exc)
    return facts


def _within_limits(row: dict[str, str], limits: TableLimits, path: Path, sheet: str, line: int) -> None:
    """InputError when a cell or the row is longer than the limits allow (the row is rejected, never cut)."""
    for name, text in row.items():
        if len(text) > limits.cell_chars:
            raise InputError(
                f"{_where(sheet)}{name} longer than {limits.cell_chars:,} characters", str(path), line
            )
    if sum(map(len, row.values())) > limits.row_chars:
        raise InputError(f"{_where(sheet)}row longer than {limits.row_chars:,} characters", str(path), line)


def _fact(row: dict[str, str], path: Path, sheet: str, doc_id: str, line: int) -> Fact:
    for name in ("company", "field", "value"):
        if not row[name]:
            raise InputError(f"{_where(sheet)}empty {name}", str(path), line)
    year = _year(row["year"], path, sheet, line)
    unit = row.get("unit", "")
    if unit and scale_of(unit) is None:
        raise InputError(f"{_where(sheet)}unknown unit {unit!r}", str(path), line)
    page = row.get("page", "")
    if page and not re.fullmatch(r"\d+(?:\.0+)?", page):
        raise InputError(f"{_where(sheet)}page {page!r} is not a page number", str(path), line)
    raw = row["value"]
    quantity = None if is_dash(raw) else parse_quantity(raw, unit)
    return Fact(
        company=row["company"],
        year=year,
        field=row["field"],
        value=quantity.value if quantity else raw,
        number=quantity.number if quantity else None,
        unit=quantity.unit if quantity else "",
        raw=raw,
        short_name=row.get("short_name", ""),
        code=row.get("code", ""),
        doc_id=doc_id,
        page=int(float(page)) if page else 0,
        table=row.get("source", ""),
        cell_id=f"{sheet or 'csv'}!{line}",
    )


def _reports(
    frame: pd.DataFrame, path: Path, sheet: str, doc_id: str, rejected: list[InputError], limits: TableLimits
) -> list[ReportYear]:
    columns = _columns(frame, path, sheet, REPORT_COLUMNS, OPTIONAL_REPORT_COLUMNS, limits)
    reports = []
    for line, row in _rows(frame, columns):
        try:
            _within_limits(row, limits, path, sheet, line)
            if not row["company"]:
                raise InputError(f"{_where(sheet)}empty company", str(path), line)
            reports.append(
                ReportYear(
                    row["company"],
                    _year(row["year"], path, sheet, line),
                    row.get("short_name", ""),
                    row.get("code", ""),
                    doc_id,
                )
            )
        except InputError as exc:
            rejected.append(exc)
    return reports
