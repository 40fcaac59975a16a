"""Question understanding: one question in, an `Analysis` (type, company, years, fields ...) out.

Ties together the company register, year, field and output-request
extraction and the rule classifier. No model runs unless one is configured
for the key-word fallback, and bad input never raises: it comes back as an
`open` question with the reason in the trace.

>>> analyzer = QuestionAnalyzer(AnalyzerConfig(register=CompanyRegister.from_reports_list(Path("reports_list.csv"))))
>>> a = analyzer.run(Question("0", "综艺股份2020年的资产负债比率是多少?保留2位小数。"))
>>> a.type, a.company.short_name, a.years, a.formula, a.output.digits
('formula', '综艺股份', (2020,), '资产负债比率', 2)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rapidfuzz import fuzz, process

from core.errors import InputError
from core.fields import FieldDictionary, FieldMatch, PhraseMatcher
from core.folding import fold_field, fold_field_with_offsets
from core.language import language_of, rule_language
from core.quotes import find_quoted
from core.rulebook import RuleBook, active, pattern_per_book, per_book, using, with_own_rules
from core.vocabulary import vocabulary
from core.years import YearMatch, extract_years
from qa.fewshot import FewShot
from qa.formulas import FIELD_PLACEHOLDER, FormulaBook
from qa.records import Analysis, Company, Question
from qa.topics import TopicBook, TopicMatch
from qa.understand.classify import Entities, QuestionClassifier, TypeRule
from qa.understand.companies import MARKS, CompanyMatch, CompanyRegister, name_shaped
from qa.understand.output_request import output_request
from qa.understand.statistics_request import StatisticsRequest, StatisticsRules

_QUESTIONS = per_book(lambda: vocabulary("questions"))  # rules/questions.yaml
_WORDS = re.compile(r"[0-9a-zA-Z\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_ASKS_VALUE = pattern_per_book(lambda: re.compile(_QUESTIONS["asks_value"]))
_PUNCT_SPLIT = pattern_per_book(lambda: re.compile(_QUESTIONS["word_separators"]))


class ChatModel(Protocol):
    """What the key-word fallback needs from qa.llm.model.LocalLLM."""

    def extract_keywords(self, question: str, companies: Iterable[str] = ()) -> list[str]: ...


@dataclass(frozen=True)
class AnalyzerConfig:
    """Settings of `QuestionAnalyzer`, validated on construction.

    >>> from core.records import ReportYear
    >>> register = CompanyRegister.from_reports([ReportYear("丸紅株式会社", 2020, code="8002")])
    >>> config = AnalyzerConfig(register=register, reference_year=2023, field_fuzzy_threshold=90)
    """

    rules: RuleBook = field(default_factory=active)  # the rule and formula folders (core/rulebook.py)
    register: CompanyRegister | None = None  # companies to recognise; None: no company extraction
    reference_year: int | None = None  # 去年/上年 count from here when the question names no year
    field_fuzzy_threshold: int = 80  # rapidfuzz partial ratio a fuzzy field match must reach (0-100)
    formula_fuzzy_threshold: int = 75  # the same for formula aliases, for ratio questions naming none exactly
    fuzzy_fields: bool = True
    llm: ChatModel | None = None  # key-word fallback model (qa.llm.model); None: the step is skipped
    max_chars: int = 2000  # longer questions are not analysed (classified open)
    # Also load the field names into the process-wide jieba, for code that calls jieba itself; the
    # engine tokenizes with search.tokenize.Tokenizer, which has them, so by default it is not loaded.
    jieba_dictionary: bool = False

    def __post_init__(self):
        if not isinstance(self.rules, RuleBook):
            raise TypeError("rules must be a core.rulebook.RuleBook (RuleBook.at(rules_dir, formulas_dir))")
        if self.reference_year is not None and not 1900 <= self.reference_year <= 2200:
            raise InputError(f"reference_year must be a year, got {self.reference_year}")
        for name in ("field_fuzzy_threshold", "formula_fuzzy_threshold"):
            if not 50 <= getattr(self, name) <= 100:
                raise InputError(f"{name} must be 50..100, got {getattr(self, name)}")
        if self.max_chars < 10:
            raise InputError(f"max_chars must be at least 10, got {self.max_chars}")
        if self.register is not None and not isinstance(self.register, CompanyRegister):
            raise TypeError("register must be a qa.understand.companies.CompanyRegister")


@dataclass(frozen=True)
class AnalyzerRules:
    """What the analyzer reads from the rule and formula files of one book (read-only once loaded)."""

    classifier: QuestionClassifier
    fields: FieldDictionary
    fewshot: FewShot
    formulas: FormulaBook
    statistics: StatisticsRules
    topics: TopicBook
    formula_matcher: PhraseMatcher[str]  # formula names and aliases, folded
    field_suffixes: list[
        tuple[str, str]
    ]  # per-field formulas ("{field}增长率"): the words after the field, longest first
    boilerplate: list[re.Pattern]

    @classmethod
    def load(cls, config: AnalyzerConfig) -> AnalyzerRules:
        """Read and check rules/question_types.yaml, fields.yaml, fewshot.yaml, statistics.yaml and the formulas of
        config.rules (InputError with file:line when a file is broken)."""
        rules_dir = config.rules.rules_dir
        classifier = QuestionClassifier.load(rules_dir / "question_types.yaml")
        fields = FieldDictionary.load(rules_dir / "fields.yaml", fuzzy_threshold=config.field_fuzzy_threshold)
        formulas = FormulaBook.load(config.rules.formulas_dir, fields)
        phrases: dict[str, list[str]] = {}
        for alias, name in formulas.names_and_aliases().items():
            phrases.setdefault(fold_field(alias), []).append(name)
        suffixes = sorted(
            (
                (pattern.split(FIELD_PLACEHOLDER)[1], name)
                for pattern, name in formulas.field_patterns().items()
                if pattern.startswith(FIELD_PLACEHOLDER)
            ),
            key=lambda item: -len(item[0]),
        )
        return cls(
            classifier,
            fields,
            FewShot.load(rules_dir / "fewshot.yaml"),
            formulas,
            StatisticsRules.load(rules_dir / "statistics.yaml"),
            TopicBook.load(),
            PhraseMatcher(phrases),
            suffixes,
            [re.compile(p) for p in classifier.boilerplate],
        )


class QuestionAnalyzer:
    """Reads a question the way the rules say: type, company, years, fields, formula, output request.

    Construction loads and checks rules/question_types.yaml, rules/fields.yaml,
    rules/fewshot.yaml and the formula names (InputError with file:line when a
    file is broken); `run` never raises.
    """

    def __init__(self, config: AnalyzerConfig | None = None):
        self.config = config = config or AnalyzerConfig()
        self.rules = config.rules
        with using(config.rules):
            self._load(config)

    def _load(self, config: AnalyzerConfig) -> None:
        # Read and checked once per book (and fuzzy threshold): an engine opened after another in the process, as a
        # qa.run worker forked from its parent, starts without parsing and validating the files again.
        rules = config.rules.read_once(
            f"analyzer:{config.field_fuzzy_threshold}", lambda: AnalyzerRules.load(config)
        )
        self.classifier, self.fields, self.fewshot = rules.classifier, rules.fields, rules.fewshot
        self.formulas, self.statistics, self.topics = rules.formulas, rules.statistics, rules.topics
        self._formula_matcher, self._field_suffixes = rules.formula_matcher, rules.field_suffixes
        self._boilerplate = rules.boilerplate
        self.register = config.register
        if config.jieba_dictionary:
            self.fields.add_to_jieba()

    @classmethod
    def from_reports(cls, reports, reports_list: Path | None = None, **settings) -> QuestionAnalyzer:
        """An analyzer whose register holds the corpus's company-years (a FactStore's `reports()` rows
        or ReportYear records), plus a FinGLM-style reports list when given; `settings` go to AnalyzerConfig."""
        rows = list(reports)
        if rows and isinstance(rows[0], dict):
            register = CompanyRegister.from_rows(rows)
        else:
            register = CompanyRegister.from_reports(rows)
        if reports_list is not None:
            register = register.merged(CompanyRegister.from_reports_list(reports_list))
        return cls(AnalyzerConfig(register=register, **settings))

    @with_own_rules
    def run(self, question: Question) -> Analysis:
        """Analyse one question; bad input is classified open with the reason in the trace."""
        text = question.text
        if not isinstance(text, str):
            return self._rejected(question, f"input: not text ({type(text).__name__})")
        if len(text) > self.config.max_chars:
            return self._rejected(
                question, f"input: {len(text)} characters, more than max_chars={self.config.max_chars}"
            )
        if not _WORDS.search(text):
            return self._rejected(question, "input: no words (empty, punctuation or symbols only)")
        return self._analyse(question, text)

    # ------------------------------------------------------------------ steps
    def _analyse(self, question: Question, text: str) -> Analysis:
        trace: list[str] = []
        year_match = extract_years(text, self.config.reference_year)
        trace.append(_years_trace(year_match))
        names = self._names(text, year_match, trace)
        request = self._request(text, names)
        rule = self._classify(text, question, names, len(year_match.years), request)
        trace.insert(
            0,
            f"rule {rule.id} (line {rule.line}) -> {rule.type}"
            if rule.line
            else f"rule {rule.id} -> {rule.type}",
        )
        years = year_match.years
        if rule.type == "compare_years" and len(years) == 1:
            years = (years[0] - 1, years[0])
            trace.append(f"years: compared with the year before -> {list(years)}")
        over_companies = rule.type in ("ranking", "statistics")
        keywords, formula, fields = self._keywords(text, rule.type, names, year_match, trace)
        output = output_request(text)
        if described := output.described():
            trace.append(f"output: {described}")
        if over_companies and request is not None:
            trace.append(f"statistics: {request}")
        top_n, rank, descending = (
            (request.top_n, request.rank, request.descending) if request else (0, 0, True)
        )
        company = names.company
        return Analysis(
            question=question,
            type=rule.type,
            rule_id=rule.id,
            # answers are written in the languages of the rule files: a question in none of them reads as zh
            language=rule_language(language_of(text)),
            company=company.company,
            candidates=company.candidates,
            years=years,
            fields=fields,
            quarter=year_match.quarter,
            period=year_match.period,
            period_written=year_match.quarter_written,
            impossible_period=year_match.impossible,
            absent_companies=names.absent,
            companies=tuple(
                dict.fromkeys(
                    ((company.company,) if company.company else ()) + company.candidates + company.others
                )
            ),
            keywords=tuple(dict.fromkeys(k for k in keywords if k)),
            formula=formula if rule.type == "formula" or over_companies else "",
            top_n=top_n,
            rank=rank,
            descending=descending,
            output=output,
            statistics=request if over_companies else None,
            asks=rule.asks,
            trace=tuple(trace),
            topic=names.topic.topic.name if names.topic else "",
        )

    def _names(self, text: str, year_match: YearMatch, trace: list[str]) -> _Names:
        """The company, fields, topic, formula and quoted words the question names."""
        # A field name is no company's abbreviation (在建工程 does not abbreviate 建发合诚工程咨询).
        named_fields = self.fields.find(text)
        field_spans = [(m.start, m.end) for m in named_fields]
        company = self.register.find(text, year_match.years, field_spans) if self.register else CompanyMatch()
        # Fields are looked for outside the company's name (青岛汇金通电力设备股份有限公司外文名称).
        unnamed = _blank(text, [(company.start, company.end)])
        field_matches = named_fields if unnamed == text else self.fields.find(unnamed)
        company, absent = self._unregistered(text, company, year_match.written, field_matches)
        trace.append(self._company_trace(company))
        if absent:
            trace.append("companies not in the corpus: " + ", ".join(absent))
        if year_match.impossible:
            trace.append(f"period: {year_match.impossible} is no period of a year")
        topic, field_matches = self._topic(unnamed, field_matches, trace)
        formula, growth_field, field_matches = self._formula(text, field_matches)
        how_fields = "dictionary"
        if (
            not field_matches
            and not formula
            and topic is None
            and self.config.fuzzy_fields
            and company.start >= 0
            and _ASKS_VALUE.search(text)
        ):
            field_matches = self.fields.find_fuzzy(_strip(text, company, year_match.written))
            how_fields = "fuzzy"
        if field_matches:
            trace.append(
                f"fields ({how_fields}): "
                + ", ".join(
                    f"{m.written}->{m.field}" + (f" ({m.score})" if m.how == "fuzzy" else "")
                    for m in field_matches
                )
            )
        quoted = [q.word for q in find_quoted(text)]
        return _Names(company, absent, field_matches, topic, formula, growth_field, quoted)

    def _request(self, text: str, names: _Names) -> StatisticsRequest | None:
        """What a question over many companies asks (a ranking, a count, a statistic); None when it names one.

        Such questions name no company (ranking and statistics rules say `absent: [company]`), or several: a
        ranking among the companies named (rule ranking_named_companies)."""
        if names.company_named and names.several < 2:
            return None
        # Amount names are taken out (在职员工的数量合计 is no count); addresses stay (注册地址在杭州 is a place filter).
        amounts = [
            (m.start, m.end)
            for m in names.field_matches
            if m.end and self.fields.fields[m.field].kind == "number"
        ]
        return self.statistics.read(_blank(text, [(names.company.start, names.company.end)] + amounts))

    def _classify(
        self, text: str, question: Question, names: _Names, years: int, request: StatisticsRequest | None
    ) -> TypeRule:
        entities = Entities(
            company=names.company_named,
            companies=names.several,
            years=years,
            fields=len(names.fields),
            formula=bool(names.formula) and not names.growth_field,
            growth=bool(names.growth_field),
            quoted=bool(names.quoted),
            sources=bool(question.sources),
            ranking=request is not None and request.is_ranking,
            statistics=request is not None and request.over_companies,
        )
        # Rules read the question with names taken out, so 公允价值变动收益 does not read as 变动.
        company = names.company
        masked = _blank(
            text, [(company.start, company.end)] + [(m.start, m.end) for m in names.field_matches if m.end]
        )
        return self.classifier.classify(masked, entities)

    def _keywords(
        self, text: str, question_type: str, names: _Names, year_match: YearMatch, trace: list[str]
    ) -> tuple[list[str], str, tuple[str, ...]]:
        """The key words searched for, the formula and the fields a question of this type asks for."""
        topic, company, formula, fields = names.topic, names.company, names.formula, names.fields
        keywords = (
            ([topic.written] if topic else [])
            + [m.written for m in names.field_matches if m.how == "dictionary"]
            + names.quoted
        )
        over_companies = question_type in ("ranking", "statistics")
        if question_type == "formula":
            formula = formula or self._formula_fuzzy(text, company, year_match.written, trace)
            fields = self._formula_fields(formula, names.growth_field, fields)
            keywords = [formula or ""] + keywords if formula else keywords
            trace.append(f"formula: {formula or 'not named'}; operands: {', '.join(fields) or '-'}")
        elif formula:
            keywords.append(formula)
        if question_type in ("report_text", "open") or (over_companies and not fields and not formula):
            period = year_match.written + (
                (year_match.quarter_written,) if year_match.quarter_written else ()
            )
            keywords += self._topic_phrases(text, company, period, keywords)
        if not keywords and question_type != "open":
            trace.append(self._llm_keywords(text, company, keywords))
        return keywords, formula, fields

    def _unregistered(
        self, text: str, company: CompanyMatch, years: tuple[str, ...], fields: list[FieldMatch]
    ) -> tuple[CompanyMatch, tuple[str, ...]]:
        """The company match, and the names of companies the question asks about that the register lacks.

        A name written where a question names its company (qa.understand.companies.name_shaped) that matches no
        company of the register is not in the corpus: it becomes the question's company when none other is
        named (so it is never read as a place filter), else it is named as absent beside the one found."""
        if self.register is None:
            return company, ()
        marked = _mark(text, [(company.start, company.end)], MARKS["company"])
        marked = _mark(marked, [(m.start, m.end) for m in fields if m.end], MARKS["field"])
        marked = _mark(
            marked,
            [
                (m.start(), m.end())
                for written in years
                if written
                for m in re.finditer(re.escape(written), marked)
            ],
            MARKS["year"],
        )
        known = company.company is not None or bool(company.candidates)
        names = [
            (start, end)
            for start, end in name_shaped(marked, beside_company=known)
            if (self.register.find(text[start:end]).how in ("none", "unregistered"))
        ]
        if not names:
            return company, ()
        written = [text[start:end] for start, end in names]
        if not known:
            start, end = names[0]
            match = CompanyMatch(Company(written[0]), (), written[0], start, end, "unregistered")
            return match, tuple(written[1:])
        return company, tuple(dict.fromkeys(w for w in written if w != company.written))

    def _rejected(self, question: Question, reason: str) -> Analysis:
        safe = (
            question
            if isinstance(question.text, str)
            else Question(question.id, "", question.sources, question.category)
        )
        return Analysis(question=safe, type="open", rule_id="input_rejected", trace=(reason,))

    @staticmethod
    def _company_trace(match: CompanyMatch) -> str:
        if match.candidates:
            return f"company: ambiguous '{match.written}' -> " + " | ".join(c.name for c in match.candidates)
        if match.company is None:
            return "company: none named"
        note = {"unregistered": " (not in the register)", "fuzzy": f" (rapidfuzz {match.score})"}.get(
            match.how, ""
        )
        return f"company: {match.how} '{match.written}' -> {match.company.name}{note}"

    def _topic(
        self, text: str, field_matches: list[FieldMatch], trace: list[str]
    ) -> tuple[TopicMatch | None, list[FieldMatch]]:
        """The longest term wins: the question's topic (rules/topics.yaml) unless a field written as long or longer
        holds it (主营业务收入), and the fields without those inside a longer topic term (利润 in 利润分配预案)."""
        topics = [
            t
            for t in self.topics.find(text)
            if not any(f.start <= t.start and t.end <= f.end for f in field_matches)
        ]
        if not topics:
            return None, field_matches
        inside = [f for f in field_matches if any(t.start <= f.start and f.end <= t.end for t in topics)]
        topic = max(topics, key=lambda t: t.end - t.start)
        trace.append(
            f"topic: {topic.written}->{topic.topic.name}"
            + (f" (fields inside it dropped: {', '.join(f.written for f in inside)})" if inside else "")
        )
        return topic, [f for f in field_matches if f not in inside]

    def _formula(self, text: str, field_matches: list[FieldMatch]) -> tuple[str, str, list[FieldMatch]]:
        """The formula named (formulas/*.yaml, or a per-field one like X增长率) and the fields left once its name is out."""
        folded, offsets = fold_field_with_offsets(text)
        for m in self._formula_matcher.find(folded):
            start, end = offsets[m.start], offsets[m.end - 1] + 1
            # A field written exactly the same (每股净资产) is a lookup, not a formula.
            if any(f.start <= start and end <= f.end for f in field_matches):
                continue
            rest = [f for f in field_matches if f.end <= start or f.start >= end]
            return m.values[0], "", rest
        for f in field_matches:
            # 营业收入相比2020年的增长率: the year compared with may stand between field and suffix.
            after = self.statistics.skip_year_comparison(
                unicodedata.normalize("NFKC", text[f.end : f.end + 24])
            )
            for suffix, template in self._field_suffixes:
                if after.startswith(suffix):
                    return (
                        template.replace(FIELD_PLACEHOLDER, f.written),
                        f.field,
                        [g for g in field_matches if g is not f],
                    )
        return "", "", field_matches

    def _formula_fuzzy(
        self, text: str, company: CompanyMatch, years: tuple[str, ...], trace: list[str]
    ) -> str:
        """A formula named in other words (研发人员占总职工人数的比例): the closest alias by rapidfuzz."""
        aliases = self.formulas.names_and_aliases()
        best = process.extractOne(
            _strip(text, company, years),
            list(aliases),
            scorer=fuzz.partial_ratio,
            processor=None,
            score_cutoff=self.config.formula_fuzzy_threshold,
        )
        if not best:
            trace.append(f"formula: no alias within rapidfuzz {self.config.formula_fuzzy_threshold}")
            return ""
        trace.append(f"formula (fuzzy): {best[0]} -> {aliases[best[0]]} ({best[1]:.0f})")
        return aliases[best[0]]

    def _formula_fields(self, formula: str, growth_field: str, found: tuple[str, ...]) -> tuple[str, ...]:
        """Operands: the canonical fields in the formula's expression, else the growth field, else those named."""
        definition = self.formulas.get(formula, growth_field) if formula else None
        if definition is not None:
            return tuple(dict.fromkeys(op.field for op in definition.operands()))
        if growth_field:
            return (growth_field,)
        return found

    def _topic_phrases(
        self, text: str, company: CompanyMatch, years: tuple[str, ...], known: list[str]
    ) -> list[str]:
        rest = _strip(text, company, years)
        for pattern in self._boilerplate:
            rest = pattern.sub(" ", rest)
        return [p for p in _PUNCT_SPLIT.split(rest) if len(p) >= 2 and p not in known]

    def _llm_keywords(self, text: str, company: CompanyMatch, keywords: list[str]) -> str:
        """Ask the model for key words the rules did not find (few-shot turns from rules/fewshot.yaml)."""
        if self.config.llm is None:
            return "keywords: LLM fallback skipped (no model configured)"
        names = [n for c in (company.company,) if c for n in (c.name, c.short_name) if n]
        try:
            words = self.config.llm.extract_keywords(text, companies=names)
        except Exception as exc:  # noqa: BLE001 - any model failure falls back to no key words
            return f"keywords: LLM fallback gave no usable answer ({type(exc).__name__}: {exc})"
        keywords += [w for w in words if w and w in text]
        return f"keywords: LLM fallback -> {keywords}"


@dataclass(frozen=True)
class _Names:
    """What a question names, found before it is classified."""

    company: CompanyMatch
    absent: tuple[str, ...]
    field_matches: list[FieldMatch]
    topic: TopicMatch | None
    formula: str
    growth_field: str
    quoted: list[str]

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.field for m in self.field_matches))

    @property
    def company_named(self) -> bool:
        return self.company.company is not None or bool(self.company.candidates)

    @property
    def several(self) -> int:
        """How many companies the question names: the one it is about and the others beside it."""
        named = ((self.company.company,) if self.company.company else ()) + self.company.others
        return len({c.name for c in named})


def _years_trace(year_match: YearMatch) -> str:
    return (
        f"years: {list(year_match.years)}"
        + (f" quarter {year_match.quarter}" if year_match.quarter else "")
        + (f" (unresolved: {', '.join(year_match.unresolved)})" if year_match.unresolved else "")
    )


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with these spans overwritten by '#' (same length, so offsets stay valid)."""
    return _mark(text, spans, "#")


def _mark(text: str, spans: list[tuple[int, int]], mark: str) -> str:
    """The text with these spans overwritten by `mark` (same length, so offsets stay valid)."""
    for start, end in spans:
        if 0 <= start < end:
            text = text[:start] + mark * (end - start) + text[end:]
    return text


def _strip(text: str, company: CompanyMatch, years: tuple[str, ...]) -> str:
    """The question without the company name and the year expressions."""
    if company.start >= 0:
        text = text[: company.start] + " " + text[company.end :]
    rest = unicodedata.normalize("NFKC", text)
    for written in years:
        rest = rest.replace(written, " ")
    return rest
