import pytest

from core.numerals import cjk_number, kanji_number


@pytest.mark.parametrize(
    "text,number",
    [
        ("112", 112),
        ("１１２", 112),
        ("一一二", 112),
        ("一百一十二", 112),
        ("二〇一九", 2019),
        ("十", 10),
        ("十二", 12),
        ("二十三", 23),
        ("两", 2),
        ("兩", 2),
        ("元", 1),
        ("abc", None),
        ("", None),
        ("前", None),
    ],
)
def test_numbers_in_arabic_and_chinese_numerals(text, number):
    assert cjk_number(text) == number


@pytest.mark.parametrize("number", [1, 9, 10, 11, 24, 100, 110, 193, 999, 1000, 1005, 2380, 9999])
def test_kanji_numbers_read_back_as_the_same_number(number):
    assert cjk_number(kanji_number(number)) == number


def test_kanji_numbers_are_written_the_way_statutes_write_them():
    assert [kanji_number(n) for n in (24, 193, 110, 1000)] == ["二十四", "百九十三", "百十", "千"]
