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

from collections.abc import Iterable

from core.errors import InputError
from core.records import Chunk, DocumentMeta, Line
from core.sentences import Sentence, SentenceSplitter, join_text
from parser.headings import HeadingRules, HeadingStack
from parser.settings import ParseSettings


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
                current = current[len(current) - overlap :] if overlap else []
                while current and len(_joined(current + [sentence])) > limit:
                    current = current[1:]
            current.append(sentence)
        groups.append(current)
        return groups

    def _add(self, prefix: str, kind: str, titles: tuple[str, ...], sentences: list[Sentence]) -> None:
        n = self._counts[prefix]
        self._counts[prefix] += 1
        self.chunks.append(
            Chunk(
                chunk_id=f"{self.meta.doc_id}#{prefix}{n}",
                doc_id=self.meta.doc_id,
                text=_joined(sentences),
                titles=titles,
                page_start=min(s.page_start for s in sentences),
                page_end=max(s.page_end for s in sentences),
                company=self.meta.company,
                year=self.meta.year,
                kind=kind,
            )
        )


def _joined(sentences: list[Sentence]) -> str:
    text = ""
    for sentence in sentences:
        text = join_text(text, sentence.text)
    return text
