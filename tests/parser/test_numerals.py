import pytest

from parser.numerals import cjk_number


@pytest.mark.parametrize("text,number", [("112", 112), ("１１２", 112), ("一一二", 112), ("一百一十二", 112),
                                         ("二〇一九", 2019), ("十", 10), ("十二", 12), ("二十三", 23), ("两", 2),
                                         ("兩", 2), ("元", 1), ("abc", None), ("", None), ("前", None)])
def test_numbers_in_arabic_and_chinese_numerals(text, number):
    assert cjk_number(text) == number
