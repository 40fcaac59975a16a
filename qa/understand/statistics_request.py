"""What a question over many companies asks: order, place, top N, count, list, aggregate, threshold, place filter.

The vocabulary is rules/statistics.yaml; this module only applies it.

>>> rules = StatisticsRules.load()
>>> r = rules.read("在杭州注册的上市公司中，2021年净利润大于2亿元的有多少家？")
>>> r.operation, r.threshold.op, r.threshold.amount, r.places, r.place_fields
('count', '>', Decimal('200000000'), ('杭州',), ('注册地址',))
>>> rules.read("2021年营业收入排名第四的公司是哪家？").rank
4
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from core.errors import InputError
from core.numerals import cjk_number
from core.rulebook import active, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.units import scale_of
from core.vocabulary import vocabulary
from core.years import small_number
from qa.records import StatisticsRequest, Threshold

OPERATIONS = ("count", "average", "sum", "median", "list")
COMPARISONS = (">=", "<=", ">", "<")
_STRINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}
STATISTICS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "order",
        "rank_words",
        "top_n",
        "nth",
        "every_year_top",
        "consecutive",
        "up_words",
        "operations",
        "comparisons",
        "after_amount",
        "places",
        "year_comparison",
    ],
    "properties": {
        "order": {
            "type": "object",
            "additionalProperties": False,
            "required": ["high", "low"],
            "properties": {"high": _STRINGS, "low": _STRINGS},
        },
        "rank_words": _STRINGS,
        "top_n": _STRINGS,
        "nth": _STRINGS,
        "every_year_top": _STRINGS,
        "consecutive": _STRINGS,
        "up_words": _STRINGS,
        "year_comparison": _STRINGS,
        "operations": {
            "type": "object",
            "additionalProperties": False,
            "properties": {op: _STRINGS for op in OPERATIONS},
        },
        "comparisons": {
            "type": "object",
            "additionalProperties": False,
            "properties": {op: _STRINGS for op in COMPARISONS},
        },
        "after_amount": {"type": "object", "additionalProperties": {"enum": list(COMPARISONS)}},
        "places": {
            "type": "object",
            "additionalProperties": False,
            "required": ["names", "patterns", "names_before", "names_after"],
            "properties": {
                "names": _STRINGS,
                "patterns": _STRINGS,
                "names_before": _STRINGS,
                "names_after": _STRINGS,
                "registered": {"$ref": "#/$defs/place"},
                "office": {"$ref": "#/$defs/place"},
            },
        },
    },
    "$defs": {
        "place": {
            "type": "object",
            "additionalProperties": False,
            "required": ["words", "field"],
            "properties": {"words": _STRINGS, "field": {"type": "string", "minLength": 1}},
        }
    },
}
# An amount: Arabic digits (commas allowed) or Chinese numerals, then a multiplier and unit.
_NUMBERS = per_book(lambda: vocabulary("numbers"))  # rules/numbers.yaml
_AMOUNTS = per_book(lambda: _NUMBERS["amounts"])
_AMOUNT = per_book(lambda: _AMOUNTS["amount"])
_PERCENT_OF = pattern_per_book(lambda: re.compile(_AMOUNTS["percent_of"]))


@dataclass(frozen=True)
class _Compiled:
    high: re.Pattern
    low: re.Pattern
    rank_words: re.Pattern
    top_n: tuple[re.Pattern, ...]
    nth: tuple[re.Pattern, ...]
    every_year_top: tuple[re.Pattern, ...]
    consecutive: tuple[re.Pattern, ...]
    up_words: tuple[str, ...]
    operations: tuple[tuple[str, re.Pattern], ...]
    before_amount: re.Pattern
    after_amount: re.Pattern
    comparison_of: dict[str, str]
    after_of: dict[str, str]
    place_kinds: tuple[tuple[re.Pattern, str], ...]  # (words, field)
    place_patterns: tuple[re.Pattern, ...]
    place_names: re.Pattern
    year_comparison: re.Pattern


class StatisticsRules:
    """rules/statistics.yaml, compiled; `read(text)` gives the StatisticsRequest or None."""

    def __init__(self, compiled: _Compiled):
        self._c = compiled

    @classmethod
    def load(cls, path: Path | None = None) -> StatisticsRules:
        rules, errors = load_statistics_rules(path)
        if errors:
            raise errors[0]
        return cls(rules)

    @property
    def place_fields(self) -> tuple[str, ...]:
        return tuple(field for _, field in self._c.place_kinds)

    def skip_year_comparison(self, text: str) -> str:
        """The text without a leading 相比2020年的 / 较上年 (the year a growth rate compares with)."""
        m = self._c.year_comparison.match(text)
        return text[m.end() :] if m else text

    def read(self, text: str) -> StatisticsRequest | None:
        """What the question asks over companies; None when it asks for no order, count, list or aggregate."""
        c = self._c
        text = unicodedata.normalize("NFKC", text)
        high, low = c.high.search(text), c.low.search(text)
        top_n = _first_number(c.top_n, text)
        rank = _first_number(c.nth, text)
        every = _first_number(c.every_year_top, text)
        consecutive, rising = 0, True
        for pattern in c.consecutive:
            m = pattern.search(text)
            if m:
                consecutive = (
                    (small_number(m.group("n")) or 0) if "n" in m.groupdict() and m.group("n") else -1
                )
                rising = m.group("dir") in c.up_words
                break
        operation = next((name for name, pattern in c.operations if pattern.search(text)), "rank")
        threshold = self._threshold(text)
        places, place_fields = self._places(text)
        ordered = bool(high or low or c.rank_words.search(text))
        if every:
            top_n = 0  # 均位列前十: the N belongs to the condition
        if not (
            ordered or top_n or rank or every or consecutive or threshold or places or operation != "rank"
        ):
            return None
        if (
            operation == "list"
            and not (threshold or places or every or consecutive)
            and (top_n or rank or high or low)
        ):
            operation = "rank"  # 哪些公司…最高的前五: a top list
        return StatisticsRequest(
            operation=operation,
            top_n=top_n,
            rank=rank,
            descending=not low,
            ordered=ordered,
            threshold=threshold,
            places=places,
            place_fields=place_fields,
            every_year_top=every,
            consecutive=consecutive,
            rising=rising,
        )

    def _threshold(self, text: str) -> Threshold | None:
        c = self._c
        text = _PERCENT_OF.sub(lambda m: m.group("amount") + "%", text)
        m = c.before_amount.search(text)
        if m:
            return _threshold(c.comparison_of[m.group("word")], m.group("amount"), m.group("unit") or "")
        m = c.after_amount.search(text)
        if m:
            return _threshold(c.after_of[m.group("word")], m.group("amount"), m.group("unit") or "")
        return None

    def _places(self, text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        c = self._c
        places = [m.group("place") or m.group("named") for m in c.place_names.finditer(text)]
        for pattern in c.place_patterns:
            places += [m.group("place") for m in pattern.finditer(text)]
        places = [
            p for p in dict.fromkeys(places) if not any(p != q and q in p for q in places)
        ]  # 浙江 over 浙江省内
        if not places:
            return (), ()
        fields = tuple(field for words, field in c.place_kinds if words.search(text))
        return tuple(places), fields or tuple(field for _, field in c.place_kinds)


def _threshold(op: str, amount: str, unit: str) -> Threshold | None:
    number = _number(amount)
    if number is None:
        return None
    for sign in _AMOUNTS["percent_signs"]:
        unit = unit.replace(sign, "%")
    if unit == "%":
        return Threshold(op, number / 100, "%")
    if not unit:
        return Threshold(op, number, "")
    bare = unit in _AMOUNTS["bare_multipliers"]
    scaled = scale_of(unit + _NUMBERS["default_currency"] if bare else unit)
    if scaled is None:
        return Threshold(op, number, unit)
    return Threshold(op, number * scaled[0], scaled[1])


def _number(text: str) -> Decimal | None:
    text = text.replace(",", "")
    if text[:1].isdigit():
        return Decimal(text)
    whole, _, decimals = text.partition(_AMOUNTS["decimal_point"])
    value = cjk_number(whole)
    if value is None:
        return None
    if decimals:
        return Decimal(f"{value}.{''.join(str(cjk_number(d)) for d in decimals)}")
    return Decimal(value)


def _first_number(patterns: tuple[re.Pattern, ...], text: str) -> int:
    for pattern in patterns:
        m = pattern.search(text)
        if m:
            n = small_number(m.group("n"))
            if n:
                return n
    return 0


def load_statistics_rules(path: Path | None = None) -> tuple[_Compiled | None, list[InputError]]:
    """Parse and compile rules/statistics.yaml; every bad regex is an error at its file:line."""
    rules = RuleFile.load(path or active().rules_dir / "statistics.yaml", STATISTICS_SCHEMA)
    data, errors = rules.data, []

    def compiled(patterns: list[str], *at) -> list[re.Pattern]:
        out = []
        for i, pattern in enumerate(patterns):
            try:
                out.append(re.compile(pattern, re.IGNORECASE))
            except re.error as exc:
                errors.append(rules.error(f"bad regex {pattern!r}: {exc}", *at, i))
        return out

    def words(items) -> str:
        return "|".join(sorted((re.escape(w) for w in items), key=len, reverse=True))

    def joined(patterns: list[str], *at) -> re.Pattern:
        parts = compiled(patterns, *at)
        return re.compile("|".join(f"(?:{p.pattern})" for p in parts) or "(?!)", re.IGNORECASE)

    comparison_of = {w: op for op, ws in data["comparisons"].items() for w in ws}
    places = data["places"]
    kinds = [
        (re.compile(words(places[k]["words"])), places[k]["field"])
        for k in ("registered", "office")
        if k in places
    ]
    result = _Compiled(
        high=joined(data["order"]["high"], "order", "high"),
        low=joined(data["order"]["low"], "order", "low"),
        rank_words=re.compile(words(data["rank_words"])),
        top_n=tuple(compiled(data["top_n"], "top_n")),
        nth=tuple(compiled(data["nth"], "nth")),
        every_year_top=tuple(compiled(data["every_year_top"], "every_year_top")),
        consecutive=tuple(compiled(data["consecutive"], "consecutive")),
        up_words=tuple(data["up_words"]),
        operations=tuple((op, joined(ws, "operations", op)) for op, ws in data["operations"].items()),
        before_amount=re.compile(
            rf"(?P<word>{words(comparison_of)})\s*(?:{re.escape(_AMOUNTS['optional_particle'])})?\s*{_AMOUNT.value()}"
        ),
        after_amount=re.compile(rf"{_AMOUNT.value()}\s*(?P<word>{words(data['after_amount'])})"),
        comparison_of=comparison_of,
        after_of=dict(data["after_amount"]),
        place_kinds=tuple(kinds),
        place_patterns=tuple(compiled(places["patterns"], "places", "patterns")),
        # A place name filters only where the wording says it is where companies are (位于浙江, 浙江省内的公司):
        # a name that starts a company's (贵州茅台) is no filter.
        place_names=re.compile(
            f"(?:{words(places['names_before'])})\\s*(?P<place>{words(places['names'])})"
            f"|(?P<named>{words(places['names'])})(?=(?:{'|'.join(places['names_after'])}))"
        ),
        year_comparison=joined(data["year_comparison"], "year_comparison"),
    )
    return (None if errors else result), errors
