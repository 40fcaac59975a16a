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

from parser.errors import InputError
from parser.identity import IdentityBook
from qa.answers import AnswerTemplates
from qa.cell_answer import CellAnswerer
from qa.data_answer import DataAnswerer
from qa.document_identity import IdentityMatcher
from qa.formulas import FormulaBook
from qa.records import Analysis, Answer, Question
from qa.text_answer import TextAnswerer, TextSettings
from qa.companies import CompanyRegister
from qa.understand import AnalyzerConfig, QuestionAnalyzer
from search.facts import open_fact_store
from search.open import open_text_index
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
        self.index = open_text_index(settings.index, self.tokenizer)
        llm = None
        if settings.llm != "none":
            from qa.llm import LocalLLM  # the llm extra is optional

            llm = LocalLLM.load(settings.llm)
        self.llm = llm
        templates = AnswerTemplates.load()
        # Every document's company, period and kind (parser/identity.py): the register knows the companies
        # whose documents have no facts, and retrieval ranks with them.
        self.identities = IdentityBook.load(settings.index.identities_path)
        rows = reports.to_dict("records") + [
            {"company": row["company"], "year": row.get("year"), "short_name": row.get("short_name", ""),
             "code": row.get("code", "")} for row in self.identities.documents.values() if row.get("company")]
        self.analyzer = QuestionAnalyzer(AnalyzerConfig(register=CompanyRegister.from_rows(rows), llm=llm))
        self.data = DataAnswerer(self.store, FormulaBook.load(), templates)
        self.cells = CellAnswerer(self.index, self.store, self.tokenizer, templates)
        self.text = TextAnswerer(self.index, self.tokenizer, templates, settings.text, llm=llm,
                                 identities=IdentityMatcher(self.identities))

    def analyze(self, question: Question) -> Analysis:
        return self.analyzer.run(question)

    def answer(self, question: Question) -> Answer:
        """Never raises for one bad question: the failure is reported in `route` so the batch goes on."""
        try:
            analysis = self.analyzer.run(question)
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
            return Answer(id=question.id, question=question.text, answer="", type="open",
                          route=f"error: {type(exc).__name__}: {exc}")

    def close(self) -> None:
        self.index.close()
        self.store.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *_):
        self.close()

