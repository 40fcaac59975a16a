"""Rounding and number display for computed answers: Decimal, ROUND_HALF_UP, never float.

A question asks for a precision in words (保留2位小数, 小数第二位を四捨五入,
十万円の位で四捨五入); qa/understand/output_request.py turns the words into an OutputRequest
(digits, percent, unit, round_at) and this module applies it:

>>> NumberStyle(digits=2, percent=True).format(Decimal("0.100355"))
'10.04%'
>>> NumberStyle(digits=2).format(Decimal("0.3628"))
'0.36'
>>> round_at_place(Decimal("123456789"), "十万円")     # 十万の位で四捨五入: keeps millions
Decimal('123000000')
>>> convert_unit(Decimal("1234567.8"), "元", "万元")
Decimal('123.45678')

`round_at` names the digit that is rounded away (Japanese 「百の位で/を四捨五入」
rounds the hundreds digit, leaving a multiple of 1,000); `digits` is the number
of decimals kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext

from core.errors import InputError
from core.rulebook import per_book
from core.vocabulary import vocabulary

# Power of ten of each unit relative to its base unit (元 or 円), for converting
# answers to the unit a question asks for.
_WORDS = per_book(lambda: vocabulary("numbers")["rounding"])  # rules/numbers.yaml
UNIT_POWERS: dict[str, int] = per_book(lambda: _WORDS["unit_powers"])
BASE_UNITS = per_book(lambda: tuple(_WORDS["base_units"]))
MAX_DIGITS = 12  # most decimals an answer keeps

# Place names in Chinese and Japanese, as powers of ten.
_DIGIT_PLACES: dict[str, int] = per_book(lambda: _WORDS["places"])


@dataclass(frozen=True)
class NumberStyle:
    """How one number is shown: decimals kept (ROUND_HALF_UP), as a percentage or not.

    `digits=None` keeps the number as it is.
    """

    digits: int | None = None
    percent: bool = False

    def __post_init__(self):
        if self.digits is not None and not 0 <= self.digits <= MAX_DIGITS:
            raise InputError(f"digits must be 0..{MAX_DIGITS}, got {self.digits}")

    def format(self, number: Decimal) -> str:
        value = number * 100 if self.percent else number
        if self.digits is not None:
            value = round_half_up(value, self.digits)
        text = fixed_point(value)
        return f"{text}%" if self.percent else text


def round_half_up(number: Decimal, digits: int) -> Decimal:
    """Round to `digits` decimals, halves away from zero (2.345 -> 2.35, -2.345 -> -2.35)."""
    with localcontext() as ctx:
        ctx.prec = max(34, number.adjusted() + digits + 2)
        return number.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def place_power(place: str) -> int:
    """Power of ten of a named place: "十万円" -> 5, "百万" -> 6, "千" -> 3, "億円" -> 8."""
    name = place.strip()
    for unit in BASE_UNITS.value():
        name = name.removesuffix(unit)
    for suffix in _WORDS["place_suffixes"]:
        name = name.removesuffix(suffix)
    if not name or any(ch not in _DIGIT_PLACES for ch in name):
        raise ValueError(f"unknown place to round at: {place!r}")
    power = 0
    for ch in name:  # 十万 = 10 x 10^4: multiply as written
        power += _DIGIT_PLACES[ch]
    return power


def round_at_place(number: Decimal, place: str) -> Decimal:
    """Round the digit at `place` away (四捨五入 at that place): the result is a multiple of 10 x place."""
    keep = place_power(place) + 1
    with localcontext() as ctx:
        ctx.prec = max(34, number.adjusted() + 2)
        rounded = number.scaleb(-keep).quantize(Decimal(1), rounding=ROUND_HALF_UP).scaleb(keep)
        return rounded.quantize(Decimal(1))


def convert_unit(number: Decimal, unit: str, target: str) -> Decimal:
    """Express `number` given in `unit` in `target` (元 -> 万元 divides by 10^4). ValueError if incompatible."""
    if unit == target:
        return number
    if unit not in UNIT_POWERS or target not in UNIT_POWERS or _base(unit) != _base(target):
        raise ValueError(f"cannot convert {unit or 'a number without unit'} to {target}")
    return number.scaleb(UNIT_POWERS[unit] - UNIT_POWERS[target])


def fixed_point(number: Decimal) -> str:
    """Fixed-point text without exponent, keeping the decimals it has ("1E+3" -> "1000", "2.50" -> "2.50");
    -0 becomes 0. (core.units.plain also drops trailing zeros.)"""
    if number.is_zero():
        number = abs(number)
    return f"{number:f}"


def _base(unit: str) -> str:
    return unit[-1]
