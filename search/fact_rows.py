"""What both facts stores share: the columns a query returns, the preference order, rankings.

Which fact answers (company, year, field) when several do (the preference
order, the same in every backend, see `PREFERENCE`):
1. the year's own report before another report's previous-year column
   (`report_year` = year of the report the fact came from; the evidence says
   when it came from the next year's report);
2. the field name asked first before its synonyms (the order of the names given);
3. the most precise figure (`precision` = power of ten of the last printed
   digit in base units): the main statements print full 元 amounts, summary and
   MD&A tables often 万元 or 亿元;
4. the earliest page, then table (then cell id): consolidated statements
   (合并/連結) come before the parent company's (母公司/個別) in Chinese and
   Japanese reports.

>>> report_year_of(2020, {2021}), precision_of(Decimal("1234.5"), "1,234.5")
(2021, -1)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation

FACT_COLUMNS = (
    "company",
    "year",
    "field",
    "value",
    "number",
    "unit",
    "raw",
    "period",
    "short_name",
    "code",
    "doc_id",
    "page",
    "table",
    "cell_id",
)
# What a fact is (core/statements.py): its table's kind and scope, its column's period kind.
WHERE_COLUMNS = ("statement", "scope", "period_kind")

# Columns a query returns: the Fact fields, where the fact's report is from, its precision, what it is.
RESULT_COLUMNS = FACT_COLUMNS + ("report_year", "precision") + WHERE_COLUMNS

REPORT_COLUMNS = ("company", "year", "short_name", "code", "doc_id")

PREFERENCE = "own report, name order, precision, page, table, cell id"

_NOT_DIGIT = re.compile(r"[^\d.]")


def rank_companies(
    pages: Iterable[list[tuple[str, float]]],
    preferred: Callable[[list[str]], list[tuple]],
    limit: int,
    descending: bool,
) -> list[tuple]:
    """The top `limit` companies (and any tied with the last) by their preferred fact, best first.

    `pages` gives (company, value) of every candidate fact, best value first; `preferred(companies)`
    gives those companies' candidate facts as RESULT_COLUMNS + (num,) rows, each company's
    preferred fact first. A company's preferred value is never beyond its best one, so reading
    stops once the next value falls short of the N-th preferred value found (threshold algorithm).
    """
    best: dict[str, tuple] = {}
    at_company, at_num = RESULT_COLUMNS.index("company"), len(RESULT_COLUMNS)
    for page in pages:
        new = sorted({company for company, _ in page} - best.keys())
        for row in preferred(new) if new else ():
            best.setdefault(row[at_company], row)
        threshold = _threshold([row[at_num] for row in best.values()], limit, descending)
        last = page[-1][1]
        if threshold is not None and (last < threshold if descending else last > threshold):
            break
    threshold = _threshold([row[at_num] for row in best.values()], limit, descending)
    rows = [
        row
        for row in best.values()
        if threshold is None or (row[at_num] >= threshold if descending else row[at_num] <= threshold)
    ]
    rows.sort(key=lambda row: ((-row[at_num] if descending else row[at_num]), row[at_company]))
    return rows


def _threshold(nums: list[float], limit: int, descending: bool) -> float | None:
    """The value at place `limit`, or None while there are fewer."""
    if len(nums) < limit:
        return None
    return sorted(nums, reverse=descending)[limit - 1]


def row_of(cell_id: str) -> str:
    """The table row of a cell id: the id up to its last "c" (a row id may hold a "c", the column number none).

    >>> row_of("S100c-tab1-r5c3")
    'S100c-tab1-r5'
    """
    return cell_id[: cell_id.rfind("c")]


def report_year_of(year: int, document_years: frozenset[int] | set[int]) -> int:
    """Which report a fact of `year` came from, given the years its document covers for the company."""
    if not document_years or year in document_years:
        return year
    if len(document_years) == 1:
        return next(iter(document_years))
    return year + 1 if year + 1 in document_years else year


def precision_of(number: Decimal | None, raw: str) -> int:
    """Power of ten of the last digit printed: "1,234.56" in 元 -> -2; "12,338.15" 万元 -> 2; 0 for text."""
    if number is None:
        return 0
    printed = _printed_number(raw)
    if printed is None or printed.is_zero() or number.is_zero():  # no scale to read: as printed or stored
        exponent = (number if printed is None else printed).as_tuple().exponent
        return exponent if isinstance(exponent, int) else 0
    scale = (abs(number) / abs(printed)).adjusted()  # 万元 -> 4, 元 -> 0, a % shown as a fraction -> -2
    return printed.as_tuple().exponent + scale


def _printed_number(raw: str) -> Decimal | None:
    text = _NOT_DIGIT.sub("", raw)
    if not text or text.count(".") > 1:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None
