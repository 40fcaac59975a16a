"""Numbers broken inside narrow cells are joined again; numbers that only sit together stay apart; units scale."""

from decimal import Decimal

from core.units import is_dash, parse_quantity, rejoin_split_number, scale_of
from parser.tables import clean_cell


def test_a_grouped_number_broken_over_lines_of_a_cell_is_one_number():
    # 生物股份's notes print 26,452,580.12 over three lines of a narrow cell.
    assert parse_quantity(clean_cell("26,452\n,580.1\n2")).value == "26452580.12"
    assert parse_quantity(clean_cell("999,254,562. 78")).value == "999254562.78"


def test_negatives_in_brackets_or_with_a_triangle_are_joined_too():
    assert parse_quantity(clean_cell("(1,234\n,567)")).value == "-1234567"
    assert rejoin_split_number("△1,234 ,567") == "△1,234,567"


def test_separate_numbers_in_one_cell_are_not_joined():
    for text in ("1,234 5,678", "12 34", "1,234 567.89", "2021年 12月31日", "3.5 %", "△ 4,187"):
        assert rejoin_split_number(text) == text


def test_a_unit_of_hundreds_scales_a_count():
    assert scale_of("百株") == (Decimal(100), "株")  # 所有株式数（百株）
    assert scale_of("百万円") == (Decimal(1000000), "円")  # the longer multiplier first
    assert scale_of("百分比") is None


def test_a_secondary_figure_in_brackets_is_positive_and_never_the_cells_figure():
    assert parse_quantity("[ 9,112 ]", "", parentheses_negative=False).number == 9112  # 臨時雇用者数
    assert parse_quantity("19,154 [ 672 ]").number == 19154
    assert parse_quantity("2,853 (529)", "", parentheses_negative=False).number == 2853


def test_note_marks_before_a_dash_leave_a_dash():
    assert is_dash("※３ , ※５ －") and not is_dash("※１ 1,234")


def test_a_figure_printed_after_its_class_of_shares_is_the_figure():
    assert parse_quantity("普通株式13,581,995,120").number == 13581995120
    assert parse_quantity("普通株式 25.00 ( 12.50 )", parentheses_negative=False).number == Decimal("25.00")
    assert parse_quantity("普通株式") is None
