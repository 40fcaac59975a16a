"""Sentences of running text, with the pages they lie on: the chunker packs them, answers quote them.

A Chinese or Japanese line broken by the layout in mid-sentence is joined
back without a space (`join_text`); sentences end at 。！？；!? and keep the
closing quotes or brackets that follow.

>>> join_text("要保人於保險單送達的翌日起算十日內，", "得以書面撤銷本契約。")
'要保人於保險單送達的翌日起算十日內，得以書面撤銷本契約。'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary

_PUNCTUATION = per_book(lambda: vocabulary("punctuation"))  # rules/punctuation.yaml
SENTENCE_END: str = per_book(lambda: _PUNCTUATION["sentence_ends"])
# Closing quotes and brackets right after a sentence end belong to that sentence: 「……。」
_SENTENCE = pattern_per_book(
    lambda: re.compile(
        rf"[{re.escape(SENTENCE_END.value())}]+[{re.escape(_PUNCTUATION['sentence_closers'])}]*"
    )
)
_WIDE = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


def join_text(left: str, right: str) -> str:
    """Join two pieces of one text: no space next to CJK or inside a number, one between Latin words.

    >>> join_text("营业收入23.4", "6亿元"), join_text("net", "income")
    ('营业收入23.46亿元', 'net income')
    """
    if not left or not right:
        return left + right
    if left[-1].isspace() or right[0].isspace() or _WIDE.match(left[-1]) or _WIDE.match(right[0]):
        return left + right
    if right[0].isdigit() and (left[-1].isdigit() or left[-1] in ".,"):
        return left + right  # a number the layout broke over two lines
    return f"{left} {right}"


@dataclass(frozen=True)
class Sentence:
    text: str
    page_start: int
    page_end: int


class SentenceSplitter:
    """Sentences from a stream of lines; none longer than `max_chars`.

    A sentence ends at 。！？；!? (with any closing quote), at an empty line
    (paragraph break), or, when it runs past `max_chars` without an end, at
    the last line break (else the last space, else hard) before the limit.
    """

    def __init__(self, max_chars: int):
        self.max_chars = max_chars
        self._text = ""
        self._marks: list[tuple[int, int]] = []  # (offset where a line starts, its page)
        self._taken = 0  # characters handed out so far, to map match offsets after cuts

    def feed(self, text: str, page: int) -> list[Sentence]:
        text = text.strip()
        if not text:
            return self.flush()
        joined = join_text(self._text, text)
        self._marks.append((len(joined) - len(text), page))
        self._text = joined
        out: list[Sentence] = []
        taken_before = self._taken
        for match in _SENTENCE.finditer(joined):
            out += self._cut_long(match.end() - (self._taken - taken_before))
            out.append(self._take(match.end() - (self._taken - taken_before)))
        out += self._cut_long(len(self._text))
        return out

    def flush(self) -> list[Sentence]:
        out = self._cut_long(len(self._text))
        if self._text.strip():
            out.append(self._take(len(self._text)))
        self._text, self._marks = "", []
        return out

    def _cut_long(self, upto: int) -> list[Sentence]:
        """Cut pieces off the front while the first `upto` characters exceed max_chars."""
        out = []
        while upto > self.max_chars:
            low, high = self.max_chars // 3, self.max_chars
            breaks = [offset for offset, _ in self._marks if low < offset <= high]
            space = self._text.rfind(" ", low, high + 1)
            cut = breaks[-1] if breaks else (space if space > 0 else high)
            out.append(self._take(cut))
            upto -= cut
        return out

    def _take(self, length: int) -> Sentence:
        head, self._text = self._text[:length], self._text[length:]
        self._taken += length
        page_start = _page_at(self._marks, len(head) - len(head.lstrip()))
        page_end = _page_at(self._marks, len(head.rstrip()) - 1)
        rest = [(offset - length, page) for offset, page in self._marks if offset > length]
        if self._text and not (rest and rest[0][0] == 0):
            rest.insert(0, (0, _page_at(self._marks, length)))
        self._marks = rest
        return Sentence(head.strip(), page_start, page_end)


def _page_at(marks: list[tuple[int, int]], offset: int) -> int:
    page = marks[0][1] if marks else 0
    for start, mark_page in marks:
        if start > offset:
            break
        page = mark_page
    return page
