"""A section printed as a table: passages in cells, the points of the section as rows across the table.

Auditors print the key audit matters of an annual report as a table of prose: column headings
(关键审计事项 | 该事项在审计中是如何应对的), then for each matter a row across the table that names it
((一) 营业收入的确认, or an unnumbered 结构化主体合并评估) and rows of long passages under it. Read as
figures, such a table gave sentences "passage为passage" and lost the matters' names; read as a key-value
table, it lost them too (a name row has no value). Here each row of passages becomes one chunk of its text,
and the row naming a point above it is a heading of those chunks, one level below the table's headings:
a numbered name of the same level as the heading above the table ((一) after a summary's (二)) takes that
heading's place, as in running text (parser/headings.py HeadingStack); unnumbered names are one level
below the table's headings, each taking the place of the one before. The text route then finds the
matters under the topic's heading, each passage with its point (qa/text/answer.py `_point`).

A table is prose when a row names a point above passages and most of its filled cells that are not such
names hold passages (at least `PROSE_CHARS` characters with a sentence or clause mark). A key-value table
with one long cell (经营范围) is not, nor are tables of questions and answers or of policies with their
approval (label | passage, no point named across): they stay records (parser/records.py), label by label.

>>> import pandas as pd
>>> matter = "2021年度，财务报表所示营业收入发生额为10,619,015.48万元。由于营业收入是公司的关键业绩指标之一，我们将收入确认作为关键审计事项。"
>>> response = "我们执行的审计程序主要包括：了解和评价管理层与收入确认相关的关键内部控制的设计和运行有效性；选取样本检查销售合同。"
>>> frame = pd.DataFrame([["关键审计事项", "该事项在审计中是如何应对的"], ["（一）营业收入的确认", ""],
...                       [matter, response]], columns=["#0", "#1"])
>>> [(row.titles, row.text[:9]) for row in prose_rows(frame, ("第十节 财务报告", "三、关键审计事项"))]
[(('第十节 财务报告', '三、关键审计事项', '（一）营业收入的确认'), '2021年度，财务')]
"""

from __future__ import annotations

from dataclasses import dataclass

from core.rulebook import per_book
from core.sentences import SENTENCE_END, join_text
from core.units import parse_quantity
from core.vocabulary import vocabulary
from parser.headings import HeadingRules, HeadingStack
from parser.tables import clean_cell, column_period

# A passage: at least this many characters, with a sentence or clause mark (a name or a label has neither).
PROSE_CHARS = 40
HEADINGS_ROW = -1  # ProseRow.row of a first row of passages that was read as the table's column headings
_MARKS = per_book(lambda: SENTENCE_END.value() + vocabulary("punctuation")["inner_marks"])


@dataclass(frozen=True)
class ProseRow:
    """One row of passages of a prose table: its text in column order and the headings above it."""

    row: int  # the row's position in the table's frame
    titles: tuple[str, ...]
    text: str


def prose_rows(
    frame, titles: tuple[str, ...], rules: HeadingRules | None = None, continues: str = ""
) -> list[ProseRow]:
    """The rows of passages of a prose table, each with its heading path; [] when the table is not prose.

    `continues` is the point the part of the table on the page before named last, with its passages left for
    this page (`open_point`): the passages before this part's first named point are under it. Such a part has
    no column headings: its first row of passages, read as headings, is its first row (`HEADINGS_ROW`)."""
    rows = [(i, _distinct(frame.iat[i, j] for j in range(len(frame.columns)))) for i in range(len(frame))]
    headings = _distinct(column_period(str(label)) for label in frame.columns)
    if any(map(_is_passage, headings)):
        rows.insert(0, (HEADINGS_ROW, headings))
    passages = [cell for _, cells in rows for cell in cells if _is_passage(cell)]
    others = [cell for _, cells in rows if len(cells) > 1 for cell in cells if not _is_passage(cell)]
    named = [k for k, (_, cells) in enumerate(rows) if _names_point(cells)]
    last_passage = max((k for k, (_, cells) in enumerate(rows) if any(map(_is_passage, cells))), default=-1)
    if len(passages) < 2 or len(passages) < len(others) or not (named or continues):
        return []
    if named and named[0] > last_passage and not continues:
        return []  # names after every passage: a list with notes, not points over passages
    rules = rules or HeadingRules.shared()
    stack, below = _stack(titles, rules)
    if continues:
        stack.push(rules.level(continues) or below, continues)
    out = []
    for i, cells in rows:
        if _names_point(cells):
            stack.push(rules.level(cells[0]) or below, cells[0])
            continue
        if not any(_is_passage(cell) for cell in cells):
            continue  # column headings (关键审计事项 | 该事项在审计中是如何应对的) and empty rows state nothing
        text = ""
        for cell in cells:
            text = join_text(text, cell)
        out.append(ProseRow(i, stack.path, text))
    return out


def open_point(frame) -> str:
    """The point a table's last filled row names, when no passage follows it (its passages run on to the next
    page), else ""."""
    for i in range(len(frame) - 1, -1, -1):
        cells = _distinct(frame.iat[i, j] for j in range(len(frame.columns)))
        if cells:
            return cells[0] if _names_point(cells) else ""
    return ""


def _stack(titles: tuple[str, ...], rules: HeadingRules) -> tuple[HeadingStack, int]:
    """The table's heading path as an open heading stack (a title without a level nests in the one above), and
    the level just below its deepest title, where unnumbered point names go."""
    stack, level = HeadingStack(), 0
    for title in titles:
        level = rules.level(title) or level + 1
        stack.push(level, title)
    return stack, level + 1


def _distinct(values) -> list[str]:
    """A row's filled cells, each once (a merged cell is repeated in each column it spans)."""
    return list(
        dict.fromkeys(text for text in (clean_cell("" if v is None else str(v)) for v in values) if text)
    )


def _names_point(cells: list[str]) -> bool:
    """A row across the table that names the point of the passages below it: one short cell, no figure."""
    return len(cells) == 1 and not _is_passage(cells[0]) and parse_quantity(cells[0]) is None


def _is_passage(text: str) -> bool:
    return len(text) >= PROSE_CHARS and any(mark in text for mark in _MARKS.value())
