"""How a question wants its number: decimals, percent or ratio, unit, a place to round at.

Chinese: 保留2位小数, 保留至小数点后两位, 精确到小数点后两位, 精确到0.01, 保留整数.
Japanese: 小数第二位を四捨五入 / 小数第二位で四捨五入 round AT the named digit,
so the result keeps one digit fewer (1); 小数第一位まで keeps the named digit (1);
十万円の位で四捨五入 rounds at a named place (round_at="十万円").

>>> output_request("营业利润率是多少？保留至小数点后两位。")
OutputRequest(digits=2, percent=None, unit='', round_at='')
>>> output_request("営業利益率は？小数第二位を四捨五入してください。").digits
1
"""

from __future__ import annotations

import re
import unicodedata

from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary
from core.years import small_number
from qa.records import OutputRequest

_WORDS = per_book(lambda: vocabulary("numbers")["requests"])  # rules/numbers.yaml


def _pattern(name: str) -> pattern_per_book:
    return pattern_per_book(lambda: re.compile(_WORDS[name].replace("{n}", _WORDS["count"])))


_KEEP = _pattern("keep")
_STEP = _pattern("step")
_INTEGER = _pattern("integer")
_JA_DIGIT = _pattern("ja_digit")
_JA_PLACE = _pattern("ja_place")
_PERCENT = _pattern("percent")
_RATIO = _pattern("ratio")
_SHARE = _pattern("share")
_UNIT = _pattern("unit")


def output_request(text: str) -> OutputRequest:
    """The output request in a question (all fields empty when it asks for nothing)."""
    text = unicodedata.normalize("NFKC", text)
    digits = None
    round_at = ""
    ja = _JA_DIGIT.search(text)
    if ja:
        named = small_number(ja.group(1))
        if named is not None:
            digits = named if ja.group(2) == _WORDS["ja_keep"] else max(named - 1, 0)
    else:
        keep = _KEEP.search(text)
        if keep:
            digits = small_number(keep.group(1) or keep.group(2))
        else:
            step = _STEP.search(text)
            if step:
                digits = len(step.group(1)) + 1
            elif _INTEGER.search(text):
                digits = 0
    place = _JA_PLACE.search(text)
    if place:
        round_at = place.group(1)
    percent = True if _PERCENT.search(text) else (False if _RATIO.search(text) else None)
    unit_match = _UNIT.search(text)
    unit = next((g for g in unit_match.groups() if g), "") if unit_match else ""
    return OutputRequest(digits=digits, percent=percent, unit=unit, round_at=round_at, share=asks_share(text))


def asks_share(text: str) -> bool:
    """Whether the question asks for a share of a whole (研发人员占职工人数的比例, 占比).

    >>> asks_share("硕士及以上人员占职工人数的比例是多少?"), asks_share("流动比率是多少?")
    (True, False)
    """
    return _SHARE.search(unicodedata.normalize("NFKC", text)) is not None
