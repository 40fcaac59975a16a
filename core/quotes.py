"""Quoted words: 「原材料及び貯蔵品」, “营业收入”, "Revenue".

One list of quote marks, the `quotes` pairs of rules/punctuation.yaml, serves every reader of a
quote: a question's key words (qa/understand), a securities-report label and its context
(qa/data/cells.py), a term a statute option quotes (qa/statutes). Readers differ only in how long
a quoted word may be and in whether nested quotes are read from the outermost pair.

>>> [q.word for q in find_quoted("「負債」と“营业收入”")]
['負債', '营业收入']
>>> find_quoted("「現金及び預金、「流動資産」」", longest=200, outermost=True)[0].word
'現金及び預金、「流動資産」'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.rulebook import cached_per_book
from core.vocabulary import vocabulary


@dataclass(frozen=True)
class Quoted:
    """One quoted word: the word, its place in the text, and the word with its marks."""

    word: str
    start: int
    end: int
    marked: str


def find_quoted(text: str, *, shortest: int = 1, longest: int = 80, outermost: bool = False) -> list[Quoted]:
    """The words `text` quotes, in order, each `shortest`..`longest` characters long.

    `outermost`: a quote may hold other quotes and the outer pair wins (「売上高、「セグメント」」);
    otherwise a quoted word holds no quote mark of its pair.
    """
    found = []
    for m in _pattern(shortest, longest, outermost).finditer(text):
        word = next(g for g in m.groups() if g is not None)
        found.append(Quoted(word, m.start(), m.end(), m.group(0)))
    return found


@cached_per_book(maxsize=None)
def _pattern(shortest: int, longest: int, outermost: bool) -> re.Pattern:
    alternatives = []
    for opening, closing in vocabulary("punctuation")["quotes"]:
        inner = "." if outermost else f"[^{re.escape(opening + closing)}]"
        alternatives.append(f"{re.escape(opening)}({inner}{{{shortest},{longest}}}){re.escape(closing)}")
    return re.compile("|".join(alternatives))
