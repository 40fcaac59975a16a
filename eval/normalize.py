"""How answers are made comparable before scoring.

`ntcir_value` is the NTCIR-18 U4 Table QA normalisation, reimplemented to give
the same string as the task's official `normalize_text` for every input:

>>> ntcir_value("△1,234百万円"), ntcir_value("12.5％"), ntcir_value("-0")
('-1234000000.0000', '0.1250', '0.0000')

`flat_text` and `as_number` serve the generic exact-match scoring:

>>> flat_text(" 1，234 元"), as_number("1,234.5")
('1234元', 1234.5)
"""

from __future__ import annotations

import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")
_TRIANGLES = str.maketrans({"▲": "-", "△": "-", "▴": "-", "▵": "-"})
# Suffix -> the zeros it stands for, tried in this order (the official order: 百万円 before 千円 before 千).
_SCALES = (("百万円", "000000"), ("千円", "000"), ("千", "000"))
_COUNTER_UNITS = "円株個倍人年"


def _parses_as_float(text: str) -> bool:
    # The official check is Python's float(): it also accepts "1e3", "1_000", "nan" and "inf".
    try:
        float(text)
    except ValueError:
        return False
    return True


def ntcir_value(text: str) -> str:
    """The NTCIR-18 U4 normal form of a table value (the official scorer compares these)."""
    text = _WHITESPACE.sub("", unicodedata.normalize("NFKC", text))
    text = text.replace(",", "").translate(_TRIANGLES)
    if text == "0百万円":
        text = "0"
    else:
        for suffix, zeros in _SCALES:
            if text.endswith(suffix):
                # The official code replaces every occurrence, not only the suffix.
                text = text.replace(suffix, zeros)
                break
    if text.endswith(("%", "％")):
        number = text.rstrip("%％")
        if _parses_as_float(number):
            text = str(float(number) / 100)
    number = text.rstrip(_COUNTER_UNITS)
    if _parses_as_float(number):
        text = format(float(number), ".4f")
    return "0.0000" if text == "-0.0000" else text


def flat_text(text: str) -> str:
    """NFKC, no whitespace, no thousands commas (full-width commas become ',' under NFKC)."""
    return _WHITESPACE.sub("", unicodedata.normalize("NFKC", text)).replace(",", "")


def as_number(text: str) -> float | None:
    """The number `text` spells (after `flat_text`), or None; nan and inf are not numbers here."""
    flat = flat_text(text)
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", flat):
        return None
    return float(flat)
