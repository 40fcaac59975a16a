"""One language detector for documents, chunks and questions (core/language.py)."""

import unicodedata

from core.language import cjk_language, language_of, without_spaces_in_cjk


def test_kana_decide_japanese_and_han_alone_chinese():
    assert language_of("当社グループは、医薬品の研究開発を行っています。") == "ja"
    assert language_of("当社の従業員数") == "ja"
    assert language_of("本公司主要从事轨道交通装备的研发、生产和销售。") == "zh"
    assert language_of("本公司民國一一二年合併綜合損益表") == "zh"
    assert language_of("營業收入") == language_of("营业收入") == "zh"
    assert language_of("EPS 2023") == "latin"


def test_kanji_only_japanese_writes_count_as_japanese():
    assert language_of("売上高 37,154,298 百万円") == "ja"  # no kana
    assert language_of("利益準備金") == "zh"  # kanji both languages write: the document's language decides


def test_a_few_kana_in_a_long_chinese_text_leave_it_chinese():
    chinese = "本公司主要从事轨道交通装备的研发、生产和销售。" * 10
    assert language_of("ソニー" + chinese) == "zh"
    assert language_of("ソニー" + chinese[:40]) == "ja"  # a short text: three kana are a visible share


def test_half_width_katakana_after_nfkc():
    assert language_of(unicodedata.normalize("NFKC", "ｶﾌﾞｼｷｶﾞｲｼｬ")) == "ja"


def test_a_document_text_without_cjk_leaves_its_language_open():
    assert cjk_language("1234 abc") == ""
    assert cjk_language("営業収益 1,672") == "ja"


def test_spaces_between_cjk_characters_are_removed_and_others_kept():
    assert without_spaces_in_cjk("關 係 人　名 稱 of 2023 年") == "關係人名稱 of 2023 年"
