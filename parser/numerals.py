"""Numbers written with Chinese numerals, as reports and questions write them."""
from __future__ import annotations

import unicodedata

_DIGITS = {"〇": 0, "零": 0, "○": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9}


def cjk_number(text: str) -> int | None:
    """"112", "１１２", "一一二", "一百一十二", "二〇一九", "十二", "两", "元" (an era's first year) -> int; else None.

    >>> cjk_number("一百一十二"), cjk_number("二〇一九"), cjk_number("前")
    (112, 2019, None)
    """
    text = unicodedata.normalize("NFKC", text).strip()
    if text == "元":
        return 1
    if text.isdigit():
        return int(text)
    if not text or any(c not in _DIGITS and c not in "十百" for c in text):
        return None
    if "十" not in text and "百" not in text:  # digit by digit: 二〇一九, 一一二
        return int("".join(str(_DIGITS[c]) for c in text))
    total, digit = 0, 0
    for c in text:
        if c in _DIGITS:
            digit = _DIGITS[c]
        else:
            total += (digit or 1) * (100 if c == "百" else 10)
            digit = 0
    return total + digit
