"""The layout of a multiple-choice question on statutes: the statements judged, and what each option says.

Three layouts, read from the question and its options (rules/laws.yaml `layouts`), never from a source:
- plain: each option (1-5, a-d) is one statement;
- combination: the question prints statements ア～オ, one per mark at the start of a line (the text a PDF
  wrapped over several lines is joined again), and each option names some of them (ア・イ); the pick is the
  option whose statements are, together, the most right (or the most wrong, for a negative question);
- counting: the question asks how many of its statements are right or wrong (いくつあるか) and each option
  is a number (一つ, 二つ, …, なし); the pick is the option naming the count of statements judged so;
- blanks: the question prints a passage (articles of a law, a judgment) with blanks ア～オ and each option
  lists the words that fill them, in the order of the marks; each sentence of the passage that has a blank,
  filled with an option's words, is a statement of that option, which is then judged like a combination (its
  words are right only when every sentence they fill says what the law says).

>>> layout = read_layout("次のア～オの記述のうち、正しいものの組合せはどれか。\\nア 甲は乙。\\nイ 丙は丁。",
...                      {"1": "ア・イ", "2": "イ"})
>>> layout.kind, layout.statements, layout.options
('combination', {'ア': '甲は乙。', 'イ': '丙は丁。'}, {'1': ('ア', 'イ'), '2': ('イ',)})
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary

_LAYOUTS = per_book(lambda: vocabulary("statutes")["layouts"])  # rules/statutes.yaml
_MARK = pattern_per_book(lambda: re.compile(_LAYOUTS["statement"], re.MULTILINE))
_JOINERS = pattern_per_book(lambda: re.compile(_LAYOUTS["joiners"]))
_COUNTING = pattern_per_book(lambda: re.compile(_LAYOUTS["counting"]))
_COUNTS: dict[str, int] = per_book(lambda: _LAYOUTS["counts"])
_BLANKS = pattern_per_book(lambda: re.compile(_LAYOUTS["blanks"]))
_RANGES = pattern_per_book(lambda: re.compile(_LAYOUTS["ranges"]))
_SENTENCE_END = per_book(lambda: vocabulary("statutes")["sentence_end"])
_STRAY = re.compile(r"[^\w]")
# a word of an option that a PDF wrapped inside its table cell (償うことのでき \nない損害): its lines are one word
_WRAPPED = pattern_per_book(lambda: re.compile(_LAYOUTS["wrapped"]))
_KATAKANA = "\u30a0-\u30ff"


@dataclass(frozen=True)
class Layout:
    kind: str  # plain, combination, counting or blanks
    stem: str  # the question without its statements
    statements: dict[str, str]  # mark (or option letter, when plain) -> statement text, lines joined
    # combination: option -> its marks; blanks: option -> its filled sentences
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # counting: option -> the number it names


def unwrap(text: str) -> str:
    """Text a PDF wrapped over several lines, joined again (Japanese writes no space between words)."""
    return "".join(line.strip() for line in text.splitlines())


def read_layout(question: str, options: dict[str, str]) -> Layout:
    """The question's layout; plain when its statements or options are not of another layout's form."""
    blanks = _read_blanks(question, options)
    if blanks is not None:
        return blanks
    marks = list(_MARK.finditer(question))
    plain = Layout("plain", unwrap(question), {letter: unwrap(text) for letter, text in options.items()})
    if len(marks) < 2:
        return plain
    stem = unwrap(question[: marks[0].start()])
    statements = {
        m.group(1): unwrap(question[m.end() : nxt.start() if nxt else len(question)])
        for m, nxt in zip(marks, marks[1:] + [None])
    }
    if _COUNTING.search(stem):
        counts = {letter: _COUNTS.get(unwrap(text)) for letter, text in options.items()}
        if all(c is not None for c in counts.values()):
            return Layout("counting", stem, statements, counts=counts)
        return plain
    # a stray mark a PDF left after the last statement's mark (ウ・オ［) is not part of it
    combined = {
        letter: tuple(m for m in (_STRAY.sub("", p) for p in _JOINERS.split(unwrap(text))) if m)
        for letter, text in options.items()
    }
    if all(marks and all(m in statements for m in marks) for marks in combined.values()):
        return Layout("combination", stem, statements, options=combined)
    return plain


def _read_blanks(question: str, options: dict[str, str]) -> Layout | None:
    """The blanks layout, when the question asks for the words of its passage's blanks and every option lists
    one word per blank; None otherwise."""
    asked = _BLANKS.search(question)
    if asked is None:
        return None
    marks = _blank_marks(asked.group(1))
    end = question.find(_SENTENCE_END.value(), asked.end()) + 1
    if not end:  # the question sentence does not end: no passage follows it
        return None
    # the passage without the line of column heads above the options (ア イ ウ エ オ)
    heads = re.compile(rf"[\s{_LAYOUTS['marks']}]*")
    passage = unwrap("\n".join(line for line in question[end:].splitlines() if not heads.fullmatch(line)))
    words = {letter: _WRAPPED.sub("", text).split() for letter, text in options.items()}
    blank = re.compile(rf"(?<![{_KATAKANA}])([{''.join(marks)}])(?![{_KATAKANA}])")
    sentences = [s for s in _split_sentences(passage) if blank.search(s)]
    if not marks or not sentences or any(len(w) != len(marks) for w in words.values()):
        return None
    statements, filled = {}, {}
    for letter, said in words.items():
        fill = dict(zip(marks, said))
        filled[letter] = tuple(f"{letter}-{n}" for n in range(1, len(sentences) + 1))
        for key, sentence in zip(filled[letter], sentences):
            statements[key] = blank.sub(lambda m, words=fill: words[m.group(1)], sentence)
    return Layout("blanks", unwrap(question[:end]), statements, options=filled)


def _blank_marks(asked: str) -> list[str]:
    """The marks of the blanks a question names: ア～オ is a range, ア・イ a list."""
    named = [c for c in asked if c in _LAYOUTS["marks"]]
    if len(named) == 2 and _RANGES.search(asked):
        order = _LAYOUTS["marks"]
        return list(order[order.index(named[0]) : order.index(named[1]) + 1])
    return named


def _split_sentences(text: str) -> list[str]:
    """The sentences of a passage, split at each full stop outside brackets (（以下「…」という。） is inside one)."""
    out, start, depth = [], 0, 0
    for at, char in enumerate(text):
        depth += (char in _LAYOUTS["opening"]) - (char in _LAYOUTS["closing"])
        if char == _SENTENCE_END.value() and depth <= 0:
            out.append(text[start : at + 1])
            start, depth = at + 1, 0
    return out + ([text[start:]] if text[start:].strip() else [])
