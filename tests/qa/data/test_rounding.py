"""qa/data/rounding.py: ROUND_HALF_UP at the asked precision, percentages, named places, units."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.errors import InputError
from qa.data.rounding import (
    NumberStyle,
    convert_unit,
    fixed_point,
    place_power,
    round_at_place,
    round_half_up,
)

# What a question asks (as qa/understand/output_request.py reads it) and what the answer must show.
# phrase -> (decimals kept, percent?) -> number -> shown
STYLE_CASES = [
    ("保留2位小数", 2, False, "0.3628", "0.36"),
    ("保留至小数点后两位 (percent formula)", 2, True, "0.100355", "10.04%"),
    ("精确到小数点后两位", 2, True, "-0.0060081", "-0.60%"),
    ("保留两位小数: a half rounds up", 2, False, "2.345", "2.35"),
    ("保留两位小数: a negative half rounds away from zero", 2, False, "-2.345", "-2.35"),
    ("保留两位小数: trailing zeros are kept", 2, False, "3.9", "3.90"),
    ("小数第二位を四捨五入 -> one decimal", 1, True, "0.12345", "12.3%"),
    ("小数第二位で四捨五入 -> one decimal", 1, True, "0.12355", "12.4%"),
    ("小数第一位まで -> one decimal", 1, False, "7.25", "7.3"),
    ("小数第三位を四捨五入 -> two decimals", 2, False, "1.005", "1.01"),
    ("保留整数", 0, False, "2.5", "3"),
    ("nothing asked: the number as it is", None, False, "0.100355", "0.100355"),
    ("a result that rounds to zero shows no minus sign", 2, True, "-0.00001", "0.00%"),
]


@pytest.mark.parametrize("phrase,digits,percent,number,shown", STYLE_CASES, ids=[c[0] for c in STYLE_CASES])
def test_number_style_rounds_half_up_at_the_asked_precision(phrase, digits, percent, number, shown):
    assert NumberStyle(digits=digits, percent=percent).format(Decimal(number)) == shown


PLACE_CASES = [
    ("十万円の位で四捨五入: 十万 digit 4 rounds down", "十万円", "123456789", "123000000"),
    ("十万円の位で四捨五入: 十万 digit 5 rounds up", "十万円", "123556789", "124000000"),
    ("百万円の位で四捨五入", "百万円", "1234567890", "1230000000"),
    ("千の位で四捨五入", "千", "-4187500", "-4190000"),
    ("一の位で四捨五入", "一の位", "15", "20"),
    ("億円の位で四捨五入", "億円", "1449499999999", "1449000000000"),
]


@pytest.mark.parametrize("phrase,place,number,shown", PLACE_CASES, ids=[c[0] for c in PLACE_CASES])
def test_round_at_place_rounds_the_named_digit_away(phrase, place, number, shown):
    assert fixed_point(round_at_place(Decimal(number), place)) == shown


def test_place_power_reads_combined_place_names():
    assert [place_power(p) for p in ("十", "百万", "十万円", "千万円", "億", "十億円")] == [1, 6, 5, 7, 8, 9]


def test_an_unknown_place_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown place"):
        round_at_place(Decimal(1), "小数")


def test_round_half_up_keeps_large_amounts_exact():
    # 28 significant digits would not be enough for a ROUND_HALF_UP at 2 decimals of 10^30.
    assert round_half_up(Decimal("123456789012345678901234567890.125"), 2) == Decimal(
        "123456789012345678901234567890.13"
    )


@pytest.mark.parametrize(
    "number,unit,target,expected",
    [
        ("1234567.8", "元", "万元", "123.45678"),
        ("123.4", "万元", "元", "1234000"),
        ("4187000000", "円", "百万円", "4187"),
        ("2.5", "億円", "百万円", "250"),
        ("7", "元", "元", "7"),
    ],
)
def test_convert_unit_scales_between_units_of_one_currency(number, unit, target, expected):
    assert convert_unit(Decimal(number), unit, target) == Decimal(expected)


@pytest.mark.parametrize("unit,target", [("元", "百万円"), ("人", "万元"), ("", "元")])
def test_convert_unit_refuses_units_that_do_not_match(unit, target):
    with pytest.raises(ValueError, match="cannot convert"):
        convert_unit(Decimal(1), unit, target)


def test_number_style_rejects_impossible_precision():
    with pytest.raises(InputError):
        NumberStyle(digits=-1)
