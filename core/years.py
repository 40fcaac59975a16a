"""Which years a question is about.

Understands 2019年, 2019年度, 2019-2021年 / 2019至2021年 (every year of the
range), 二〇二一年, 令和3年 / 平成31年 / 令和元年, 民國112年, 2023年第1季 /
2023年第三季度 (year plus quarter; 前三季 / 1-9月 is the year to date, 上半年 the half year, each a period
of its own; 第五季度 is a period no year has, kept to be refused by name), FY2020, and 上年 / 去年 / 前年 / 上上年
relative to the year the question names (or a reference year). Words that look
ahead (下一年度的经营计划) name what a report says, not which report, so they add no year.

>>> extract_years("2021年法定代表人对比2019年是否相同?").years
(2021, 2019)
>>> extract_years("2021年营业收入与上年相比增长了多少?").years
(2021, 2020)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from core.dates import era_pattern, western_year
from core.numerals import cjk_number
from core.rulebook import cached_per_book, pattern_per_book, per_book
from core.vocabulary import vocabulary

_WORDS = per_book(lambda: vocabulary("numbers")["years"])  # rules/numbers.yaml
_Y = r"(?:19|20)\d{2}"
_YEAR = per_book(lambda: re.escape(_WORDS["year"]))
_RELATIVE: dict[str, int] = per_book(lambda: dict(_WORDS["relative"]))
_PATTERN = per_book(
    lambda: (
        rf"(?P<range>(?P<r1>{_Y})\s*{_YEAR.value()}?\s*{_WORDS['range']}\s*(?P<r2>{_Y})\s*{_YEAR.value()}?)"
        r"|(?P<era>(?P<era_name>{eras})\s*(?P<era_num>" + _WORDS["era_number"] + rf")\s*{_YEAR.value()})"
        rf"|(?P<cn>(?P<cn_digits>{_WORDS['cjk_year']})\s*{_YEAR.value()})"
        rf"|(?:fy\s*(?P<fy>{_Y}))"
        rf"|(?P<plain>(?<!\d)(?P<year>{_Y})(?!\d)\s*{_WORDS['year_suffix']})"
        rf"|(?P<relative>{'|'.join(map(re.escape, _RELATIVE))})"
    )
)
_QUARTER_AFTER = pattern_per_book(
    lambda: re.compile(_WORDS["quarter_after"].replace("{quarter}", _WORDS["quarter"]), re.IGNORECASE)
)
_YEAR_TO_DATE = pattern_per_book(lambda: re.compile(_WORDS["year_to_date"], re.IGNORECASE))
_HALF = pattern_per_book(lambda: re.compile(_WORDS["half"]))
_IMPOSSIBLE_QUARTER = pattern_per_book(lambda: re.compile(_WORDS["impossible_quarter"], re.IGNORECASE))
PERIOD_KINDS = ("quarter", "ytd", "half")  # besides "": a full year or a year end


@dataclass(frozen=True)
class YearMatch:
    years: tuple[int, ...] = ()  # in the order asked, no repeats
    written: tuple[str, ...] = ()  # each year expression as written
    quarter: int = 0  # 1-4 when a quarter is named (2023年第1季)
    quarter_written: str = ""  # the quarter as written after its year (第1季), "" when none
    period: str = (
        ""  # what kind of period: "quarter" (one quarter), "ytd" (前三季), "half" (上半年), "" a full year
    )
    impossible: str = ""  # a period no year has, as written (第五季度), "" when none
    is_range: bool = False  # a range was named (2019-2021年): every year of it is asked
    unresolved: tuple[str, ...] = ()  # relative expressions with no year to count from


def small_number(text: str) -> int | None:
    """12, 十二, 二十三, 两, 元 (=1) -> int; None when not a number.

    Digit-by-digit forms are not small numbers: 前两三名 means "two or three", not 23.
    """
    written = unicodedata.normalize("NFKC", text).strip()
    if len(written) > 1 and not written.isdigit() and _WORDS["tens"] not in written:
        return None
    return cjk_number(written)


@cached_per_book()
def _patterns() -> re.Pattern:
    """The year patterns, with the era names of rules/documents.yaml."""
    return re.compile(_PATTERN.value().replace("{eras}", era_pattern()), re.IGNORECASE)


def extract_years(text: str, reference_year: int | None = None) -> YearMatch:
    """The years named in the text; relative words count from the first absolute year named,
    else from `reference_year` (the year the question was asked in), else they stay unresolved."""
    text = unicodedata.normalize("NFKC", text)
    absolute: list[tuple[int, int, str]] = []  # (position, year, written)
    relative: list[tuple[int, int, str]] = []
    quarter = 0
    quarter_written = ""
    is_range = False
    for m in _patterns().finditer(text):
        if m.group("range"):
            first, last = int(m.group("r1")), int(m.group("r2"))
            if first <= last <= first + 30:
                is_range = True
                absolute += [(m.start(), y, m.group()) for y in range(first, last + 1)]
            else:
                absolute += [(m.start(), first, m.group()), (m.start(), last, m.group())]
        elif m.group("era"):
            number = small_number(m.group("era_num"))
            if number:
                absolute.append((m.start(), western_year(m.group("era_name"), number), m.group()))
        elif m.group("cn"):
            absolute.append((m.start(), cjk_number(m.group("cn_digits")), m.group()))
        elif m.group("fy"):
            absolute.append((m.start(), int(m.group("fy")), m.group()))
        elif m.group("plain"):
            absolute.append((m.start(), int(m.group("year")), m.group()))
        else:
            relative.append((m.start(), _RELATIVE[m.group("relative")], m.group()))
        if not quarter and not m.group("relative"):
            q = _QUARTER_AFTER.match(text, m.end())
            if q:
                quarter = small_number(q.group(1) or q.group(2)) or 0
                quarter_written = q.group().strip() if quarter else ""
    period, impossible = "", ""
    bad = _IMPOSSIBLE_QUARTER.search(text)
    to_date = _YEAR_TO_DATE.search(text)
    if bad:
        impossible, quarter, quarter_written = bad.group().strip(), 0, ""
    elif to_date:  # 前三季 ends with the third quarter but is nine months, not the third quarter's three
        quarter = small_number(to_date.group(1) or "") or int(to_date.group(2) or 0) // 3
        period, quarter_written = "ytd", to_date.group().strip()
    elif quarter:
        period = "quarter"
    elif half := _HALF.search(text):
        period, quarter, quarter_written = "half", 2, half.group()
    base = absolute[0][1] if absolute else reference_year
    found = list(absolute)
    unresolved = []
    for position, offset, written in relative:
        if base is None:
            unresolved.append(written)
        elif offset or not absolute:  # 本期/当年 add nothing when a year is named
            found.append((position, base + offset, written))
    years = tuple(dict.fromkeys(y for _, y, _ in sorted(found, key=lambda f: f[0])))
    written = tuple(dict.fromkeys(w for _, _, w in sorted(found, key=lambda f: f[0])))
    return YearMatch(
        years, written, quarter, quarter_written, period, impossible, is_range, tuple(unresolved)
    )
