"""Article numbers and provisions in Japanese statutes, shared by the statute parser and the law questions.

An article label is written in kanji or Arabic numerals ("第二十四条の二", "第24条の2");
`article_key` gives one spelling for either form, and `provisions` splits an
article's text into its paragraphs and items.

>>> article_key("第二十四条の二"), article_key("第24条の2第1項"), article_key("附則 第三条")
('24の2', '24の2', '附則3')
>>> arabic_articles("第百九十三条の二第一項"), kanji_articles("第5条第6項")
('第193条の2第1項', '第五条第六項')
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from core.numerals import cjk_number, kanji_number
from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary

ARTICLE_KIND = "article"
_WORDS = per_book(lambda: vocabulary("statutes"))  # rules/statutes.yaml


def pattern(name: str) -> pattern_per_book:
    """A pattern of rules/statutes.yaml, with {num} standing for an article number in either numeral form."""
    return pattern_per_book(lambda: re.compile(_WORDS[name].replace("{num}", _WORDS["number"])))


# 第二十四条の二の三, 第5条第6項第2号: an article reference with its branch numbers, paragraph and item.
_REFERENCE = pattern("reference")
_ARTICLE_LABEL = pattern("article_label")
_ORDINAL = per_book(lambda: _WORDS["ordinal"])
_BRANCH = per_book(lambda: _WORDS["branch"])
_SUPPLEMENTARY = per_book(lambda: _WORDS["supplementary"])
_LEAD = pattern("lead")
# The second column of a two-column item (書類　五年) that the conversion put on a line of its own.
_PERIOD_COLUMN = pattern("period_column")
_NEW_PARAGRAPH = pattern("new_paragraph")


def article_key(label: str) -> str:
    """One spelling for an article label in either numeral form: "第二十四条の二" and "第24条の2" -> "24の2"."""
    text = unicodedata.normalize("NFKC", label).strip()
    match = _ARTICLE_LABEL.match(text)
    if not match:
        return ""
    branches = "".join(
        f"{_BRANCH.value()}{cjk_number(b)}" for b in match.group(3).split(_BRANCH.value()) if b
    )
    return f"{_SUPPLEMENTARY.value() if match.group(1) else ''}{cjk_number(match.group(2))}{branches}"


def _numbers(text: str, convert) -> str:
    return _BRANCH.value().join(convert(part) for part in text.split(_BRANCH.value()))


def arabic_articles(text: str) -> str:
    """Article, paragraph and item numbers in Arabic digits: 第二十四条の二第一項 -> 第24条の2第1項."""

    def arabic(match: re.Match) -> str:
        branches = _numbers(match.group(3), lambda n: str(cjk_number(n)) if n else "")
        return f"{_ORDINAL.value()}{cjk_number(match.group(1))}{match.group(2)}{branches}"

    return _REFERENCE.sub(arabic, unicodedata.normalize("NFKC", text))


def kanji_articles(text: str) -> str:
    """Article, paragraph and item numbers as statutes write them: 第24条の2第1項 -> 第二十四条の二第一項."""

    def kanji(match: re.Match) -> str:
        branches = _numbers(match.group(3), lambda n: kanji_number(cjk_number(n)) if n else "")
        return f"{_ORDINAL.value()}{kanji_number(cjk_number(match.group(1)))}{match.group(2)}{branches}"

    return _REFERENCE.sub(kanji, unicodedata.normalize("NFKC", text))


@dataclass(frozen=True)
class Provision:
    paragraph: int  # 1-based 項
    item: int | None  # 1-based 号, None for the paragraph's own sentence
    text: str


def provisions(text: str, two_column: re.Pattern | None = None) -> list[Provision]:
    """The paragraphs and items of an article whose numbers the Markdown conversion dropped, reconstructed.

    A line after a lead line (次に掲げる…, 次の各号…) is an item until a line that
    reads like a paragraph: it opens with 前項/第N項/前条/この法律, or it is a full
    sentence with a topic (…は、…。) rather than a noun phrase or a …こと。 clause.
    A line starting ただし or この場合において (a proviso, a second sentence) continues
    its paragraph or item, and a lone period (五年) is the
    second column of the item above it. Sub-items (イ, ロ) cannot be
    told from items and are counted as items; XML sources keep their numbers.
    When the lead matches `two_column` (…の区分に応じ当該各号に定める額), each item is a
    case and what it is given, which the conversion put on two lines: they are joined.
    """
    end = _WORDS["sentence_end"]
    out: list[Provision] = []
    paragraph, item, listing, paired, second = 0, 0, False, False, False
    for line in (raw.strip() for raw in text.splitlines()):
        if not line:
            continue
        if out and (
            line.startswith(tuple(_WORDS["continuations"]))
            or (out[-1].item and _PERIOD_COLUMN.match(line))
            or (second and not line.endswith(end) and not _NEW_PARAGRAPH.match(line))
        ):
            joiner = _WORDS["column_joiner"] if _PERIOD_COLUMN.match(line) or second else ""
            out[-1] = Provision(out[-1].paragraph, out[-1].item, out[-1].text + joiner + line)
            second = False
            continue
        sentence_like = (
            line.endswith(end)
            and any(mark in line for mark in _WORDS["topic_marks"])
            and not line.endswith(tuple(_WORDS["clause_endings"]))
        )
        if listing and not _NEW_PARAGRAPH.match(line) and not sentence_like:
            item += 1
            out.append(Provision(paragraph, item, line))
            second = paired and not line.endswith(end)
            continue
        paragraph, item = paragraph + 1, 0
        out.append(Provision(paragraph, None, line))
        listing = bool(_LEAD.search(line))
        paired = listing and two_column is not None and bool(two_column.search(line))
        second = False
    return out
