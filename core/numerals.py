"""Numbers written with Chinese numerals, as reports, questions and statutes write them."""

from __future__ import annotations

import unicodedata

from core.rulebook import per_book
from core.vocabulary import vocabulary

_WORDS = per_book(lambda: vocabulary("numbers")["numerals"])  # rules/numbers.yaml
_DIGITS: dict[str, int] = per_book(lambda: _WORDS["digits"])
_UNITS: dict[str, int] = per_book(lambda: _WORDS["units"])
_KANJI_DIGITS: str = per_book(lambda: _WORDS["written_digits"])
_KANJI_UNITS = per_book(lambda: tuple((value, unit) for value, unit in _WORDS["written_units"]))


def cjk_number(text: str) -> int | None:
    """ "112", "１１２", "一一二", "一百一十二", "二〇一九", "十二", "千二百", "两", "元" (an era's first year) -> int; else None.

    >>> cjk_number("一百一十二"), cjk_number("二〇一九"), cjk_number("千二百三"), cjk_number("前")
    (112, 2019, 1203, None)
    """
    text = unicodedata.normalize("NFKC", text).strip()
    if text == _WORDS["first_year"]:
        return 1
    if text.isdigit():
        return int(text)
    if not text or any(c not in _DIGITS and c not in _UNITS for c in text):
        return None
    if not any(c in _UNITS for c in text):  # digit by digit: 二〇一九, 一一二
        return int("".join(str(_DIGITS[c]) for c in text))
    total, digit = 0, 0
    for c in text:
        if c in _DIGITS:
            digit = _DIGITS[c]
        else:
            total += (digit or 1) * _UNITS[c]
            digit = 0
    return total + digit


def kanji_number(number: int) -> str:
    """The way statutes write a number below 10,000: 24 -> "二十四", 193 -> "百九十三", 1005 -> "千五".

    >>> kanji_number(24), kanji_number(110), kanji_number(0)
    ('二十四', '百十', '〇')
    """
    if number == 0:
        return _KANJI_DIGITS.value()[0]
    if not 0 < number < 10000:
        raise ValueError(f"{number} is outside 1-9999")
    out = []
    for value, unit in _KANJI_UNITS.value():
        digit, number = divmod(number, value)
        if digit:
            out.append(("" if digit == 1 else _KANJI_DIGITS.value()[digit]) + unit)
    if number:
        out.append(_KANJI_DIGITS.value()[number])
    return "".join(out)
