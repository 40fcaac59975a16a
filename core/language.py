"""The language of a text, from its scripts: the one detector for documents, chunks and questions.

Kana are written only in Japanese, so their share of the CJK characters decides; kanji that only
Japanese writes (rules/tokens.yaml `ja_only_kanji`: 円, 売, 払 ...) count with them, so a kana-less
Japanese table label (売上原価) is still Japanese. A share rather than a single kana, so that a
Chinese report quoting one Japanese name, or a few kana that OCR saw in noise, stays Chinese.

>>> language_of("2019年营业收入是多少元?"), language_of("売上高は?"), language_of("利益準備金"), language_of("Revenue")
('zh', 'ja', 'zh', 'latin')
>>> language_of("売上原価"), language_of("ソニー集团的营业收入" + "营业收入" * 30)
('ja', 'zh')
"""

from __future__ import annotations

import re

from core.rulebook import active, per_book

ZH, JA, LATIN = "zh", "ja", "latin"
# The languages the rule files write words and templates for: the keys of every per-language section
# (answers.yaml templates, facts.yaml sentences, documents' metadata). Adding a language starts here;
# the schemas then ask for its words in each file (docs/contributing.md).
LANGUAGES = (ZH, JA)
# Hiragana and katakana, with the middle dot ・ and their phonetic extensions.
KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = KANA + HAN  # a character class body: f"[{CJK}]"
# At least this share of the CJK characters must be Japanese marks: a Chinese annual report of 891 pages
# prints a few Japanese names, far below it; the shortest Japanese question (売上高は?) is 25%.
KANA_SHARE = 0.03

_KANA = re.compile(f"[{KANA}]")
_HAN = re.compile(f"[{HAN}]")
# read through the book, not core.vocabulary, whose schemas import LANGUAGES from here
_JA_ONLY = per_book(lambda: frozenset(active().vocabulary("tokens")["ja_only_kanji"]))


def language_of(text: str) -> str:
    """JA, ZH, or LATIN for a text without CJK characters."""
    han = _HAN.findall(text)
    kana = len(_KANA.findall(text))
    if not han and not kana:
        return LATIN
    ja_only = _JA_ONLY.value()
    japanese = kana + sum(1 for char in han if char in ja_only)
    return JA if japanese and japanese >= KANA_SHARE * (kana + len(han)) else ZH


def cjk_language(text: str) -> str:
    """`language_of` for reading a document's language: "" when the text has no CJK characters, so that
    another of its texts (the cover, then the body) may tell."""
    language = language_of(text)
    return "" if language == LATIN else language


_SPACE_BETWEEN_CJK = re.compile(f"(?<=[{CJK}])[ \t\u3000]+(?=[{CJK}])")


def without_spaces_in_cjk(text: str) -> str:
    """The text without the spaces between CJK characters that PDF layouts put into headings and dates.

    >>> without_spaces_in_cjk("民國 一一二 年 and 2023")
    '民國一一二年 and 2023'
    """
    return _SPACE_BETWEEN_CJK.sub("", text)


def rule_language(language: str, fallback: str = ZH) -> str:
    """The key of the per-language rule sections that serve `language`: itself, or `fallback` for a
    language the rules write no words for (a question in Latin script is answered in Chinese).

    >>> rule_language(JA), rule_language(LATIN), rule_language("", fallback=JA)
    ('ja', 'zh', 'ja')
    """
    return language if language in LANGUAGES else fallback
