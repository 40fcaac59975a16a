"""Dates, era years and period words in reports: 令和3年 is 2021, 民國112年 is 2023, 上年 is the year before.

>>> iso_date("1964年12月13日 生"), western_year("令和", 3), explicit_year("令和3年3月期")
('1964-12-13', 2021, 2021)
"""

from __future__ import annotations

import re

from core.folding import nfkc
from core.numerals import cjk_number
from core.rulebook import active, cached_per_book, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

_WORDS = per_book(lambda: vocabulary("numbers"))  # rules/numbers.yaml
# The part of rules/documents.yaml read here (parser/metadata.py checks the whole file).
_ERAS_SCHEMA = {
    "type": "object",
    "properties": {"eras": {"type": "object", "additionalProperties": {"type": "integer"}}},
}

_MONTH_FOLLOWS = pattern_per_book(lambda: re.compile(_WORDS["month_follows"]))
_UNTIL = per_book(lambda: tuple(_WORDS["range_until"]))

# Words that make a column "this period" or "the period before" (the report's year, or the one before).
PRIOR_PERIOD = pattern_per_book(lambda: re.compile(_WORDS["prior_period"]))
CURRENT_PERIOD = pattern_per_book(lambda: re.compile(_WORDS["current_period"]))
# Years in Chinese numerals ("一一二年"), rewritten in digits before matching.
_CN_YEAR = pattern_per_book(lambda: re.compile(_WORDS["cjk_year"]))


@cached_per_book()
def eras() -> dict[str, int]:
    """Era name -> the Western year before its year 1, from rules/documents.yaml (令和: 2018)."""
    return dict(RuleFile.load(active().rules_dir / "documents.yaml", _ERAS_SCHEMA).data.get("eras") or {})


def era_pattern() -> str:
    """A regex alternation of the known era names, longest first."""
    return "|".join(re.escape(name) for name in sorted(eras(), key=len, reverse=True))


def western_year(era: str, number: int) -> int | None:
    """令和3 -> 2021, 平成31 -> 2019, 民國112 -> 2023."""
    base = eras().get(era)
    return base + number if base is not None else None


@cached_per_book()
def _date_regex() -> re.Pattern:
    return re.compile(_WORDS["date"].replace("{eras}", era_pattern()))


def iso_date(text: str) -> str | None:
    """A cell that is only a date ("1964年12月13日 生", "令和2年6月19日") as YYYY-MM-DD, else None."""
    match = _date_regex().match(nfkc(text).strip())
    if not match:
        return None
    if match.group("year"):
        year = int(match.group("year"))
    else:
        eyear = match.group("eyear")
        year = western_year(match.group("era"), cjk_number(eyear))
    month, day = int(match.group("month")), int(match.group("day"))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


@cached_per_book()
def _year_regex() -> re.Pattern:
    return re.compile(
        _WORDS["era_year"].replace("{eras}", era_pattern())
        + r"|(?<![\d.,])(?P<y>(?:19|20)\d{2})(?![\d,])|"
        + _WORDS["roc_year"]
    )


def explicit_year(label: str) -> int | None:
    """The year a label names: "2021年", "2016年３月", "令和3年3月期", "民國112年", "一一二年", the end of 自…至…."""
    found = _years(label)
    with_month = [f for f in found if f[2]]
    return with_month[-1][0] if with_month else (found[0][0] if found else None)


def dated_year(label: str) -> int | None:
    """The year of a date a label names ("2020年3月31日", the end of 自…至…); None for a year without a month
    ("2021年満期", "2019年度"), which need not be the period's.

    >>> dated_year("当連結会計年度末（2020年３月31日）"), dated_year("当連結会計年度末（2021年満期）")
    (2020, None)
    """
    with_month = [f for f in _years(label) if f[2]]
    return with_month[-1][0] if with_month else None


def _years(label: str) -> list[tuple[int, int, bool]]:
    """(year, position, whether a month follows) of each year in a label; only those after 至 when it has one."""
    text = nfkc(label)
    text = _CN_YEAR.sub(lambda m: str(cjk_number(m.group(1)) or m.group(1)), text)
    found: list[tuple[int, int, bool]] = []  # (year, position, a month follows)
    for match in _year_regex().finditer(text):
        if match.group("era"):
            year = western_year(match.group("era"), cjk_number(match.group("n")) or 0)
        elif match.group("y"):
            year = int(match.group("y"))
        else:
            number = int(match.group("roc"))
            year = number + 1911 if 50 <= number <= 200 else None
        if year is None or not 1900 <= year <= 2100:
            continue
        rest = text[match.end() :]
        month = bool(_MONTH_FOLLOWS.match(rest))
        found.append((year, match.start(), month))
    until = max(text.rfind(mark) for mark in _UNTIL.value())
    if until >= 0 and any(pos > until for _, pos, _ in found):
        found = [f for f in found if f[1] > until]
    return found
