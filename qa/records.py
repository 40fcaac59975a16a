"""Records passed through the QA stage: a question, what the rules made of it, the answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal

from core.workbook_layout import table_place

# The routes a question type can name (rules/question_types.yaml `types`); qa/engine.py registers one answerer
# each. A question with options is multiple choice, answered over statutes before any type rule is tried.
ROUTES = ("data", "statistics", "text")


@dataclass(frozen=True)
class QuestionType:
    """A question type as rules/question_types.yaml declares it: the route that answers it."""

    name: str
    route: str  # one of ROUTES
    across_companies: str = ""  # the route when no company or several are named, "" for `route` always
    description: str = ""

    def route_for(self, one_company: bool) -> str:
        """The route for a question that names exactly one company (True) or none or several (False)."""
        return self.across_companies if self.across_companies and not one_company else self.route


@dataclass(frozen=True)
class Question:
    """One input question. `sources` restricts the search to document ids or id prefixes."""

    id: str
    text: str
    sources: tuple[str, ...] = ()
    category: str = ""  # free label carried from the input (AI CUP category), used by eval
    choices: tuple[tuple[str, str], ...] = ()  # multiple choice: (letter, option text) in order


@dataclass(frozen=True)
class Company:
    name: str  # full name
    short_name: str = ""
    code: str = ""


@dataclass(frozen=True)
class OutputRequest:
    """How the question wants the number: decimals kept, percent, unit."""

    digits: int | None = None  # decimal places to keep after rounding (ROUND_HALF_UP)
    percent: bool | None = None  # True: as a percentage; False: as a ratio; None: formula default
    unit: str = ""  # unit asked for (万元, 百万円), "" when not asked
    round_at: str = ""  # a named place to round at ("十万円"), "" when not asked
    share: bool = (
        False  # asks for a share of a whole (占职工人数的比例), so a bare ratio reads as a percentage
    )

    def described(self) -> str:
        """What the question asks of the number, as the trace says it; "" when it asks nothing."""
        if self.digits is None and self.percent is None and not self.unit and not self.round_at:
            return ""
        return f"digits={self.digits} percent={self.percent} unit={self.unit!r} round_at={self.round_at!r}"


@dataclass(frozen=True)
class Threshold:
    """A bound a company's value must meet: 大于2亿元 -> (">", 200000000, "元")."""

    op: str  # > >= < <=
    amount: Decimal  # in the base unit; a percentage as a fraction (20% -> 0.2)
    unit: str = ""  # base unit written with the amount ("元", "人", "%"), "" when none


@dataclass(frozen=True)
class StatisticsRequest:
    """What a question over many companies asks (rules/statistics.yaml), besides field and years."""

    operation: str = "rank"  # rank | count | list | average | sum | median
    top_n: int = 0  # a top/bottom list of this many
    rank: int = 0  # one place (第N)
    descending: bool = True  # the high end (最高) or the low end (最低)
    ordered: bool = False  # an order or ranking word was found
    threshold: Threshold | None = None
    places: tuple[str, ...] = ()  # place names an address must contain (杭州)
    place_fields: tuple[str, ...] = ()  # the address fields to look in (注册地址, 办公地址)
    every_year_top: int = 0  # a top-N place in every year asked (均位列前十)
    consecutive: int = 0  # rising (or falling) in each of this many years, each against the year before
    rising: bool = True

    @property
    def is_ranking(self) -> bool:
        return self.ordered or bool(self.top_n or self.rank)

    @property
    def over_companies(self) -> bool:
        """Asks about a set of companies (a count, list, aggregate, condition or filter), not only an order."""
        return (
            self.operation != "rank"
            or self.threshold is not None
            or bool(self.places)
            or bool(self.every_year_top or self.consecutive)
        )


