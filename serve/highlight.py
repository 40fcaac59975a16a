"""Where an answer's evidence is printed on its page: the table cell it quotes, else the text lines it spans.

The page layout kept at ingest (core/layout.py) holds each text line and each
table word of a PDF page with its box. An evidence item names its page and
quotes what it found there: a fact's evidence writes the row label (as the
facts store cleans it, parser.facts.clean_field), the column and the amount as
printed ("示例科技股份有限公司 2022年 研发费用（2022年度）：241,986,307.90"); a text
answer's evidence is a sentence. So on that page:

1. a table word the evidence quotes whole, on a row whose label (its
   leftmost word) the evidence names, is the value's cell; when the same amount is printed in
   several columns, the one whose heading the evidence names wins;
2. else the text lines that the evidence quotes or that quote it (a sentence
   wrapped over several lines marks each of them).

Nothing found is an empty list: the page is shown without a box, never with a
guessed one.

>>> [b.text for b in locate(boxes, 5, "示例科技 2022年 研发费用（2022年度）：241,986,307.90")]
['241,986,307.90']
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

from core.records import Box
from parser.facts import clean_field

MIN_QUOTE = 4  # a line shorter than this (a page number, a lone heading word) is never matched by itself
LINE_SHARE = 0.6  # a line shares at least this part of itself (or of the evidence) with the evidence
_SPACE = re.compile(r"\s+")
_CLOSING = {"（": "）", "(": ")", "［": "］", "[": "]"}
_OPENING = tuple(_CLOSING)


def locate(boxes: list[Box], page: int, evidence: str) -> list[Box]:
    """The boxes on `page` that `evidence` quotes: its value's cell, else its lines; [] when none."""
    on_page = [b for b in boxes if b.page == page]
    target = normalize(evidence)
    if not target:
        return []
    return _value_cells([b for b in on_page if b.kind == "cell"], target) or _quoted_lines(
        [b for b in on_page if b.kind == "line"], target
    )


def normalize(text: str) -> str:
    """Width-folded (NFKC), without white space: how a quote and the printed text are compared."""
    return _SPACE.sub("", unicodedata.normalize("NFKC", text))


def _value_cells(cells: list[Box], target: str) -> list[Box]:
    quoted = [c for c in cells if _quotes_whole(target, normalize(c.text))]
    scored = []
    for cell in quoted:
        if not any(_is_label_of(label, cell, cells, target) for label in cells):
            continue
        heading = any(
            _is_heading_of(h, cell, cells) and _quotes_whole(target, normalize(h.text)) for h in cells
        )
        scored.append((1 + heading, cell))
    best = max((score for score, _ in scored), default=0)
    return [cell for score, cell in scored if score == best]


def _quotes_whole(target: str, text: str) -> bool:
    """`text` occurs in `target`, not as a part of a longer number or word of Latin letters."""
    if not text:
        return False
    edge = r"[0-9A-Za-z.,]" if text[0].isalnum() or text[-1].isalnum() else r"(?!)"
    return re.search(f"(?<!{edge}){re.escape(text)}(?!{edge})", target) is not None


def _is_label_of(label: Box, cell: Box, cells: list[Box], target: str) -> bool:
    """`label` begins `cell`'s row (its leftmost word) and the evidence names it, as the facts store does."""
    if label is cell or label.x1 > cell.x0 or not _same_row(label, cell):
        return False
    if any(other.x0 < label.x0 and _same_row(other, label) for other in cells):
        return False
    return any(len(name) >= 2 and name in target for name in _label_names(label.text))


def _label_names(text: str) -> set[str]:
    """The field names a row label can stand for: as the facts store cleans it, and, when the label wrapped
    inside a bracket (净利润（净亏损以“－”号填 / 列）), its part before the bracket cleaned the same way."""
    names = {normalize(clean_field(text))}
    cut = min((text.rfind(b) for b in _OPENING if text.rfind(b) > text.rfind(_CLOSING[b])), default=-1)
    if cut > 0:
        names.add(normalize(clean_field(text[:cut])))
    return names


def _is_heading_of(heading: Box, cell: Box, cells: list[Box]) -> bool:
    """`heading` is printed above `cell`, over its column: between the word left of it on its row and its
    right edge (amounts are right-aligned under left-aligned headings, or the other way round)."""
    left = max((c.x1 for c in cells if c.x1 <= cell.x0 and _same_row(c, cell)), default=cell.x0)
    return heading.bottom <= cell.top and min(heading.x1, cell.x1) - max(heading.x0, left) > 0


def _same_row(a: Box, b: Box) -> bool:
    middle_a, middle_b = (a.top + a.bottom) / 2, (b.top + b.bottom) / 2
    return abs(middle_a - middle_b) <= max(a.bottom - a.top, b.bottom - b.top) / 2


def _quoted_lines(lines: list[Box], target: str) -> list[Box]:
    found = []
    for line in lines:
        text = normalize(line.text)
        if len(text) < MIN_QUOTE:
            continue
        match = SequenceMatcher(None, text, target, autojunk=False)
        longest = match.find_longest_match(0, len(text), 0, len(target)).size
        if longest >= MIN_QUOTE and longest >= LINE_SHARE * min(len(text), len(target)):
            found.append(line)
    return found
