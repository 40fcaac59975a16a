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

from qa.records import OutputRequest
from qa.years import small_number

_N = r"(\d{1,2}|[一二两三四五六七八九十]{1,2})"
_KEEP = re.compile(
    rf"(?:保留|精确|精確|四舍五入|四捨五入|取)(?:到|至|为|為)?(?:小数点后|小數點後|小数|小數)?(?:第)?{_N}\s*位(?:小数|小數|有效数字)?"
    rf"|(?:小数点后|小數點後|小数点以下|小數點以下)(?:第)?{_N}\s*位"
)
_STEP = re.compile(r"(?:精确|精確|保留|四舍五入)(?:到|至)?\s*0\.(0*)1(?!\d)")
_INTEGER = re.compile(r"保留整数|取整|精确到个位|四舍五入到整数|整数で")
_JA_DIGIT = re.compile(rf"小数(?:点以下)?(?:点)?第?{_N}位\s*(を|で|まで)")
_JA_PLACE = re.compile(r"([一十百千万億]+(?:円|元)?)の位(?:を|で)四捨五入")
_PERCENT = re.compile(r"百分比|百分数|百分數|百分率|以%|用%|%表示|%形式|パーセント|％|%で")
_RATIO = re.compile(r"小数形式|小數形式|比值形式|以小数表示|倍数表示|比率で")
_UNIT = re.compile(
    r"(?:单位为|單位為|单位是|以|用|単位は|单位:)\s*(亿元|億元|万元|萬元|千元|百万元|百萬元|元|新台幣仟元|仟元|新台币千元|百万円|千円|億円|円)\s*(?:为单位|為單位|计|計|表示|で)?"
    r"|多少(亿元|億元|万元|萬元|千元|百万元|元|新台幣仟元|仟元)"
    r"|(百万円|千円|億円)(?:単位|で)"
)


def output_request(text: str) -> OutputRequest:
    """The output request in a question (all fields empty when it asks for nothing)."""
    text = unicodedata.normalize("NFKC", text)
    digits = None
    round_at = ""
    ja = _JA_DIGIT.search(text)
    if ja:
        named = small_number(ja.group(1))
        if named is not None:
            digits = named if ja.group(2) == "まで" else max(named - 1, 0)
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
    return OutputRequest(digits=digits, percent=percent, unit=unit, round_at=round_at)