@dataclass(frozen=True)
class Analysis:
    """What the rules understood of a question; the router acts on this alone."""

    question: Question
    type: str  # a type rules/question_types.yaml declares
    rule_id: str  # the rule in rules/question_types.yaml that decided the type
    language: str = "zh"  # "zh" or "ja"
    company: Company | None = None
    candidates: tuple[Company, ...] = ()  # several equally good matches: ambiguous
    years: tuple[int, ...] = ()  # in the order asked
    quarter: int = (
        0  # the quarter asked (第1季 / Q1 / 1月1日至3月31日 -> 1; 前三季 -> 3; 上半年 -> 2), 0 none
    )
    period: str = (
        ""  # its kind: "quarter" (one quarter), "ytd" (前三季: the year to date), "half", "" a full year
    )
    period_written: str = ""  # the quarter or half year as the question writes it (第三季, 前三季, 上半年)
    impossible_period: str = ""  # a period no year has, as written (第五季度): refused by name
    absent_companies: tuple[str, ...] = ()  # companies named that the corpus lacks (besides `company`)
    companies: tuple[Company, ...] = ()  # every company the question names (company, candidates and others)
    fields: tuple[str, ...] = ()  # canonical field names (rules/fields.yaml)
    keywords: tuple[str, ...] = ()  # key words as written in the question
    formula: str = ""  # formula name (formulas/*.yaml), for type formula
    top_n: int = 0  # rankings: how many
    rank: int = 0  # rankings: the N of 第N (0: a top-N list)
    descending: bool = True  # rankings: 最高 (True) or 最低 (False)
    output: OutputRequest = OutputRequest()
    statistics: StatisticsRequest | None = None  # questions over many companies
    asks: str = ""  # the deciding rule's `asks` ("difference": compare_years answers with the change)
    trace: tuple[str, ...] = ()  # why: matched rule, extraction steps, skipped steps
    topic: str = ""  # the report section asked about (rules/topics.yaml), "" when none


@dataclass(frozen=True)
class Evidence:
    doc: str
    page: int | None
    text: str
    cell_id: str = ""
    statement: str = ""  # what the cell's table is (core/statements.py: balance_sheet … notes, other)
    scope: str = ""  # consolidated | parent | "" (unknown)
    period: str = ""  # the column label the value came from
    workbook: str = ""  # the tables workbook (under INDEX_DIR) holding `cell_id` (PDF tables), else ""
    sheet: str = ""  # the sheet of that workbook

    @classmethod
    def of_fact(cls, row: Mapping, text: str) -> Evidence:
        """The evidence of a facts store's row, with the workbook and sheet of its cell when it has one."""
        workbook, sheet = table_place(row["doc_id"], row["table"], row["cell_id"])
        return cls(
            doc=row["doc_id"],
            page=row["page"] or None,
            text=text,
            cell_id=row["cell_id"],
            statement=row.get("statement") or "",
            scope=row.get("scope") or "",
            period=row.get("period") or "",
            workbook=workbook,
            sheet=sheet,
        )


@dataclass
class Answer:
    """One output line of `python -m qa.run` (the CLI contract)."""

    id: str
    question: str
    answer: str
    type: str
    route: str  # which route answered, e.g. "lookup:facts", "report_text:extractive"
    value: str | None = None
    documents: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    trace: list[str] = field(
        default_factory=list
    )  # data answers: the best candidates; retrieve mode: each search attempt
    unit: str = ""  # the unit `value` is in (元, 百万円, %), when it is a number with one
    score: float | None = (
        None  # how well the chosen cell or passage matched (the route's own scale), when it has one
    )
    error: str | None = None  # why no answer could be made (the route is then "error")

    @classmethod
    def to(cls, analysis: Analysis, text: str, route: str, **rest) -> Answer:
        """The answer `text` to the analysed question, of its type; `rest`: the other fields (value, evidence, ...).

        >>> Answer.to(Analysis(Question("q1", "2019年营业收入?"), "lookup", "r"), "资料中没有", "lookup:facts").id
        'q1'
        """
        question = analysis.question
        return cls(question.id, question.text, text, analysis.type, route, **rest)

    @classmethod
    def failed(cls, question: Question, reason: str) -> Answer:
        """The line of a question that got no answer: route "error" and the reason."""
        return cls(
            id=question.id, question=question.text, answer="", type="open", route="error", error=reason
        )

    def to_json(self, steps: Sequence[str] = ()) -> dict:
        """The output line; `steps` (the question's analysis: rule, years, company, fields) go before the trace."""
        out = asdict(self)
        if steps:
            out["trace"] = [*steps, *out["trace"]]
        return out
