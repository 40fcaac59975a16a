"""The text route: keyword and title search over small chunks, documents ranked from them, answers from wider context.

Find with small pieces, answer with larger context:
1. the query: the company and year as filters (dropped when the question
   names its `source` documents, which are the filter then), the key words
   as phrase clauses and as heading-title terms (boosted), the question's
   remaining terms (without what the filters already say) as a match
   clause, and for the fields asked (rules/fields.yaml) the title
   of the statement that holds them (资产负债表, 利润表/损益表, 现金流量表), since
   an amount is stated in its statement and only mentioned in the notes;
2. only small pieces ("text" and "table" chunks) are searched: a "section"
   chunk repeats the text chunks of its section, so it would count twice;
3. documents are ranked by an aggregate of their chunks' scores
   (`doc_score`, measured by `python -m eval.bench retrieval`): "decay" adds
   the best chunks with weights 1, 1/2, 1/4, 1/8, so the best chunk decides
   and further matching chunks count less and less; "max" and "top3_sum"
   are the two ends it lies between;
4. for the answer, the top document's chunks are searched again without the
   company and year (they no longer tell passages apart) and the best are widened to their
   whole section (a "section" chunk) or to their neighbours (#t{n-1},
   #t{n+1}) within `context_chars`;
5. without a model the answer is the best sentences of those passages with
   the document and page; with one, the model words it from them with
   citations, and an unusable reply falls back to the extractive answer.

>>> answerer = TextAnswerer(index, tokenizer, AnswerTemplates.load())
>>> answerer.retrieve(analysis).documents[:1]
['insurance/241']
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace

from parser.chunking import SentenceSplitter
from parser.errors import InputError
from parser.records import Chunk
from qa.answers import AnswerTemplates
from qa.fields import load_field_file
from qa.records import Analysis, Answer, Evidence
from qa.years import extract_years
from search.backend import Hit, SearchQuery, TextIndex
from search.tokenize import Tokenizer

DOC_SCORES = ("decay", "max", "top3_sum")
_DOC_WEIGHTS = {"decay": (1.0, 0.5, 0.25, 0.125), "max": (1.0,), "top3_sum": (1.0, 1.0, 1.0)}
SMALL_KINDS = ("text", "table")
# Titles of the statement a field's amount stands in (fields.yaml `statement`), per question language.
STATEMENT_TITLES = {
    "balance_sheet": {"zh": ("资产负债表",), "ja": ("貸借対照表",)},
    "income_statement": {"zh": ("利润表", "损益表"), "ja": ("損益計算書",)},
    "cash_flow": {"zh": ("现金流量表",), "ja": ("キャッシュ・フロー計算書",)},
}
_CHUNK_NUMBER = re.compile(r"#t(\d+)\Z")
_SENTENCE_MAX_CHARS = 200


@dataclass(frozen=True)
class TextSettings:
    """How the text route searches, ranks documents and how much it quotes.

    >>> TextSettings(doc_score="max", chunk_hits=50)
    """

    chunk_hits: int = 100  # small chunks retrieved per question
    documents: int = 10  # documents listed in the answer
    doc_score: str = "decay"  # how chunk scores rank documents: one of DOC_SCORES
    answer_sentences: int = 3  # sentences quoted by the extractive answer
    evidence: int = 3  # passages (widened best chunks of the top document) used and listed
    context_chars: int = 1500  # most characters of one widened passage
    title_boost: float = 2.0
    phrase_boost: float = 1.5

    def __post_init__(self):
        if self.doc_score not in DOC_SCORES:
            raise InputError(f"doc_score must be one of {', '.join(DOC_SCORES)}, got {self.doc_score!r}")
        if min(self.chunk_hits, self.documents, self.answer_sentences, self.evidence) < 1:
            raise InputError("chunk_hits, documents, answer_sentences and evidence must be at least 1")
        if self.context_chars < 100:
            raise InputError(f"context_chars must be at least 100, got {self.context_chars}")
        if self.title_boost <= 0 or self.phrase_boost <= 0:
            raise InputError("title_boost and phrase_boost must be positive")


class TextAnswerer:
    """Answers report_text and open questions, and ranks documents in retrieve mode.

    `llm` is a qa.llm.LocalLLM or None (extractive answers, template for open questions).
    """

    def __init__(self, index: TextIndex, tokenizer: Tokenizer, templates: AnswerTemplates,
                 settings: TextSettings = TextSettings(), llm=None):
        if not isinstance(settings, TextSettings):
            raise InputError(f"TextAnswerer needs TextSettings, got {type(settings).__name__}")
        self.index = index
        self.tokenizer = tokenizer
        self.templates = templates
        self.settings = settings
        self.llm = llm
        self.statements = {f.name: f.statement for f in load_field_file()[1]}

    # ------------------------------------------------------------------ search
    def query(self, analysis: Analysis) -> SearchQuery:
        """The search for an analysed question (small chunks only)."""
        question = analysis.question
        scoped = bool(question.sources)
        keywords = tuple(analysis.keywords)
        companies = () if scoped or analysis.company is None else (analysis.company.name,)
        years = () if scoped or analysis.type != "report_text" else tuple(analysis.years[:1])
        text = topic_text(analysis, company=bool(companies), years=bool(years))
        return SearchQuery(
            text=text,
            phrases=keywords,
            titles=(keywords or (text,)) + self.statement_titles(analysis),
            companies=companies,
            years=years,
            doc_ids=tuple(question.sources),
            kinds=SMALL_KINDS,
            limit=self.settings.chunk_hits,
            title_boost=self.settings.title_boost,
            phrase_boost=self.settings.phrase_boost,
        )

    def statement_titles(self, analysis: Analysis) -> tuple[str, ...]:
        """Titles of the statements that hold the fields asked for."""
        titles = []
        for name in analysis.fields:
            titles += STATEMENT_TITLES.get(self.statements.get(name, ""), {}).get(analysis.language, ())
        return tuple(dict.fromkeys(titles))

    def search(self, analysis: Analysis) -> tuple[list[str], list[Hit]]:
        """Documents ranked by their chunks' scores, and the chunk hits (best first).

        A company or year filter that leaves nothing is dropped: a document
        whose metadata missed its company must still be found by its words.
        """
        query = self.query(analysis)
        hits = self.index.search(query)
        if not hits and (query.companies or query.years):
            hits = self.index.search(replace(query, companies=(), years=()))
        return rank_documents(hits, self.settings.doc_score)[: self.settings.documents], hits

    def retrieve(self, analysis: Analysis) -> Answer:
        documents, hits = self.search(analysis)
        return self._answer(analysis, "", "retrieve:keyword", documents, hits[: self.settings.evidence])

    # ------------------------------------------------------------------ answers
    def run(self, analysis: Analysis) -> Answer:
        documents, hits = self.search(analysis)
        lang = analysis.language
        if analysis.type == "open":
            if self.llm is None:
                text = self.templates.render("open_no_model", lang)
                return self._answer(analysis, text, "open:template", documents, hits[: self.settings.evidence])
            return self._answer(analysis, self.llm.answer_open(analysis.question.text), "open:llm", documents,
                                hits[: self.settings.evidence])
        if not hits:
            text = self.templates.render("negative_value", lang, company=_company(analysis), year=_year(analysis),
                                         field="、".join(analysis.keywords) or analysis.question.text)
            return self._answer(analysis, text, f"{analysis.type}:no_hits", documents, [])
        passages = self.widen(self.passages(analysis, documents[0]) or
                              [h for h in hits if h.chunk.doc_id == documents[0]][: self.settings.evidence])
        if self.llm is not None:
            text = self.llm.answer_from_passages(analysis, passages)
            if text:
                return self._answer(analysis, text, f"{analysis.type}:llm", documents, passages)
        sentences = self.best_sentences(analysis, passages)
        page = passages[0].chunk.page_start
        kind = "report_text_extractive" if page else "report_text_extractive_unpaged"
        text = self.templates.render(kind, lang, doc=documents[0], page=page, passages="".join(sentences))
        route = f"{analysis.type}:extractive" + (" (model reply unusable)" if self.llm is not None else "")
        return self._answer(analysis, text, route, documents, passages)

    def passages(self, analysis: Analysis, doc_id: str) -> list[Hit]:
        """The best chunks of one document for the question's topic: its words without the company and year."""
        topic = topic_text(analysis)
        query = SearchQuery(text=topic, phrases=tuple(analysis.keywords), titles=tuple(analysis.keywords) or (topic,),
                            doc_ids=(doc_id,), kinds=SMALL_KINDS, limit=self.settings.evidence,
                            title_boost=self.settings.title_boost, phrase_boost=self.settings.phrase_boost)
        return [h for h in self.index.search(query) if h.chunk.doc_id == doc_id]

    def widen(self, hits: list[Hit]) -> list[Hit]:
        """Each hit grown to its whole section, else to its neighbours, within `context_chars`; overlaps merged."""
        passages: list[Hit] = []
        covered: set[str] = set()
        for hit in hits:
            if hit.chunk.chunk_id in covered:
                continue
            chunk, members = self._section(hit.chunk) or self._neighbours(hit.chunk)
            covered.update(members)
            if not any(p.chunk.chunk_id == chunk.chunk_id for p in passages):
                passages.append(Hit(chunk, hit.score))
        return passages

    def _section(self, chunk: Chunk) -> tuple[Chunk, set[str]] | None:
        """The "section" chunk holding `chunk`, when its section is short enough."""
        if chunk.kind != "text":
            return None
        found = self.index.search(SearchQuery(titles=(" ".join(chunk.titles),) if chunk.titles else (),
                                              doc_ids=(chunk.doc_id,), kinds=("section",), limit=20))
        head = chunk.text[:40]
        for hit in found:
            section = hit.chunk
            if section.titles == chunk.titles and head in section.text and len(section.text) <= self.settings.context_chars:
                return section, {chunk.chunk_id}
        return None

    def _neighbours(self, chunk: Chunk) -> tuple[Chunk, set[str]]:
        """`chunk` joined with the chunks before and after it in its section while they fit."""
        number = _CHUNK_NUMBER.search(chunk.chunk_id)
        if number is None:
            return chunk, {chunk.chunk_id}
        n = int(number.group(1))
        base = chunk.chunk_id[: number.start()]
        wanted = {f"{base}#t{n - 1}", f"{base}#t{n + 1}"}
        found = self.index.search(SearchQuery(titles=(" ".join(chunk.titles),) if chunk.titles else (),
                                              doc_ids=(chunk.doc_id,), kinds=("text",), limit=200))
        near = {h.chunk.chunk_id: h.chunk for h in found
                if h.chunk.chunk_id in wanted and h.chunk.titles == chunk.titles}
        text, first, last = chunk.text, chunk, chunk
        before, after = near.get(f"{base}#t{n - 1}"), near.get(f"{base}#t{n + 1}")
        if before is not None and len(before.text) + len(text) <= self.settings.context_chars:
            text, first = _merge(before.text, text), before
        if after is not None and len(text) + len(after.text) <= self.settings.context_chars:
            text, last = _merge(text, after.text), after
        members = {c.chunk_id for c in (first, chunk, last)}
        return replace(chunk, text=text, page_start=first.page_start, page_end=last.page_end), members

    def best_sentences(self, analysis: Analysis, passages: list[Hit]) -> list[str]:
        """The sentences sharing most question terms (key words count double), kept in reading order."""
        keywords = {t for k in analysis.keywords for t in self.tokenizer.tokens(k)}
        wanted = set(self.tokenizer.tokens(topic_text(analysis))) | keywords
        candidates = []
        for rank, hit in enumerate(passages):
            for pos, sentence in enumerate(_sentences(hit.chunk.text)):
                if len(sentence) < 4:
                    continue
                tokens = set(self.tokenizer.tokens(sentence))
                overlap = len(wanted & tokens) + len(keywords & tokens)
                if overlap:
                    candidates.append((overlap - rank / 10, rank, pos, sentence))
        if not candidates:  # nothing shares a term: the start of the best passage
            return _sentences(passages[0].chunk.text)[: self.settings.answer_sentences] if passages else []
        best = sorted(candidates, key=lambda c: -c[0])[: self.settings.answer_sentences]
        return list(dict.fromkeys(c[3] for c in sorted(best, key=lambda c: (c[1], c[2]))))

    def _answer(self, analysis: Analysis, text: str, route: str, documents: list[str], hits: list[Hit]) -> Answer:
        question = analysis.question
        return Answer(
            id=question.id, question=question.text, answer=text, type=analysis.type, route=route, value=None,
            documents=documents,
            evidence=[Evidence(doc=h.chunk.doc_id, page=h.chunk.page_start or None, text=h.chunk.text,
                               cell_id=h.chunk.cell_id) for h in hits],
        )


