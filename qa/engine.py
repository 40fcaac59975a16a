"""The question-answering engine: rules understand the question, a route answers it.

    question --QuestionAnalyzer--> Analysis --+-- lookup quoting a row label in its sources ------> CellAnswerer (table cell)
                                              +-- lookup / formula / ranking / compare_years --> DataAnswerer (facts)
                                              +-- report_text, retrieve mode ------------------> TextAnswerer (keyword search)
                                              +-- open --------------------------------------> TextAnswerer (model or template)

>>> with Engine(EngineSettings(IndexSettings(Path(".index/examples")))) as engine:
...     engine.answer(Question("1", "2022年示例科技的电子信箱是什么?")).value
'ir@example-tech.cn'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from parser.errors import InputError
from qa.answers import AnswerTemplates
from qa.cell_answer import CellAnswerer
from qa.data_answer import DataAnswerer
from qa.formulas import FormulaBook
from qa.records import Analysis, Answer, Question
from qa.text_answer import TextAnswerer, TextSettings
from qa.understand import QuestionAnalyzer
from search.backend import SearchQuery
from search.facts import open_fact_store
from search.open import open_text_index
from search.prefetch import PrefetchedIndex
from search.settings import IndexSettings
from search.tokenize import Tokenizer

DATA_TYPES = ("lookup", "formula", "ranking", "compare_years")
MODES = ("answer", "retrieve")


@dataclass(frozen=True)
class EngineSettings:
    index: IndexSettings
    mode: str = "answer"  # "retrieve": rank documents only
    llm: str = "none"  # a model folder or .gguf file, or "none"
    text: TextSettings = field(default_factory=TextSettings)

    def __post_init__(self):
        if self.mode not in MODES:
            raise InputError(f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if self.llm != "none" and not Path(self.llm).exists():
            raise InputError("language model not found (give a model folder or .gguf file, or --llm none)", self.llm)


class Engine:
    """Answers questions over one index; open it once, ask many questions."""

    def __init__(self, settings: EngineSettings):
        self.settings = settings
        self.store = open_fact_store(settings.index)
        reports = self.store.reports()
        # The same dictionary as ingestion: companies are matched by the metadata filter, not by body tokens.
        self.tokenizer = Tokenizer()
        # Searches of a question batch go to the server at once (answer_many), then are served from memory.
        self.index = PrefetchedIndex(open_text_index(settings.index, self.tokenizer))
        llm = None
        if settings.llm != "none":
            from qa.llm import LocalLLM  # the llm extra is optional

            llm = LocalLLM.load(settings.llm)
        self.llm = llm
        templates = AnswerTemplates.load()
        self.analyzer = QuestionAnalyzer.from_reports(reports, llm=llm)
        self.data = DataAnswerer(self.store, FormulaBook.load(), templates)
        self.cells = CellAnswerer(self.index, self.store, self.tokenizer, templates)
        self.text = TextAnswerer(self.index, self.tokenizer, templates, settings.text, llm=llm)

    def analyze(self, question: Question) -> Analysis:
        return self.analyzer.run(question)

    def answer(self, question: Question) -> Answer:
        """Never raises for one bad question: the failure is reported in `route` so the batch goes on."""
        return self.answer_many([question])[0]

    def answer_many(self, questions: Sequence[Question]) -> list[Answer]:
        """Answers in order; the batch's first text searches go to the index together (one _msearch)."""
        analyses = [self._analyze(q) for q in questions]
        text = [a for a in analyses if isinstance(a, Analysis) and (self.settings.mode == "retrieve"
                                                                     or a.type not in DATA_TYPES)]
        self.index.prefetch([q for q in map(self._text_query, text) if q is not None])
        return [self._answer(q, a) for q, a in zip(questions, analyses)]

    def _analyze(self, question: Question) -> Analysis | Answer:
        try:
            return self.analyzer.run(question)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - one failing question must not stop the batch
            return _failed(question, exc)

    def _text_query(self, analysis: Analysis) -> SearchQuery | None:
        try:
            return self.text.query(analysis)
        except Exception:  # noqa: BLE001 - the question then fails, with its reason, when it is answered
            return None

    def _answer(self, question: Question, analysis: Analysis | Answer) -> Answer:
        if isinstance(analysis, Answer):
            return analysis
        try:
            if self.settings.mode == "retrieve":
                return self.text.retrieve(analysis)
            if analysis.type not in DATA_TYPES:
                return self.text.run(analysis)
            # A quoted row label within given sources names a table cell; otherwise the facts answer.
            answer = self.cells.run(analysis) if analysis.type == "lookup" else None
            answer = answer or self.data.run(analysis)
            if self.llm is not None and answer.value:
                # The model may only reword: numbers are checked against the computed value.
                answer.answer = self.llm.rephrase(answer.answer, answer.value)
            return answer
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - one failing question must not stop the batch
            return _failed(question, exc)

    def close(self) -> None:
        self.index.close()
        self.store.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *_):
        self.close()



def _failed(question: Question, exc: Exception) -> Answer:
    return Answer(id=question.id, question=question.text, answer="", type="open",
                  route=f"error: {type(exc).__name__}: {exc}")
