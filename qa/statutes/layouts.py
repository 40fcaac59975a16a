"""The layout of a multiple-choice question on statutes: the statements judged, and what each option says.

Three layouts, read from the question and its options (rules/laws.yaml `layouts`), never from a source:
- plain: each option (1-5, a-d) is one statement;
- combination: the question prints statements ア～オ, one per mark at the start of a line (the text a PDF
  wrapped over several lines is joined again), and each option names some of them (ア・イ); the pick is the
  option whose statements are, together, the most right (or the most wrong, for a negative question);
- counting: the question asks how many of its statements are right or wrong (いくつあるか) and each option
  is a number (一つ, 二つ, …, なし); the pick is the option naming the count of statements judged so.

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
_STRAY = re.compile(r"[^\w]")


@dataclass(frozen=True)
class Layout:
    kind: str  # plain, combination or counting
    stem: str  # the question without its statements
    statements: dict[str, str]  # mark (or option letter, when plain) -> statement text, lines joined
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)  # combination: option -> its marks
    counts: dict[str, int] = field(default_factory=dict)  # counting: option -> the number it names


def unwrap(text: str) -> str:
    """Text a PDF wrapped over several lines, joined again (Japanese writes no space between words)."""
    return "".join(line.strip() for line in text.splitlines())


def read_layout(question: str, options: dict[str, str]) -> Layout:
    """The question's layout; plain when its statements or options are not of another layout's form."""
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
