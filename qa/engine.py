"""The question-answering engine: rules understand the question, a route answers it.

Each question type names its route once, in rules/question_types.yaml (`types`); the engine registers one
answerer per route (`Engine.routes`):

    question --QuestionAnalyzer--> Analysis --+-- data: a lookup quoting a row label in its sources --> CellAnswerer
                                              |         lookup / formula / compare_years ----------> DataAnswerer (facts)
                                              |         (a lookup no fact answers: a sentence stating it: TextAnswerer)
                                              +-- statistics: ranking / statistics over companies --> StatisticsAnswerer
                                              +-- text: report_text, open, retrieve mode -----------> TextAnswerer
                                              |         (asking more about a text field: the sentences writing its value)
    question with choices ---- choice ---------------------------------------------------------> ChoiceAnswerer (statutes)

>>> with Engine(EngineSettings(IndexSettings(Path(".index/examples")))) as engine:
...     engine.answer(Question("1", "2022年示例科技的电子信箱是什么?")).value
'ir@example-tech.cn'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.errors import InputError, RuleError, StoreError
from core.identity import IdentityBook
from core.language import rule_language
from core.rulebook import RuleBook, active, using, with_own_rules
from qa.answers import AnswerTemplates
from qa.data.answer import DataAnswerer
from qa.data.cells import CellAnswerer
from qa.data.statistics import StatisticsAnswerer
from qa.records import ROUTES, Analysis, Answer, Question
from qa.statutes.choice import ChoiceAnswerer, ChoiceSettings
from qa.statutes.law_refs import LawBook
from qa.text.answer import TextAnswerer, TextSettings
from qa.text.document_identity import IdentityMatcher
from qa.understand.analyse import AnalyzerConfig, QuestionAnalyzer
from qa.understand.companies import CompanyRegister
from search.backend import FactLookup, SearchQuery
from search.law_register import LawRegister
from search.prefetch import PrefetchedFacts, PrefetchedIndex
from search.settings import IndexSettings
from search.stores import open_fact_store, open_text_index
from search.tokenize import Tokenizer

MODES = ("answer", "retrieve")


@dataclass(frozen=True)
class EngineSettings:
    index: IndexSettings
    mode: str = "answer"  # "retrieve": rank documents only
    llm: str = "none"  # a model folder or .gguf file, or "none"
    text: TextSettings = field(default_factory=TextSettings)
    choice: ChoiceSettings = field(default_factory=ChoiceSettings)  # multiple-choice questions on statutes
    rules: RuleBook = field(default_factory=active)  # the rule and formula folders (core/rulebook.py)

    def __post_init__(self):
        if self.mode not in MODES:
            raise InputError(f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if self.llm != "none" and not Path(self.llm).exists():
            raise InputError(
                "language model not found (give a model folder or .gguf file, or --llm none)", self.llm
            )


class Engine:
    """Answers questions over one index; open it once, ask many questions."""

    def __init__(self, settings: EngineSettings):
        self.settings = settings
        self.rules = settings.rules
        with using(settings.rules):
            self._open(settings)

    def _open(self, settings: EngineSettings) -> None:
        # Fact look-ups of a question batch, like its searches, go to the server at once (prefetch).
        self.store = PrefetchedFacts(open_fact_store(settings.index))
        reports = self.store.reports()
        # The same dictionary as ingestion: companies are matched by the metadata filter, not by body tokens.
        self.tokenizer = Tokenizer()
        # Searches of a question batch go to the server at once (prefetch, answer_many), then are served from memory.
        self.index = PrefetchedIndex(open_text_index(settings.index, self.tokenizer))
        llm = None
        if settings.llm != "none":
            from qa.llm.model import LocalLLM  # the llm extra is optional

            llm = LocalLLM.load(settings.llm)
        self.llm = llm
        self.templates = templates = AnswerTemplates.load()
        # Every document's company, period and kind (core/identity.py): the register knows the companies
        # whose documents have no facts, and retrieval ranks with them.
        self.identities = IdentityBook.load(settings.index.identities_path)
        rows = reports + [
            {
                "company": row["company"],
                "year": row.get("year"),
                "short_name": row.get("short_name", ""),
                "code": row.get("code", ""),
            }
            for row in self.identities.documents.values()
            if row.get("company")
        ]
        self.analyzer = QuestionAnalyzer(
            AnalyzerConfig(rules=settings.rules, register=CompanyRegister.from_rows(rows), llm=llm)
        )
        formulas = self.analyzer.formulas  # one formula book and field dictionary per engine
        self.data = DataAnswerer(self.store, formulas, templates)
        self.statistics = StatisticsAnswerer(
            self.store, formulas, templates, self.analyzer.statistics.place_fields
        )
        self.cells = CellAnswerer(
            self.index, self.store, self.tokenizer, templates, fields=self.analyzer.fields
        )
        self.text = TextAnswerer(
            self.index,
            self.tokenizer,
            templates,
            settings.text,
            llm=llm,
            identities=IdentityMatcher(self.identities),
            fields=self.analyzer.fields,
        )
        laws = LawRegister(settings.index.laws_dir).load()
        self.choice = ChoiceAnswerer(self.index, LawBook.load(laws), templates, settings.choice, llm=llm)
        # One answerer per route; rules/question_types.yaml says which route each question type takes.
        self.routes: dict[str, Callable[[Analysis], Answer]] = {
            "data": self._phrased(self._data_answer),
            "statistics": self._phrased(self.statistics.run),
            "text": self._text_answer,
        }
        assert set(self.routes) == set(ROUTES), "every route of qa.records.ROUTES needs an answerer here"

    @with_own_rules
    def analyze(self, question: Question) -> Analysis:
        return self.analyzer.run(question)

    @with_own_rules
    def answer(self, question: Question, analysis: Analysis | Answer | None = None) -> Answer:
        """Never raises for one bad question: the failure is an answer with route "error" and its `error`.

        `analysis` is the question's analysis when `prefetch` made it already; a search that
        `prefetch` ran for this question is served from memory.
        """
        if self._is_choice(question):
            return self._guarded(question, lambda: self.choice.run(question))
        if analysis is None:
            analysis = self._analyze(question)
        if isinstance(analysis, Answer):
            return analysis
        return self._guarded(question, lambda: self._answer(analysis))

    @with_own_rules
    def answer_many(self, questions: Sequence[Question]) -> list[Answer]:
        """Answers in order; the batch's first text searches and fact look-ups go to the index together (one
        _msearch each)."""
        return [self.answer(q, a) for q, a in zip(questions, self.prefetch(questions))]

    @with_own_rules
    def prefetch(
        self, questions: Sequence[Question], analyses: Sequence[Analysis | Answer | None] | None = None
    ) -> list[Analysis | Answer | None]:
        """Send the text searches and the fact look-ups these questions will start with as one batch each.

        Returns each question's analysis (`analyses` when given, made by `analysis_for_answer`), to be given to
        `answer`.
        """
        analyses = (
            list(analyses) if analyses is not None else [self.analysis_for_answer(q) for q in questions]
        )
        routes = [(a, self.route(a)) for a in analyses if isinstance(a, Analysis)]
        self.index.prefetch([q for q in (self._text_query(a) for a, route in routes if route == "text") if q])
        # A question with sources names a table cell first (qa.data.cells): its facts may never be looked up.
        self.store.prefetch(
            [
                lookup
                for a, route in routes
                if route == "data" and not a.question.sources
                for lookup in self._lookups(a)
            ]
        )
        return analyses

    def _is_choice(self, question: Question) -> bool:
        return bool(question.choices) and self.settings.mode == "answer"

    @with_own_rules
    def analysis_for_answer(self, question: Question) -> Analysis | Answer | None:
        """What `answer` and `prefetch` take: the question's analysis (the rules' regexes run here), an error
        answer when it fails, or None for a multiple-choice question (answered from its options)."""
        return None if self._is_choice(question) else self._analyze(question)

    def _analyze(self, question: Question) -> Analysis | Answer:
        return self._guarded(question, lambda: self.analyzer.run(question))

    def _text_query(self, analysis: Analysis) -> SearchQuery | None:
        try:
            return self.text.query(analysis)
        except Exception:  # noqa: BLE001 - the question then fails, with its reason, when it is answered
            return None

    def _lookups(self, analysis: Analysis) -> list[FactLookup]:
        try:
            return self.data.lookups(analysis)
        except Exception:  # noqa: BLE001 - as _text_query
            return []

    @with_own_rules
    def route(self, analysis: Analysis) -> str:
        """The route of the question's type (rules/question_types.yaml), given whether it names one company;
        every question goes to "text" in retrieve mode."""
        if self.settings.mode == "retrieve":
            return "text"
        one_company = analysis.company is not None and len(analysis.companies) < 2
        return self.analyzer.classifier.types[analysis.type].route_for(one_company)

    @staticmethod
    def _guarded(question: Question, work):
        """The work's answer; a failure fails this question alone, unless a rule file or a store is broken
        (RuleError, StoreError: every question would fail the same way, so the run stops with the one line)."""
        try:
            return work()
        except (RuleError, StoreError):
            raise
        except InputError as exc:  # the question itself cannot be answered as asked
            return Answer.failed(question, str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug: one question must not stop the batch
            return Answer.failed(
                question,
                f"internal error (a bug in finqa, not in the question; please report "
                f"it): {type(exc).__name__}: {exc}",
            )

    def _answer(self, analysis: Analysis) -> Answer:
        if self.settings.mode == "retrieve":
            return self.text.retrieve(analysis)
        words = self.templates.words[rule_language(analysis.language)]
        if analysis.impossible_period:  # 第五季度: no report has it, so no figure of another period stands in
            return Answer.to(
                analysis, words["no_period"].format(period=analysis.impossible_period), "negative:no_period"
            )
        answer = self.routes[self.route(analysis)](analysis)
        if analysis.absent_companies:  # each company asked about that the corpus lacks is named
            answer.answer += words["absent"].format(companies=words["list"].join(analysis.absent_companies))
            answer.route += ":part_absent"
        return answer

    def _phrased(self, answerer: Callable[[Analysis], Answer]) -> Callable[[Analysis], Answer]:
        """The answerer, its answer reworded by the model when one is configured (a computed value only: the
        model may only reword, and numbers are checked against the value)."""
        if self.llm is None:
            return answerer

        def phrased(analysis: Analysis) -> Answer:
            answer = answerer(analysis)
            if answer.value:
                answer.answer = self.llm.rephrase(answer.answer, answer.value)
            return answer

        return phrased

    def _data_answer(self, analysis: Analysis) -> Answer:
        """A quoted row label within given sources names a table cell; otherwise the facts answer."""
        answer = self.cells.run(analysis) if analysis.type == "lookup" else None
        answer = answer or self.data.run(analysis)
        if analysis.type == "lookup" and answer.route == "negative:no_value":
            answer = self.text.stated(analysis) or answer  # some reports state a figure only in a sentence
        return answer

    def _text_answer(self, analysis: Analysis) -> Answer:
        return self.text.run(analysis, self._named(analysis))

    def _named(self, analysis: Analysis) -> str:
        """The value the facts give for a report_text question's one text field (a name: the auditor), else ""."""
        if analysis.type != "report_text" or len(analysis.fields) != 1 or analysis.company is None:
            return ""
        field = self.analyzer.fields.fields.get(analysis.fields[0])
        if field is None or field.kind != "text":
            return ""
        return self.data.run(replace(analysis, type="lookup")).value or ""

    def close(self) -> None:
        self.index.close()
        self.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *_):
        self.close()