def rank_documents(hits: list[Hit], doc_score: str) -> list[str]:
    """Document ids by the weighted sum of their best chunks' scores (ties: the document whose best chunk came first)."""
    weights = _DOC_WEIGHTS[doc_score]
    per_doc: dict[str, list[float]] = defaultdict(list)
    for hit in hits:
        per_doc[hit.chunk.doc_id].append(hit.score)
    score = {doc: sum(w * s for w, s in zip(weights, sorted(scores, reverse=True))) for doc, scores in per_doc.items()}
    order = {doc: i for i, doc in enumerate(per_doc)}
    return sorted(score, key=lambda d: (-score[d], order[d]))


def topic_text(analysis: Analysis, company: bool = True, years: bool = True) -> str:
    """The question without the company's names and the year expressions (each when asked): what it asks about."""
    text = analysis.question.text
    names = [analysis.company.name, analysis.company.short_name] if company and analysis.company else []
    written = list(extract_years(text).written) if years else []
    for part in sorted([n for n in names if n] + written, key=len, reverse=True):
        text = text.replace(part, " ")
    return text


def _sentences(text: str) -> list[str]:
    splitter = SentenceSplitter(_SENTENCE_MAX_CHARS)
    found = splitter.feed(text, 0) + splitter.flush()
    return [s.text for s in found if s.text]


def _merge(left: str, right: str) -> str:
    """Join two consecutive chunks, dropping the sentences the second repeats from the first (chunk overlap)."""
    for size in range(min(len(left), len(right)), 0, -1):
        if left.endswith(right[:size]) and size >= 4:
            return left + right[size:]
    return left + right


def _company(analysis: Analysis) -> str:
    return analysis.company.name if analysis.company else ""


def _year(analysis: Analysis) -> str:
    return str(analysis.years[0]) if analysis.years else ""
