"""The text route: keyword + title search over report chunks, then an answer from the best passages.

Find with small pieces, answer with larger context: small chunks are
retrieved and scored; documents are ranked by their chunks' scores; the
answer comes from the best sentences of the top chunks (extractive, no
model) or from the local model given those passages.

>>> answerer = TextAnswerer(index, tokenizer, AnswerTemplates.load())
>>> answerer.run(analysis).documents[:1]
['insurance/policy-1']
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from parser.errors import InputError
from qa.answers import AnswerTemplates
from qa.records import Analysis, Answer, Evidence
from search.backend import Hit, SearchQuery, TextIndex
from search.tokenize import Tokenizer

DOC_SCORES = ("max", "top3_sum")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])\s*|\n+")


@dataclass(frozen=True)
class TextSettings:
    """How the text route searches and how much it quotes."""

    chunk_hits: int = 40  # chunks retrieved per question
    documents: int = 10  # documents listed in the answer
    doc_score: str = "max"  # how chunk scores rank documents: "max" or "top3_sum"
    answer_sentences: int = 3  # sentences quoted by the extractive answer
    evidence: int = 3  # evidence passages listed
    title_boost: float = 2.0
    phrase_boost: float = 1.5

    def __post_init__(self):
        if self.doc_score not in DOC_SCORES:
            raise InputError(f"doc_score must be one of {', '.join(DOC_SCORES)}, got {self.doc_score!r}")
        if min(self.chunk_hits, self.documents, self.answer_sentences, self.evidence) < 1:
            raise InputError("chunk_hits, documents, answer_sentences and evidence must be at least 1")


class TextAnswerer:
    def __init__(self, index: TextIndex, tokenizer: Tokenizer, templates: AnswerTemplates,
                 settings: TextSettings = TextSettings(), llm=None):
        self.index = index
        self.tokenizer = tokenizer
        self.templates = templates
        self.settings = settings
        self.llm = llm

    def query(self, analysis: Analysis) -> SearchQuery:
        """Filters from the entities (unless the question names its sources), should-clauses from the words."""
        question = analysis.question
        scoped = bool(question.sources)
        return SearchQuery(
            text=question.text,
            phrases=tuple(analysis.keywords),
            titles=tuple(analysis.keywords) or (question.text,),
            companies=() if scoped or analysis.company is None else (analysis.company.name,),
            years=() if scoped else tuple(analysis.years[:1]) if analysis.type == "report_text" else (),
            doc_ids=tuple(question.sources),
            limit=self.settings.chunk_hits,
            title_boost=self.settings.title_boost,
            phrase_boost=self.settings.phrase_boost,
        )

    def search(self, analysis: Analysis) -> tuple[list[str], list[Hit]]:
        """Documents ranked by their chunks' scores, and the chunk hits."""
        hits = self.index.search(self.query(analysis))
        per_doc: dict[str, list[float]] = defaultdict(list)
        for hit in hits:
            per_doc[hit.chunk.doc_id].append(hit.score)
        if self.settings.doc_score == "max":
            score = {doc: max(s) for doc, s in per_doc.items()}
        else:
            score = {doc: sum(sorted(s, reverse=True)[:3]) for doc, s in per_doc.items()}
        documents = sorted(score, key=lambda d: -score[d])[: self.settings.documents]
        return documents, hits

    def retrieve(self, analysis: Analysis) -> Answer:
        documents, hits = self.search(analysis)
        return self._answer(analysis, "", "retrieve:keyword", documents, hits)

    def run(self, analysis: Analysis) -> Answer:
        documents, hits = self.search(analysis)
        lang = analysis.language
        if analysis.type == "open" and self.llm is None:
            text = self.templates.render("open_no_model", lang)
            return self._answer(analysis, text, "open:template", documents, hits[: self.settings.evidence])
        if not hits:
            text = self.templates.render("negative_value", lang, company=_company(analysis), year=_year(analysis),
                                         field="、".join(analysis.keywords) or analysis.question.text)
            return self._answer(analysis, text, f"{analysis.type}:no_hits", documents, [])
        top = [h for h in hits if h.chunk.doc_id == documents[0]] if documents else hits
        if self.llm is not None:
            text = self.llm.answer_from_passages(analysis, top[: self.settings.evidence])
            return self._answer(analysis, text, f"{analysis.type}:llm", documents, top[: self.settings.evidence])
        sentences = self.best_sentences(analysis, top)
        text = self.templates.render("report_text_extractive", lang, company=_company(analysis),
                                     year=_year(analysis), passages="".join(sentences), doc=documents[0],
                                     page=top[0].chunk.page_start)
        return self._answer(analysis, text, f"{analysis.type}:extractive", documents, top[: self.settings.evidence])

    def best_sentences(self, analysis: Analysis, hits: list[Hit]) -> list[str]:
        """The sentences sharing most query tokens, kept in reading order."""
        wanted = set(self.tokenizer.tokens(analysis.question.text)) | set(analysis.keywords)
        candidates = []
        for rank, hit in enumerate(hits[: self.settings.evidence]):
            for pos, sentence in enumerate(s.strip() for s in _SENTENCE_END.split(hit.chunk.text)):
                if len(sentence) >= 4:
                    overlap = len(wanted & set(self.tokenizer.tokens(sentence)))
                    candidates.append((overlap + hit.score / 100, rank, pos, sentence))
        best = sorted(candidates, key=lambda c: -c[0])[: self.settings.answer_sentences]
        seen, ordered = set(), []
        for *_, sentence in sorted(best, key=lambda c: (c[1], c[2])):
            if sentence not in seen:
                seen.add(sentence)
                ordered.append(sentence)
        return ordered

    def _answer(self, analysis: Analysis, text: str, route: str, documents: list[str], hits: list[Hit]) -> Answer:
        question = analysis.question
        return Answer(
            id=question.id, question=question.text, answer=text, type=analysis.type, route=route, value=None,
            documents=documents,
            evidence=[Evidence(doc=h.chunk.doc_id, page=h.chunk.page_start or None, text=h.chunk.text,
                               cell_id=h.chunk.cell_id) for h in hits],
        )


def _company(analysis: Analysis) -> str:
    return analysis.company.name if analysis.company else ""


def _year(analysis: Analysis) -> str:
    return str(analysis.years[0]) if analysis.years else ""
