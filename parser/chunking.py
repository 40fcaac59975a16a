"""Cut running text into searchable chunks that know their heading path.

Lines come from the PDF, HTML or text parsers; a line that is a heading (by
`Line.heading_level` or by rules/headings.yaml) closes the current section.
Each section's text is split into sentences (a Chinese line broken by the
layout in mid-sentence is joined back first) and packed greedily into "text"
chunks of at most `chunk_chars`, each starting with the last
`overlap_sentences` sentences of the one before. A section of at most
`section_chars` also becomes one whole "section" chunk. No chunk crosses a
heading.

>>> chunker = Chunker(ParseSettings(chunk_chars=200), HeadingRules.load())
>>> chunks = chunker.run(DocumentMeta("insurance/1", company="範例人壽", year=2023),
...                      [Line("第三條 契約撤銷權", page=1),
...                       Line("要保人於保險單送達的翌日起算十日內，得以書面檢同保險單", page=1),
...                       Line("向本公司撤銷本契約。", page=1)])
>>> chunks[0].chunk_id, chunks[0].titles, chunks[0].text
('insurance/1#t0', ('第三條 契約撤銷權',), '要保人於保險單送達的翌日起算十日內，得以書面檢同保險單向本公司撤銷本契約。')
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from parser.errors import InputError
from parser.headings import HeadingRules, HeadingStack
from parser.records import Chunk, DocumentMeta, Line
from parser.settings import ParseSettings
from parser.vocabulary import vocabulary

_PUNCTUATION = vocabulary("punctuation")  # rules/punctuation.yaml
SENTENCE_END: str = _PUNCTUATION["sentence_ends"]
# Closing quotes and brackets right after a sentence end belong to that sentence: 「……。」
_SENTENCE = re.compile(rf"[{re.escape(SENTENCE_END)}]+[{re.escape(_PUNCTUATION['sentence_closers'])}]*")
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


class Chunker:
    """Sections and sentence-packed chunks of one document's lines."""

    def __init__(self, settings: ParseSettings, rules: HeadingRules):
        if not isinstance(settings, ParseSettings):
            raise InputError(f"Chunker needs ParseSettings, got {type(settings).__name__}")
        if not isinstance(rules, HeadingRules):
            raise InputError(f"Chunker needs HeadingRules, got {type(rules).__name__}")
        self.settings = settings
        self.rules = rules

    def run(self, meta: DocumentMeta, lines: Iterable[Line]) -> list[Chunk]:
        """All chunks of the document, in reading order, with stable ids."""
        build = _ChunkBuilder(meta, self.settings)
        stack = HeadingStack()
        splitter = SentenceSplitter(self.settings.chunk_chars)
        sentences: list[Sentence] = []
        for line in lines:
            level = line.heading_level if line.heading_level is not None else self.rules.level(line.text)
            if level is not None and line.text.strip():
                build.section(stack.path, sentences + splitter.flush())
                sentences = []
                stack.push(level, line.text)
            else:
                sentences += splitter.feed(line.text, line.page)
        build.section(stack.path, sentences + splitter.flush())
        return build.chunks


class _ChunkBuilder:
    def __init__(self, meta: DocumentMeta, settings: ParseSettings):
        self.meta = meta
        self.settings = settings
        self.chunks: list[Chunk] = []
        self._counts = {"t": 0, "s": 0}

    def section(self, titles: tuple[str, ...], sentences: list[Sentence]) -> None:
        sentences = [s for s in sentences if s.text]
        if not sentences:
            return
        for group in self._pack(sentences):
            self._add("t", "text", titles, group)
        whole = _joined(sentences)
        if len(whole) <= self.settings.section_chars:
            self._add("s", "section", titles, sentences)

    def _pack(self, sentences: list[Sentence]) -> list[list[Sentence]]:
        limit, overlap = self.settings.chunk_chars, self.settings.overlap_sentences
        groups: list[list[Sentence]] = []
        current: list[Sentence] = []
        for sentence in sentences:
            if current and len(_joined(current + [sentence])) > limit:
                groups.append(current)
                current = current[len(current) - overlap:] if overlap else []
                while current and len(_joined(current + [sentence])) > limit:
                    current = current[1:]
            current.append(sentence)
        groups.append(current)
        return groups

    def _add(self, prefix: str, kind: str, titles: tuple[str, ...], sentences: list[Sentence]) -> None:
        n = self._counts[prefix]
        self._counts[prefix] += 1
        self.chunks.append(Chunk(
            chunk_id=f"{self.meta.doc_id}#{prefix}{n}",
            doc_id=self.meta.doc_id,
            text=_joined(sentences),
            titles=titles,
            page_start=min(s.page_start for s in sentences),
            page_end=max(s.page_end for s in sentences),
            company=self.meta.company,
            year=self.meta.year,
            kind=kind,
        ))


def _joined(sentences: list[Sentence]) -> str:
    text = ""
    for sentence in sentences:
        text = join_text(text, sentence.text)
    return text
