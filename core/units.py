"""Numbers as printed in financial tables: units, scaling and negative forms (dates: core/dates.py).

A cell such as "△ 4,187" under "(単位：百万円)" is the quantity -4,187,000,000 円;
"(1,234)" in a Chinese statement is -1234; "12.5%" is 12.5 with unit "%".

>>> parse_quantity("△ 4,187", "百万円")
Quantity(number=Decimal('-4187000000'), unit='円', raw='△ 4,187', stated_unit='百万円')
>>> parse_quantity("(1,234)", "千元").number, parse_quantity("( 89.2 )", "%", parentheses_negative=False).number
(Decimal('-1234000'), Decimal('89.2'))
>>> find_unit("单位：元 币种：人民币"), find_unit("（単位：百万円）"), find_unit("金額（百万円）")
('元', '百万円', '百万円')
>>> plain(Decimal("4500000.0"))
'4500000'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from core.folding import nfkc
from core.rulebook import cached_per_book, pattern_per_book, per_book
from core.vocabulary import vocabulary


@dataclass(frozen=True)
class _UnitWords:
    """rules/numbers.yaml's words for units and signs (what each pattern matches is described there), read
    once per rule book; a function takes them once (`_WORDS.value()`), since cells are parsed by the million."""

    multipliers: tuple[tuple[str, int], ...]  # written in front of a unit, longest first so 百万 wins over 万
    base_units: frozenset[str]  # units a table value may carry after scaling (currencies, counts, ratios)
    currency_words: re.Pattern  # words that qualify but do not change a unit: 人民币千元 is 千元
    default_currency: str
    dashes: frozenset[str]
    minus: str
    money: frozenset[str]
    note_prefix: re.Pattern
    share_class: re.Pattern  # the class of shares printed before a figure (普通株式 …)
    yen_sen: re.Pattern
    unit_statement: re.Pattern
    bracketed: re.Pattern
    currency_note: re.Pattern
    opening: tuple[str, ...]
    closing: tuple[str, ...]
    secondary_brackets: tuple[str, str]
    secondary_figure: re.Pattern
    yen: str

    @classmethod
    def read(cls) -> _UnitWords:
        words = vocabulary("numbers")
        return cls(
            multipliers=tuple((prefix, factor) for prefix, factor in words["multipliers"]),
            base_units=frozenset(words["base_units"]),
            currency_words=re.compile(words["currency_words"]),
            default_currency=words["default_currency"],
            dashes=frozenset(words["dashes"]),
            minus=words["minus_signs"],
            money=frozenset(words["money_units"]),
            note_prefix=re.compile(words["note_prefix"]),
            share_class=re.compile(words["share_class"]),
            yen_sen=re.compile(words["yen_sen"]),
            unit_statement=re.compile(words["unit_statement"]),
            bracketed=re.compile(words["bracketed_unit"]),
            currency_note=re.compile(words["currency_note"]),
            opening=tuple(words["brackets"][0]),
            closing=tuple(words["brackets"][1]),
            secondary_brackets=tuple(words["secondary_brackets"]),
            secondary_figure=re.compile(words["secondary_figure"]),
            yen=words["yen_unit"],
        )


_WORDS = per_book(_UnitWords.read)
_NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+")


_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def rejoin_split_number(text: str) -> str:
    """A grouped number that a narrow cell broke over lines or spaces, joined again; other text as it is.

    Joined only when the pieces hold nothing but digits and separators and the
    joined number has valid thousands groups, so two numbers stacked in one cell
    ("1,234 5,678") stay apart.

    >>> rejoin_split_number("26,452 ,580.1 2"), rejoin_split_number("999,254,562. 78"), rejoin_split_number("12 34")
    ('26,452,580.12', '999,254,562.78', '12 34')
    """
    w = _WORDS.value()
    pieces = text.split()
    if sum(1 for piece in pieces if any(c.isdigit() for c in piece)) < 2:
        return text  # "△ 4,187": a sign set apart is how the cell is printed, not a break
    joined = "".join(pieces)
    core = (
        joined[1:-1] if joined[:1] in w.opening and joined[-1:] in w.closing else joined.lstrip(w.minus + "-")
    )
    return joined if _GROUPED.fullmatch(core) else text


PARSED_CELLS = 16_384  # cell texts whose parse_quantity is kept (most recently used): a few MB


@dataclass(frozen=True)
class Quantity:
    """A parsed cell: `number` scaled to the base `unit`; `raw` and `stated_unit` as printed."""

    number: Decimal
    unit: str
    raw: str
    stated_unit: str = ""  # the unit the number was written in (百万円), before scaling

    @property
    def value(self) -> str:
        return plain(self.number)


def scale_of(unit: str) -> tuple[Decimal, str] | None:
    """(multiplier, base unit) of a unit as printed, or None if it is not a unit.

    >>> scale_of("百万円"), scale_of("人民币千元"), scale_of("千株"), scale_of("％"), scale_of("公司")
    ((Decimal('1000000'), '円'), (Decimal('1000'), '元'), (Decimal('1000'), '株'), (Decimal('1'), '%'), None)
    """
    w = _WORDS.value()
    text = nfkc(unit).strip().replace(" ", "")
    text = w.currency_words.sub("", text) or (w.default_currency if text else "")
    if not text:
        return None
    if text in w.base_units:
        return Decimal(1), text
    for prefix, factor in w.multipliers:
        if text.startswith(prefix):
            rest = text[len(prefix) :]
            if rest == "" or rest in w.base_units:
                return Decimal(factor), rest
    return None


def is_unit(text: str) -> bool:
    return scale_of(text) is not None


def is_money(unit: str) -> bool:
    """Whether a unit is an amount of money ("百万円", "千元"), not a count or a ratio."""
    w = _WORDS.value()
    scaled = scale_of(unit) if unit else None
    return scaled is not None and scaled[1] in w.money


def find_unit(text: str) -> str:
    """The unit a caption, header or label states ("单位：人民币千元" -> "千元"), or ""."""
    w = _WORDS.value()
    text = nfkc(text)
    for match in w.unit_statement.finditer(text):
        unit = match.group(1) or match.group(2)
        unit = re.sub(r"\)+$", "", unit)  # text is NFKC: full-width brackets are ASCII here
        if is_unit(unit):
            return w.currency_words.sub("", unit.replace(" ", "")) or unit
    for match in w.bracketed.finditer(text):
        unit = match.group(1).replace(" ", "")
        if is_unit(unit):
            return unit
    return ""


def is_unit_statement(text: str) -> bool:
    """True when the text says nothing but a unit: "(単位：百万円)", "单位：元", "（千株）"."""
    w = _WORDS.value()
    flat = nfkc(text).replace(" ", "")
    if not flat or not find_unit(flat):
        return False
    rest = w.unit_statement.sub("", flat)
    rest = w.bracketed.sub(lambda m: "" if is_unit(m.group(1)) else m.group(0), rest)
    rest = w.currency_note.sub("", rest)
    return rest == "" or is_unit(rest)


def header_name(path: str) -> str:
    """The last part of a "/"-joined column header path that names something other than a unit: the column's
    own name ("報告セグメント/計/百万円" is 計; a unit row under the names is common in Japanese notes).

    >>> header_name("報告セグメント/計/(百万円)"), header_name("百万円")
    ('計', '')
    """
    parts = [p.strip() for p in path.split("/") if p.strip()]
    return next((p for p in reversed(parts) if not _states_unit(p)), "")


# a report's header parts (当連結会計年度, 百万円) recur over its columns and tables
@cached_per_book(maxsize=65536)
def _states_unit(part: str) -> bool:
    """Whether a header part is a unit or says nothing but a unit."""
    return is_unit(nfkc(part)) or is_unit_statement(part)


def is_dash(text: str) -> bool:
    """A cell that says "nothing here" ("－", "—", "-")."""
    w = _WORDS.value()
    flat = _without_note_marks(text.strip())
    if flat[:1] in w.opening and flat[-1:] in w.closing:
        flat = flat[1:-1].strip()
    return bool(flat) and all(c in w.dashes or c.isspace() for c in flat)


def _without_note_marks(flat: str) -> str:
    """The cell without the note marks before its figure ("※1 , ※2 60,976" is 60,976)."""
    w = _WORDS.value()
    while w.note_prefix.match(flat):
        flat = w.note_prefix.sub("", flat, count=1)
    return flat


def parentheses_negative(language: str, cells: Iterable[str] = (), units: Iterable[str] = ()) -> bool:
    """Whether a number in parentheses is negative in a table of `language` with these cells and units (the table's
    and its columns'): in Chinese statements it is; Japanese reports print secondary figures (臨時従業員数, a prior
    figure) in parentheses and negatives with △, except tables of money (IFRS statements, mostly) that print no
    negative sign at all and do print numbers in parentheses: those are their negatives.

    >>> parentheses_negative("zh"), parentheses_negative("ja", ["△ 5", "( 12 )"], ["百万円"])
    (True, False)
    >>> parentheses_negative("ja", ["( 12 )"], ["百万円"]), parentheses_negative("ja", ["( 12 )"], ["名"])
    (True, False)
    """
    w = _WORDS.value()
    if language != "ja":
        return True
    if not any(is_money(unit) for unit in units):
        return False
    signed = bracketed = False
    for cell in cells:
        flat = nfkc(str(cell)).strip()
        signed = signed or (flat[:1] in w.minus and _NUMBER.match(flat[1:].strip()) is not None)
        bracketed = bracketed or (
            flat[:1] in w.opening
            and flat[-1:] in w.closing
            and _NUMBER.fullmatch(flat[1:-1].strip()) is not None
        )
    return bracketed and not signed


@cached_per_book(maxsize=PARSED_CELLS)
def parse_quantity(text: str, unit: str = "", parentheses_negative: bool = True) -> Quantity | None:
    """The number in a cell, scaled by its own unit suffix or else by `unit`; None if not a number.

    Cached: a table's cells are read again and again (is it a value, a header, a fact, a workbook number).

    Negative forms: a leading -, −, －, ▲ or △, and (when `parentheses_negative`,
    as in Chinese statements) a number in parentheses. Japanese reports print
    secondary figures in parentheses, so they pass parentheses_negative=False.
    """
    w = _WORDS.value()
    raw = text.strip()
    flat = w.share_class.sub(
        "", _without_note_marks(nfkc(raw).strip())
    )  # the figure, not its class of shares
    flat = re.sub(r"^(?:NT\$|US\$|\$|¥|RMB)\s*", "", flat)  # NFKC made ￥ ¥
    if flat[:1] == w.secondary_brackets[0] and flat[-1:] == w.secondary_brackets[1]:
        flat = flat[1:-1].strip()  # [ 9,112 ]: a secondary figure (臨時雇用者数), never a negative
    negative = False
    if flat[:1] in w.opening and flat[-1:] in w.closing:
        flat = flat[1:-1].strip()
        negative = parentheses_negative
    if flat[:1] and flat[0] in w.minus:
        flat = flat[1:].strip()
        negative = not negative
    flat = re.sub(r"^(?:\$|¥)\s*", "", flat)
    yen_sen = w.yen_sen.match(flat)
    if yen_sen:
        flat = f"{yen_sen.group(1)}.{yen_sen.group(2)}{w.yen}"
    match = _NUMBER.match(flat)
    if not match:
        return None
    suffix = flat[match.end() :].strip()
    if w.secondary_figure.fullmatch(suffix):
        suffix = ""  # "19,154 [ 672 ]": the figure, then a secondary one in brackets
    if suffix:
        scaled, stated = scale_of(suffix), suffix
        if scaled is None:
            return None
    else:
        scaled = scale_of(unit) if unit else None
        stated = unit if scaled else ""
        scaled = scaled or (Decimal(1), "")
    try:
        number = Decimal(match.group(0).replace(",", ""))
    except InvalidOperation:
        return None
    number *= scaled[0]
    if negative and number:
        number = -number
    return Quantity(number=number, unit=scaled[1], raw=raw, stated_unit=stated)


def plain(number: Decimal) -> str:
    """A Decimal as a plain string: no exponent, no trailing zeros after the point."""
    if number == number.to_integral_value():
        return format(number.quantize(Decimal(1)), "f")
    return format(number.normalize(), "f")


# Per-share figures are never in thousands or millions, whatever the table's unit says.
_PER_SHARE = pattern_per_book(
    lambda: re.compile(vocabulary("facts")["per_share"], re.IGNORECASE)
)  # rules/facts.yaml


def is_per_share(label: str) -> bool:
    """Whether a row label names a per-share figure (1株当たり純資産額, 每股收益), a different quantity from its total."""
    return bool(_PER_SHARE.search(label))
