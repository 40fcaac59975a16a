"""Answers a question that quotes a row label 「…」 by finding the table cell within its source documents.

NTCIR-18 U4 style questions name a row label as XBRL prints it, often with the
statement or parent row after 、, a fiscal year, 個別 (the parent company's own
statements) or not (consolidated), and sometimes an XBRL member that stands for
a column header:

    塩野義製薬株式会社の2020年のNonControllingInterestsIFRSMemberの「配当金、持分変動計算書」は？
      label 支配継続子会社に対する持分変動 | context 持分変動計算書 | year 2020 | member -> 非支配持分

Candidate rows come from the text index's table-row chunks (filtered to the
question's sources); their cells come from the facts store by row (cell id,
column label, year, the table's statement kind and scope). Each cell is scored by
label similarity (row label and column label, rapidfuzz), context words in the
table's heading path or column label, the year, the scope asked (個別 or not),
primary statements first, and the member's column words (rules/members.yaml) or,
for a person's name (KeijiYamamotoMember), the officers' row whose name reads
like it, or, for other English words, the column or row that spells them in
katakana (LifestyleReportableSegmentMember: ライフスタイル; a member naming the row
leaves the label to name the table's caption). A question at a point in time
(2024年時点) takes a balance, never a movement within the year (a row between two
dated balances, a column of changes); the whole equity (純資産) of a member of one
of its parts (CapitalStockMember) is that part's balance row in the statement of
changes in equity. A cell whose label cannot name the asked one is not scored, nor is one that cannot reach
the best three (by the most its label, context and member can give). The best cell answers with the
value as the report prints it in base units and its cell id as evidence.

>>> answerer = CellAnswerer(index, store, tokenizer, templates)
>>> answer = answerer.run(analysis)           # None: not a quoted-label question, or no cell found
>>> answer.value, answer.evidence[0].cell_id
('-4187000000', 'S100IXUZ-0105010-tab89-r25c9')
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from rapidfuzz import fuzz

from core.errors import InputError
from core.fields import FieldDictionary
from core.language import JA, rule_language
from core.quotes import find_quoted
from core.records import Chunk
from core.rulebook import active, cached_per_book, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.statements import STATEMENTS
from core.units import header_name, is_per_share
from core.vocabulary import vocabulary
from qa.answers import AnswerTemplates
from qa.data.answer import TRACED
from qa.data.readings import name_likeness, person_key, spelled_key
from qa.records import Analysis, Answer, Evidence
from search.backend import CellFact, FactStore, Hit, SearchQuery, TextIndex
from search.tokenize import Tokenizer

_CELLS = per_book(lambda: vocabulary("cells"))  # rules/cells.yaml
_MEMBER = re.compile(r"([A-Z][A-Za-z0-9]*Member)")
_CAMEL_WORD = re.compile(r"[A-Z][a-z]+")
_YEAR = pattern_per_book(lambda: re.compile(_CELLS["year"]))
_INDIVIDUAL = pattern_per_book(lambda: re.compile(_CELLS["individual"]))
_POINT_IN_TIME = pattern_per_book(lambda: re.compile(_CELLS["point_in_time"]))
_PARENT_CONTEXT = pattern_per_book(lambda: re.compile(_CELLS["parent_context"]))
_DROP = pattern_per_book(lambda: re.compile(_CELLS["dropped"]))
_ROW = re.compile(r"-r(\d+)c\d+$")
_TOTAL_SUFFIX = pattern_per_book(lambda: re.compile(_CELLS["total_suffix"]))
_TOTAL = pattern_per_book(lambda: re.compile(_CELLS["total"]))
_BARE_TOTAL = pattern_per_book(lambda: re.compile(_CELLS["bare_total"]))
_ENTITY_TOTAL = pattern_per_book(lambda: re.compile(_CELLS["entity_total"]))
TITLED = 0.95  # a row whose table's title the label names counts a little less than one the label names
ABSORBED = 1.0  # points for each quoted part a reading reads as part of a label that names the row whole
WHOLE = 0.9  # a label this like a row's label names it whole
NEUTRAL_ROW = 0.5  # points for a row named by a member that picks no column
CAPTIONED = 0.4  # points for a table whose titles print the label's words (times how much of them)
MIN_TITLED = 0.85  # a title printing less of the label does not print it
FLOW = -1.0  # points for a change within the year when the question asks for a point in time
CONTEXT_NAMED = 1.5  # points for a context word naming one of a cell's headings or its row (the most)
HEADED = 0.97  # a row label's head before a parenthesised second line fits a little less than the whole label
_SECOND_LINE = re.compile(r"^(?P<head>.+?)\s*\((?P<second>[^()]*)\)?\s*$")  # matched after NFKC
_CONSOLIDATED = per_book(lambda: _CELLS["consolidated_title"])
_ACCUMULATED = pattern_per_book(lambda: re.compile(_CELLS["accumulated"]))
_EQUITY = pattern_per_book(lambda: re.compile(_CELLS["equity"]))
_BALANCE = pattern_per_book(lambda: re.compile(_CELLS["balance_row"]))
_LATER_SECTION = pattern_per_book(lambda: re.compile(_CELLS["later_section"]))
_SEPARATOR = per_book(lambda: _CELLS["separator"])
_PERCENT_UNITS = per_book(lambda: tuple(_CELLS["percent_units"]))
# The statements themselves (and the five-year summary) before notes and schedules that repeat their labels.
_PRIMARY = frozenset((*STATEMENTS, "key_figures"))
_US_GAAP = pattern_per_book(lambda: re.compile(_CELLS["us_gaap"], re.IGNORECASE))

MAX_READINGS = 50_000  # names whose reading is kept
MAX_NAME_CHARS = 24  # a cell longer than this is no person's name
MIN_NAME_LIKENESS = 0.7  # a row whose best name reads less like the member's is not that person's
_MEMBER_SUFFIX = re.compile(r"IFRS$|ReportableSegments?$")
MIN_SPOKEN = 0.5  # a header that names a member's English words less well is not the member's
_WORDS = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
MEMBERS_SCHEMA = {
    "type": "object",
    "required": ["members"],
    "additionalProperties": False,
    "properties": {
        "members": {
            "type": "object",
            "propertyNames": {"pattern": "^[A-Z][A-Za-z0-9]*$", "not": {"pattern": "Member$"}},
            "additionalProperties": _WORDS,
        },
        "neutral": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z][A-Za-z0-9]*$"}},
        "silent": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z][a-z]*$"}},
        "terms": {
            "type": "object",
            "propertyNames": {"pattern": "^[A-Z][a-z]*$"},
            "additionalProperties": _WORDS,
        },
    },
}


@dataclass(frozen=True)
class MemberWords:
    """XBRL member names -> the column words the report prints for them (rules/members.yaml).

    >>> MemberWords.load().of("NonControllingInterestsIFRS")
    ('非支配持分',)
    """

    words: dict[str, tuple[str, ...]]
    neutral: frozenset[str] = frozenset()
    silent: frozenset[str] = frozenset()  # words of a member name its printed name leaves out (And, Group)
    terms: dict[str, tuple[str, ...]] = field(default_factory=dict)  # English word -> its printed words

    @classmethod
    def load(cls, path: Path | None = None) -> MemberWords:
        """Read and validate the file (InputError "file:line: …" when it is wrong)."""
        rules = RuleFile.load(path or active().rules_dir / "members.yaml", MEMBERS_SCHEMA)
        data = rules.data
        return cls(
            {name: tuple(words) for name, words in data["members"].items()},
            frozenset(data.get("neutral", ())),
            frozenset(data.get("silent", ())),
            {word: tuple(printed) for word, printed in data.get("terms", {}).items()},
        )

    def of(self, member: str) -> tuple[str, ...]:
        """The printed words of a member (its name without "Member"); () when the file does not know it."""
        return self.words.get(member) or self.words.get(_MEMBER_SUFFIX.sub("", member), ())

    def spoken(self, member: str) -> SpokenMember:
        """A member this file does not list, by its English words: the CamelCase words less its suffix and the
        silent words (ElectronicAndMechanicalComponentsBusinessReportableSegments: Electronic, Mechanical,
        Components, Business).

        >>> MemberWords.load().spoken("DomesticTobaccoReportableSegment").terms
        (('国内',), ('たばこ',))
        """
        words = tuple(w for w in _CAMEL_WORD.findall(_MEMBER_SUFFIX.sub("", member)) if w not in self.silent)
        return SpokenMember(spelled_key(words), tuple(self.terms.get(w, ()) for w in words))


@dataclass(frozen=True)
class SpokenMember:
    """A member matched to a row or column header by what its English words say: spelled in katakana
    (Lifestyle: ライフスタイル, by reading) or put in the printed words of the term table (DomesticTobacco:
    国内たばこ事業)."""

    sound: tuple[str, ...]  # the words romanised as one key (qa.data.readings.spelled_key)
    terms: tuple[tuple[str, ...], ...]  # each word's printed words, () for a word the table lacks

    def likeness(self, header: str) -> float:
        """0..1: how well the header names the member; below MIN_SPOKEN it does not."""
        return _spoken_likeness(self, header)


@cached_per_book(maxsize=65536)
def _spoken_likeness(member: SpokenMember, header: str) -> float:
    return max(name_likeness(member.sound, header), _said(member.terms, _norm(header)))


def _said(terms: tuple[tuple[str, ...], ...], header: str) -> float:
    """How much of a member's words (those the term table knows) the header prints, times the square root of how
    much of the header they make up: Business (事業) names ビジネス事業 better than 国内たばこ事業."""
    known = [printed for printed in terms if printed]
    if not known or not header:
        return 0.0
    found = [max((len(t) for t in printed if t in header), default=0) for printed in known]
    said = sum(1 for length in found if length) / len(known)
    return said * min(1.0, sum(found) / len(header)) ** 0.5


@cached_per_book()
def _shared_members() -> MemberWords:
    return MemberWords.load()


@dataclass(frozen=True)
class CellQuestion:
    """What a quoted-label question asks, read from its text."""

    label: str  # the row label (before the first 、)
    context: tuple[str, ...]  # the parts after 、: statement, table or parent row names
    year: int | None
    individual: bool  # 個別決算: the parent company's own statements
    member: str = ""  # the XBRL member without "Member" ("" when none)
    member_words: tuple[str, ...] = ()
    person: tuple[
        str, ...
    ] = ()  # a member that is a person's name (KeijiYamamoto), romanised (qa.data.readings)
    spoken: SpokenMember | None = None  # a member the file does not list, by its English words
    point_in_time: bool = False  # 2024年時点: a balance at the year's end, never a movement within the year

    @cached_property
    def per_share(self) -> bool:
        return is_per_share(self.label)

    @cached_property
    def wanted(self) -> str:
        """The label normalised, as every cell's scoring reads it."""
        return _norm(self.label)

    @cached_property
    def printed_members(self) -> tuple[str, ...]:
        """The member's printed words normalised, as every cell's scoring reads them."""
        return tuple(_norm(w) for w in self.member_words)

    @cached_property
    def us_gaap(self) -> bool:
        return bool(_US_GAAP.search(self.label))

    @cached_property
    def own_figures(self) -> bool:
        """The parent company's own figures: 個別 before the quotes, or a context word naming the company (提出会社)."""
        return self.individual or any(_PARENT_CONTEXT.search(p) for p in self.context)

    @cached_property
    def component_balance(self) -> bool:
        """The label names the whole equity (純資産) and a member one of its parts (CapitalStock): the question asks
        for that part's balance, a balance row (当期末残高) of the statement of changes in equity."""
        return bool(self.member_words) and bool(_EQUITY.match(_norm(self.label)))

    @cached_property
    def later_section(self) -> bool:
        """The context names the later section of a statement (固定負債): of two rows alike, the later one."""
        return any(_LATER_SECTION.search(p) for p in self.context)

    def readings(self) -> list[tuple[str, tuple[str, ...]]]:
        """(label, context) splits of the quoted text: the label may run on over the first 、."""
        parts = (self.label, *self.context)
        return [(_SEPARATOR.value().join(parts[:k]), parts[k:]) for k in range(1, len(parts) + 1)]

    @classmethod
    def parse(
        cls, text: str, years: tuple[int, ...] = (), members: MemberWords | None = None
    ) -> CellQuestion | None:
        """What the question asks; None when it quotes no label. `members` default: rules/members.yaml."""
        # the outer quotes win over nested ones (「売上高、「セグメント」」)
        quoted = next(iter(find_quoted(text, longest=200, outermost=True)), None)
        if quoted is None:
            return None
        parts = [p.strip() for p in quoted.word.split(_SEPARATOR.value()) if p.strip()]
        if not parts:
            return None
        outside = text[: quoted.start]
        year = years[0] if years else None
        if year is None:
            found = _YEAR.search(outside)
            year = int(found.group(1)) if found else None
        member = _MEMBER.search(outside)
        name = member.group(1)[: -len("Member")] if member else ""
        members = members or _shared_members()
        words = members.of(name) if name else ()
        segment = _MEMBER_SUFFIX.sub("", name) != name
        person = person_key(name) if name and not words and not segment else ()
        spoken = (
            members.spoken(name) if name and not (words or person) and name not in members.neutral else None
        )
        return cls(
            parts[0],
            tuple(parts[1:]),
            year,
            bool(_INDIVIDUAL.search(outside)),
            name,
            words,
            person,
            spoken,
            bool(_POINT_IN_TIME.search(outside)),
        )


@dataclass(slots=True)
class _Cell:
    """A candidate cell: a fact of the store and the table-row chunk it belongs to."""

    fact: CellFact
    chunk: Chunk
    rank: float  # the chunk's search score relative to the best hit (0..1]
    place: tuple[str, str]  # (table id, row) of its cell id, read once: every step below groups cells by row
    row: int  # the row's number
    # The fact's row label and column header path as strings, read once: every scoring step reads them.
    named: str  # the row label that names this row: as stored, or one line of a two-line label (_split_spanned_labels)
    period: str  # the column's header path, "/"-joined ("" for none)
    # the label each candidate row is named by, by (table id, row number): shared by a question's cells
    labels: dict[tuple[str, int], str]
    score: float = 0.0
    label: float = 0.0  # how well the question's row label names the cell (0..1)
    parts: dict[str, float] | None = (
        None  # the score's parts, for the trace (only a cell whose label fits has them)
    )

    @property
    def above(self) -> str:
        """The label of the row above, when it is a candidate too ("" otherwise): a context word may name that
        row, as a balance sheet prints 減価償却累計額 under the asset it is of (工具、器具及び備品, then 減価償却累計額)."""
        return self.labels.get((self.place[0], self.row - 1), "")

    def why(self) -> str:
        return ", ".join(f"{name} {points:+.2f}" for name, points in (self.parts or {}).items() if points)


@dataclass(frozen=True)
class CellSettings:
    """Knobs of CellAnswerer, validated on construction."""

    rows: int = 30  # table-row chunks to consider per question
    min_label: float = 0.45  # a cell whose label similarity is below this is not an answer (0..1)

    def __post_init__(self):
        if self.rows < 1:
            raise InputError(f"rows must be positive, got {self.rows}")
        if not 0.0 <= self.min_label <= 1.0:
            raise InputError(f"min_label must be within 0..1, got {self.min_label}")


class CellAnswerer:
    """Finds the table cell a quoted-label question asks for; `run` is the entry point."""

    def __init__(
        self,
        index: TextIndex,
        store: FactStore,
        tokenizer: Tokenizer,
        templates: AnswerTemplates | None = None,
        settings: CellSettings | None = None,
        members: MemberWords | None = None,
        fields: FieldDictionary | None = None,
    ):
        if index is None or store is None:
            raise ValueError("CellAnswerer needs a text index and a facts store")
        self.members = members or _shared_members()
        # A label and a row the field list (rules/fields.yaml) names as one field match whole, however they are
        # worded (株価指数における総利回り is the row 比較指標:配当込みTOPIX).
        self.fields = fields or FieldDictionary.load()
        self.canonical = lru_cache(maxsize=65536)(self.fields.canonical)
        self.index = index
        self.store = store
        self.tokenizer = tokenizer
        self.templates = templates or AnswerTemplates.load()
        self.settings = settings or CellSettings()
        self._readings: dict[str, str] = {}  # printed name -> katakana reading

    def run(self, analysis: Analysis) -> Answer | None:
        """The answer from the best cell, or None when the question quotes no label or no cell fits."""
        question = analysis.question
        if not question.sources:
            return None
        asked = CellQuestion.parse(question.text, analysis.years, self.members)
        if asked is None:
            return None
        # The label is read as the question's language: a kanji-only label (利益準備金) is Japanese in a
        # Japanese question, as the table rows it must match were indexed.
        cells = self.candidates(asked, question.sources, language=analysis.language)
        # A report that does not print the asked label may print a wording of it from the field list
        # (株価指数における総利回り as 比較指標：配当込みTOPIX); one that prints it is read as printed, since
        # wordings tell statements apart (売上高 in the parent's summary, 売上収益 in the IFRS one).
        printed = any(_norm(c.named) == asked.wanted for c in cells)
        wordings = () if printed else self._wordings(asked.label)
        if wordings:
            cells = self.candidates(asked, question.sources, wordings, analysis.language)
        if not cells:
            return None
        return self._pick(analysis, asked, cells, wordings)

    def _pick(
        self, analysis: Analysis, asked: CellQuestion, cells: list[_Cell], wordings: tuple[str, ...]
    ) -> Answer | None:
        """The answer from the best of the candidate cells, or None when no cell's label fits."""
        persons = self._person_rows(asked, cells)
        readings = _Readings(asked, self.settings.min_label)
        named = self._named(asked, cells, readings, bool(wordings))
        if not named:
            return None
        best = self._best(asked, named, readings, persons)
        return self._answer(analysis, asked, best[0], best[1:])

    def _named(
        self, asked: CellQuestion, cells: list[_Cell], readings: _Readings, by_wording: bool
    ) -> list[tuple[_Cell, tuple[float, ...]]]:
        """The cells whose label the question's names (cell.label: how well; at least min_label), each with every
        reading's likeness."""
        # Most cells' labels cannot name the asked one, nor can their table's titles: spared the likeness (the field
        # list's wordings and a component's balance row name cells whatever their labels).
        plain = not (by_wording or asked.component_balance)
        named = []
        for cell in cells:
            if not (plain and readings.hopeless(cell.named, cell.period)):
                likeness = self._likeness(asked, cell, readings, by_wording)
                cell.label = max(likeness)
                if cell.label >= self.settings.min_label:
                    named.append((cell, likeness))
        return named

    def _best(
        self,
        asked: CellQuestion,
        named: list[tuple[_Cell, tuple[float, ...]]],
        readings: _Readings,
        persons: set[tuple[str, str]],
        keep: int = TRACED,
    ) -> list[_Cell]:
        """The `keep` best of the named cells (with their likeness) by score, the first of equals first.

        A cell's costly points (its context words, titles, member) are weighed only while it can still be one of
        them: cells are scored by the most they can score, highest first, until the rest cannot reach the last of
        the best so far (a question names ~30 cells, a trace keeps 3)."""
        most = self._most_member_points(asked, persons) + CAPTIONED
        bounded = []
        for order, (cell, likeness) in enumerate(named):
            plain = _plain_points(asked, cell)
            fit = _most_fit(likeness, readings.matches) + 0.5 * cell.rank
            bounded.append(
                (fit + sum(plain.values()) + most + _row_points(asked, cell), order, likeness, plain)
            )
        bounded.sort(key=lambda b: -b[0])
        scored: list[tuple[int, _Cell]] = []
        scores: list[float] = []  # the scores so far, highest first
        for bound, order, likeness, plain in bounded:
            if len(scores) >= keep and bound < scores[keep - 1] - 1e-9:
                break  # nor can any after it: their bounds are no higher
            cell = named[order][0]
            self._score(asked, cell, likeness, readings, plain, persons)
            scored.append((order, cell))
            scores.append(cell.score)
            scores.sort(reverse=True)
        # in the named cells' order, as a sort of all of them keeps equals
        scored.sort(key=lambda s: s[0])
        return sorted((cell for _, cell in scored), key=lambda c: -c.score)[:keep]

    # -- candidates --------------------------------------------------------------------------------

    def _wordings(self, label: str) -> tuple[str, ...]:
        """The wordings rules/fields.yaml lists for a field the label is the name of; () for any other label (a
        label that is only a synonym, 売上収益 of 营业收入, is one wording of several a report tells apart)."""
        field = self.fields.fields.get(self.canonical(label) or "")
        return tuple(field.synonyms) if field and _norm(field.name) == _norm(label) else ()

    def candidates(
        self,
        asked: CellQuestion,
        sources: tuple[str, ...],
        wordings: tuple[str, ...] = (),
        language: str = "",
    ) -> list[_Cell]:
        """Every cell of the best-matching table rows in the sources."""
        words = [asked.label, *asked.context, *asked.member_words]
        titles = tuple(asked.context) + (
            (_CELLS["individual_title"],) if asked.individual else (_CONSOLIDATED.value(),)
        )
        if asked.spoken:
            titles += (asked.label,)  # the member may name the row, and the label the table's caption
        # A short label ("その他") heads many rows: look further down the hits for the right one; further still for
        # an officer, whose row is one of dozens alike in the officers' tables.
        limit = self.settings.rows * (3 if asked.person else 2 if len(asked.label) <= 4 else 1)
        phrases = (asked.label, *wordings)
        hits = self.index.search(
            SearchQuery(
                text=" ".join(words),
                phrases=phrases,
                titles=titles,
                doc_ids=sources,
                kinds=("table",),
                language=language,
                limit=limit,
            )
        )
        if not hits:
            return []
        rows = _hit_rows(hits)
        # A fact's row is its cell id up to the column ("…-tab89-r25" of "…-tab89-r25c9").
        places = {f"{table}-r{row}": (table, row) for table, row in rows}
        found = self.store.row_cells(list(places))
        years = range(asked.year - 10, asked.year + 3) if asked.year else None
        in_sources = _InSources(sources)
        cells: list[_Cell] = []
        ends = []  # each row's last cell
        labels: dict[tuple[str, int], str] = {}
        # in cell id order (the facts of a row follow each other in it): cells scored alike rank in it
        for row in sorted(found, key=lambda row: found[row][0].cell_id):
            place = places[row]
            chunk, rank = rows[place]
            number = int(place[1])
            cells += [
                _Cell(fact, chunk, rank, place, number, fact.field, fact.period, labels)
                for fact in found[row]
                if (years is None or not fact.year or fact.year in years) and in_sources[fact.doc_id]
            ]
            if cells and cells[-1].place is place:
                ends.append(cells[-1])
        _split_spanned_labels(cells)
        labels.update(((cell.place[0], cell.row), cell.named) for cell in ends)
        return cells

    # -- scoring -----------------------------------------------------------------------------------

    def _person_rows(self, asked: CellQuestion, cells: list[_Cell]) -> set[tuple[str, str]]:
        """The rows naming the person a member stands for: the row whose name reads like it, printed in a cell (the
        officers' table) or as the row's label (a table of each officer's pay)."""
        if not asked.person:
            return set()
        likeness: dict[tuple[str, str], float] = {}
        for cell in cells:
            names = [str(cell.fact.field)] + ([str(cell.fact.value)] if cell.fact.exact is None else [])
            place = cell.place
            for name in names:
                if 1 < len(name) <= MAX_NAME_CHARS:
                    score = name_likeness(asked.person, self._reading(name))
                    likeness[place] = max(likeness.get(place, 0.0), score)
        best = max(likeness.values(), default=0.0)
        return (
            {place for place, score in likeness.items() if score == best}
            if best >= MIN_NAME_LIKENESS
            else set()
        )

    def _reading(self, text: str) -> str:
        reading = self._readings.get(text)
        if reading is None:
            if len(self._readings) > MAX_READINGS:
                self._readings.clear()
            reading = self._readings[text] = self.tokenizer.reading(text)
        return reading

    def _score(
        self,
        asked: CellQuestion,
        cell: _Cell,
        likeness: tuple[float, ...],
        readings: _Readings,
        plain: dict[str, float],
        persons: set[tuple[str, str]] = frozenset(),
    ) -> None:
        """The cell's score and its parts: its label's fit (`likeness`: each reading's), titles and member points
        with its plain points (`_plain_points`)."""
        parts = cell.parts = {}
        parts["label"] = _fit(cell, likeness, readings.matches) + 0.5 * cell.rank
        # Tables alike but for their captions (銘柄数及び貸借対照表計上額, 株式数が増加した銘柄, 株式数が減少した銘柄):
        # the one whose titles print the label's words.
        parts["titled"] = CAPTIONED * _titled(asked.wanted, cell.chunk.titles)
        parts.update(plain)
        member = self._member_points(asked, cell, persons)
        if member is not None:
            parts["member"] = member
        cell.score = sum(parts.values()) + _row_points(asked, cell)

    def _most_member_points(self, asked: CellQuestion, persons: set[tuple[str, str]]) -> float:
        """The most points `_member_points` gives a cell of this question (none gives fewer than 0)."""
        if asked.member_words and asked.member in self.members.neutral:
            return NEUTRAL_ROW
        if asked.member_words:
            return 2.0
        if persons:
            return 3.0
        if asked.spoken:
            return 2.0
        return 0.6 if asked.member not in self.members.neutral else 0.0  # _default_column's most

    def _likeness(
        self,
        asked: CellQuestion,
        cell: _Cell,
        readings: _Readings,
        by_wording: bool,
    ) -> tuple[float, ...]:
        """How well each reading of the label names the cell (0..1): its row and column labels, a wording of the
        field list, or, for a row of a bare total or of the member, the titles of its table."""
        titles, named_row = cell.chunk.titles, cell.named
        # A label may itself hold 、 ("法人税、住民税及び事業税"): the reading that fits the cell best counts.
        likeness = readings.of(named_row, cell.period)
        field = self.canonical(asked.label) if by_wording else None
        if field is not None and field == self.canonical(named_row):
            likeness = (1.0, *likeness[1:])
        if asked.component_balance and _balance_row(cell):
            # 純資産 of a member (資本金): the member's balance in the statement of changes in equity
            likeness = (1.0, *likeness[1:])
        if titles and readings.titled(named_row):
            # A row named by a bare total (合計, 計) or by the member (a segment, エネルギー) is about what its table
            # is about: the label may name one of the table's titles instead.
            likeness = tuple(
                max(similarity, *(TITLED * match.of(t, "") for t in titles))
                for similarity, (match, _) in zip(likeness, readings.matches)
            )
        return likeness

    def _member_points(self, asked: CellQuestion, cell: _Cell, persons: set[tuple[str, str]]) -> float | None:
        """Points for how well the cell's column or row is the member's (None: the question names no member that
        weighs here)."""
        named_row, period = cell.named, cell.period
        words = asked.printed_members
        if words and asked.member in self.members.neutral:
            # A member every column is of (OrdinaryShare) picks no column, but a row named by it is its own (普通株式,
            # not 計, in the table of issued shares); a little, since most tables it asks about have no such row.
            row = _norm(named_row)
            return NEUTRAL_ROW if any(w in row for w in words) else 0.0
        if words:
            matched = max([_member_fit(w, period) for w in words])
            row = _norm(named_row)
            row_match = any(_names(w, row) for w in words)
            return 2.0 * max(matched, 0.8 if row_match else 0.0)
        if persons:
            return 3.0 if cell.place in persons else 0.0
        if asked.spoken:
            # A segment named as its column or its row (ライフスタイル for LifestyleMember).
            named = max(asked.spoken.likeness(_header(period)[0]), asked.spoken.likeness(named_row))
            return 2.0 * named if named >= MIN_SPOKEN else 0.0
        if asked.member not in self.members.neutral:
            return _default_column(period)
        return None

    # -- answer ------------------------------------------------------------------------------------

    def _answer(
        self, analysis: Analysis, asked: CellQuestion, cell: _Cell, runners_up: list[_Cell]
    ) -> Answer:
        fact = cell.fact
        value = _shown_value(asked, fact)
        lang = rule_language(analysis.language, fallback=JA)
        # a cell of a document whose company is unknown is named as the document's company, never another's
        company = (
            analysis.company.name
            if analysis.company
            else str(fact.company) or self.templates.words[lang]["unknown_company"]
        )
        unit = str(fact.unit or "")
        fields = {
            "company": company,
            "year": asked.year or fact.year,
            "field": _SEPARATOR.value().join((asked.label, *asked.context)),
            "value": value,
        }
        if fact.exact is None:
            text = self.templates.render("lookup_text", lang, **fields)
        else:
            text = self.templates.render(
                "lookup", lang, **fields, unit="" if unit in _PERCENT_UNITS.value() else unit
            )
        trace = [
            f"#{i} {c.score:.2f} {c.fact.cell_id} {c.fact.scope or 'scope unknown'} {c.fact.statement}: "
            f"{c.why()}"
            for i, c in enumerate((cell, *runners_up), 1)
        ]
        return Answer.to(
            analysis,
            text,
            "lookup:cell",
            value=value,
            documents=[str(fact.doc_id)],
            evidence=[_evidence(cell)],
            trace=trace,
            unit=unit,
            score=round(cell.score, 4),
        )


def _fit(
    cell: _Cell, likeness: tuple[float, ...], matches: list[tuple[_LabelMatch, tuple[str, ...]]]
) -> float:
    """The best reading's label likeness (x4) with its context words found in the cell's titles, column and row.

    A reading whose label is the row's label, whole, though it takes more of the quoted parts leaves fewer to
    match as context: each part it takes counts as a context word found ("受取手形、売掛金及び契約資産" is the
    balance sheet's row, not a note's row 受取手形 under some heading that names the rest)."""
    if len(matches) == 1 and not matches[0][1]:
        return 4.0 * likeness[0]  # most questions: a label alone, no context words, one reading
    # The first reading's context holds every part another reading reads as context: each part is matched once.
    points: dict[str, float] = {}
    if matches[0][1]:
        row = _norm(cell.named)
        titled, title_names = _titles(cell.chunk.titles)
        where = titled + _norm(cell.period) + row  # each part is kept normalised
        above = _norm(cell.above)
        points = {p: _context_match(_norm(p), title_names, row, where, above) for p in matches[0][1]}
    return max(
        [
            _label_points(similarity, len(matches) - len(context) - 1) + sum([points[p] for p in context])
            for similarity, (_, context) in zip(likeness, matches)
        ]
    )


def _label_points(similarity: float, taken: int) -> float:
    """A reading's label likeness (x4), and ABSORBED for each quoted part it takes when it names the row whole."""
    return 4.0 * similarity + (ABSORBED * taken if similarity >= WHOLE else 0.0)


def _most_fit(likeness: tuple[float, ...], matches: list[tuple[_LabelMatch, tuple[str, ...]]]) -> float:
    """The most `_fit` gives a cell of this likeness: each context word found as a heading's name."""
    return max(
        [
            _label_points(similarity, len(matches) - len(context) - 1) + CONTEXT_NAMED * len(context)
            for similarity, (_, context) in zip(likeness, matches)
        ]
    )


def _plain_points(asked: CellQuestion, cell: _Cell) -> dict[str, float]:
    """The score's parts that the fact and row tell at once: year, statement, per share, flow, GAAP, scope."""
    fact, parts = cell.fact, {}
    if asked.year is not None and fact.year:
        parts["year"] = 1.5 if int(fact.year) == asked.year else -1.5
    if fact.statement in _PRIMARY:
        parts["statement"] = 0.8
    if asked.per_share != _per_share(cell.named):
        parts["per_share"] = -2.0  # 当期純利益 is no 1株当たり当期純利益, however alike the labels read
    if asked.point_in_time and fact.period_kind == "change":
        parts["flow"] = FLOW  # a movement row or a column of changes is no balance at a point in time
    if asked.us_gaap != _us_gaap(cell.period):
        # the five-year summary's US GAAP columns answer only labels marked (US GAAP)
        parts["gaap"] = -1.5
    scope = _scope_points(asked, fact.statement, fact.scope)
    if scope is not None:
        parts["scope"] = scope
    return parts


def _row_points(asked: CellQuestion, cell: _Cell) -> float:
    """Same label in both sections of a statement: the later row is the non-current one."""
    return (cell.row if asked.later_section else -cell.row) * 0.001


def _scope_points(asked: CellQuestion, statement: str, scope: str) -> float | None:
    """Points for the cell's scope against the one asked (None: no points either way)."""
    if asked.own_figures:
        return 1.0 if scope == "parent" else (-1.5 if scope == "consolidated" else 0.0)
    if scope == "consolidated":
        return 0.7
    if scope == "parent" and statement not in ("key_figures", "mdna", "other"):
        return -2.0  # no 個別 asked: never the parent's own statements (its 経営指標等 may answer)
    return None


def _shown_value(asked: CellQuestion, fact: CellFact) -> str:
    """The cell's value as the answer gives it: signed when a deduction, with % when a percentage."""
    value = str(fact.value)
    number = fact.number
    if (
        number is not None
        and number == number
        and number > 0
        and any(_ACCUMULATED.search(p) for p in (asked.label, *asked.context))
    ):
        value = "-" + value  # accumulated depreciation/impairment is a deduction; notes print it unsigned
    if str(fact.unit or "") in _PERCENT_UNITS.value() and number is not None:
        value += "%"  # the gold keeps percentages as fractions; "12.5%" normalises to 0.125
    return value


def _evidence(cell: _Cell) -> Evidence:
    """The cell as the answer's evidence: where it is, and its titles, row, column and printed text."""
    fact = cell.fact
    return Evidence(
        doc=str(fact.doc_id),
        page=None,
        cell_id=str(fact.cell_id),
        text=_CELLS["evidence"].format(
            titles=" > ".join(cell.chunk.titles),
            field=fact.field,
            period=fact.period,
            raw=fact.raw,
        ),
        statement=fact.statement,
        scope=fact.scope,
        period=str(fact.period or ""),
    )


@cached_per_book(maxsize=65536)
def _norm(text: str) -> str:
    return _DROP.sub("", unicodedata.normalize("NFKC", text))


@cached_per_book(
    maxsize=65536
)  # asked of every candidate cell: a few hundred a question, of a few dozen rows
def _per_share(row: str) -> bool:
    return is_per_share(row)


@cached_per_book(maxsize=65536)
def _us_gaap(period: str) -> bool:
    return bool(_US_GAAP.search(period))


@cached_per_book(maxsize=65536)  # every reading of every question weighs a row label with it
def _without_total(row: str) -> str:
    """A normalised row label without its total suffix (…合計)."""
    return _TOTAL_SUFFIX.sub("", row)


@cached_per_book(maxsize=65536)
def _bare_total(row: str) -> bool:
    return bool(_BARE_TOTAL.match(_norm(row)))


def _member_fit(word: str, period: str) -> float:
    """How well a member's printed word names a column: its own name (best), a group header over it ("評価・換算差額
    等" over その他有価証券評価差額金, whose total column is the member's own), or a fuzzy likeness."""
    own, path = _header(period)
    if len(word) == 1:  # one character (計) names a header that is it, not one it is written in (会計年度)
        return 1.0 if word == own else 0.85 if word in _columns(period) else 0.0
    if word in own:
        return 1.0
    if word in path:
        return 0.85
    return fuzz.partial_ratio(word, own + "|" + path) / 100 * 0.5


def _balance_row(cell: _Cell) -> bool:
    """A balance row of a statement of changes in equity (当期首残高, 2020年3月31日残高: then the row is the period)."""
    return cell.fact.statement == "equity_changes" and bool(
        _BALANCE.search(_norm(cell.named)) or _BALANCE.search(_norm(cell.period))
    )


def _names(word: str, label: str) -> bool:
    """Whether a member's printed word names a row label: within it, or, for one character (計), the label whole."""
    return word == label if len(word) == 1 else word in label


@cached_per_book(maxsize=65536)
def _default_column(period: str) -> float:
    """Points for the column a question without a member means (the XBRL default): the amount the consolidated
    statements carry (連結財務諸表計上額) first, then a total that no group header is over (純資産合計, not
    株主資本/株主資本合計 or 報告セグメント/計, the subtotals of a part)."""
    own = _header(period)[0]
    if _ENTITY_TOTAL.search(own):
        return 0.6
    grouped = [p for p in period.split("/") if p.strip() and header_name(p)][:-1]
    return 0.4 if _TOTAL.search(own) and not grouped else 0.0


@cached_per_book(maxsize=16384)  # a table's rows share their titles
def _titles(titles: tuple[str, ...]) -> tuple[str, frozenset[str]]:
    """A heading path as `_fit` reads it: all of it normalised as one text, and each title normalised."""
    return _norm(" ".join(titles)), frozenset(_norm(t) for t in titles)


@cached_per_book(maxsize=65536)
def _header(period: str) -> tuple[str, str]:
    """(the column's own name, its whole header path), normalised."""
    return _norm(header_name(period)), _norm(period)


def _context_match(part: str, titles: frozenset[str], row: str, where: str, above: str = "") -> float:
    """How well a context word of the question ("流動負債") fits a cell: the name of one of its headings or its
    row (best), a word within its headings or labels (not as the tail of its opposite: 非流動負債), a word of the
    row above that its own headings and labels lack (減価償却累計額 under 工具、器具及び備品), or a fuzzy
    likeness."""
    if not part:
        return 0.0
    if part in titles or part == row:
        return CONTEXT_NAMED
    unnegated = _unnegated(part)
    if unnegated.search(where) or (above and unnegated.search(above)):
        return 1.0
    return fuzz.partial_ratio(part, where) / 100 * 0.6


@cached_per_book(maxsize=4096)
def _unnegated(part: str) -> re.Pattern:
    """The context word not as the tail of its opposite (流動負債, not in 非流動負債)."""
    return re.compile(f"(?<!{re.escape(_CELLS['negation'])}){re.escape(part)}")


class _Readings:
    """The readings of a question's quoted label (CellQuestion.readings: label, context), each read as a
    _LabelMatch, and how well they name each (row label, column) pair. A question's candidate cells share their
    pairs (UFO: 136 cells, 97 pairs a question), so each pair is weighed once, by every reading at a time.

    Most pairs name no answer: `hopeless` tells them without the work that could only tell how far below `floor`
    (min_label) their likeness is."""

    def __init__(self, asked: CellQuestion, floor: float):
        self.asked = asked
        self.matches = [(_LabelMatch(label), context) for label, context in asked.readings()]
        self._labels = [match for match, _ in self.matches]
        self.floor = floor
        # the floor in ratio points, a hair below: a ratio under it is a likeness under the floor, however rounded
        self._points = 100 * floor - 1e-6
        self._pairs: dict[tuple[str, str], tuple[float, ...]] = {}
        self._hopeless: dict[tuple[str, str], bool] = {}
        self._titled: dict[str, bool] = {}  # by row label: asked by `hopeless` and `_likeness`

    def of(self, field: str, period: str) -> tuple[float, ...]:
        """Each reading's likeness (0..1) of the cell in row `field` and column `period`."""
        pair = (field, period)
        likeness = self._pairs.get(pair)
        if likeness is None:
            likeness = self._pairs[pair] = tuple([match.of(field, period) for match in self._labels])
        return likeness

    def hopeless(self, field: str, period: str) -> bool:
        """Whether every reading names the cell less than the floor, and a row so named cannot be named by its
        table's titles either (see `titled`)."""
        pair = (field, period)
        hopeless = self._hopeless.get(pair)
        if hopeless is None:
            # a list, not a generator: this runs for every pair of every question
            bounds = tuple([match.of(field, period, self._points) for match in self._labels])
            if min(bounds) >= self.floor:
                # at or above the floor a bound is the likeness itself: `of` needs no more
                self._pairs[pair] = bounds
            hopeless = self._hopeless[pair] = max(bounds) < self.floor and not self.titled(field)
        return hopeless

    def titled(self, field: str) -> bool:
        """Whether a row so named is about what its table is about: a bare total (合計, 計) or the member's name."""
        titled = self._titled.get(field)
        if titled is None:
            spoken = self.asked.spoken
            titled = self._titled[field] = _bare_total(field) or bool(
                spoken and spoken.likeness(field) >= MIN_SPOKEN
            )
        return titled


class _LabelMatch:
    """How well one reading of the question's row label names a cell: its row label, or row and column label
    together ("所有株式数（単元）－個人その他" is row 所有株式数, column 個人その他). The label's own work is done
    once and each row label and column once, since a question weighs a few hundred cells of a few dozen rows
    (_Readings keeps each cell's likeness).

    >>> _LabelMatch("売上高").of("売上高合計", "当連結会計年度")
    1.0
    """

    def __init__(self, label: str):
        self.label = label
        self.wanted = _norm(label)
        self._length = len(self.wanted)
        folded = unicodedata.normalize("NFKC", label)
        head, colon, qualifier = folded.partition(":")
        # An XBRL label puts its qualifier after a colon; the report prints it first.
        self.reordered = _norm(qualifier + head) if colon else ""
        parts = [_norm(p) for p in re.split(r"[-―]", folded) if _norm(p)]
        self.parts = parts if len(parts) > 1 else []
        self._rows: dict[str, tuple[float, int]] = {}
        self._fields: dict[str, tuple[str, float, int]] = {}  # by row label as stored: _named_row's
        self._columns: dict[str, tuple[float, int]] = {}
        self._headers: dict[str, tuple[tuple[str, ...], str, float, int]] = {}  # by header path: _header's
        self._parts: dict[str, list[float]] = {}

    def of(self, field: str, period: str, floor: float = 0.0) -> float:
        """The likeness (0..1) of the cell in row `field` and column `period` (its header path, "/"-joined); where
        it is below `floor` (ratio points, 0..100), a value below `floor` too."""
        # Called for every (row, column) pair of a question's cells: the dictionaries are read inline, a method call
        # costs as much as a ratio.
        row = self._fields.get(field)
        if row is None:
            row = self._fields[field] = self._named_row(field)
        name, best, row_common = row
        header = self._headers.get(period)
        if header is None:
            header = self._headers[period] = self._header(period)
        columns, column, named, column_common = header
        if self.parts:
            terms = [self._part_ratios(t) for t in (name, *columns)]
            best = max(best, sum(max(ratios) for ratios in zip(*terms)) / len(self.parts))
        if columns:
            if named > best:
                best = named
            # Row and column read together can beat the best so far, and the floor, only if the characters they
            # can share with the label allow (most pairs: not): the ratio is 200 x the common subsequence / both
            # lengths, and that subsequence is no longer than the label, nor than what the row and the column each
            # share with it, added; so the pair is not even built then.
            together = len(name) + len(column)
            common = row_common + column_common
            if self._length < common:
                common = self._length
            if 200 * common / (together + self._length) > (best if best > floor else floor) - 1e-9:
                ratio = fuzz.ratio(self.wanted, name + column, score_cutoff=best)
                if ratio > best:
                    best = ratio
                ratio = fuzz.ratio(self.wanted, column + name, score_cutoff=best)
                if ratio > best:
                    best = ratio
        return best / 100

    def _named_row(self, field: str) -> tuple[str, float, int]:
        """A row label normalised, how well the label names it and how many characters they share in order (kept
        per normalised label)."""
        name = _norm(field)
        row = self._rows.get(name)
        if row is None:
            row = self._rows[name] = self._row(name, _head(field))
        return name, *row

    def _header(self, period: str) -> tuple[tuple[str, ...], str, float, int]:
        """A column header path's headers, its own (last) header, how well the label names that header (the label
        may name the column of a row the member or the context picks: "報酬等の総額") and how many characters they
        share in order."""
        columns = _columns(period)
        if not columns:
            return columns, "", 0.0, 0
        column = self._columns.get(columns[-1])
        if column is None:
            ratio = fuzz.ratio(self.wanted, columns[-1])
            column = self._columns[columns[-1]] = (0.9 * ratio, self._common(columns[-1], ratio))
        return columns, columns[-1], *column

    def _common(self, text: str, ratio: float) -> int:
        """The length of the longest common subsequence of the label and a text, read back from their ratio (200 x
        that length / both lengths)."""
        return round(ratio * (self._length + len(text)) / 200)

    def _row(self, name: str, head: str = "") -> tuple[float, int]:
        """How well the label names a row label (normalised; `head`: its first line), and how many characters the
        two share in order."""
        score = fuzz.ratio(self.wanted, name)
        common = self._common(name, score)
        bare = _without_total(name)
        if bare != name:  # most labels end in no total suffix: their ratio is the one above
            score = max(score, fuzz.ratio(self.wanted, bare))
        if head:
            score = max(score, HEADED * fuzz.ratio(self.wanted, head))
        if self.reordered:
            score = max(score, fuzz.ratio(self.reordered, name))
        return score, common

    def _part_ratios(self, term: str) -> list[float]:
        ratios = self._parts.get(term)
        if ratios is None:
            ratios = self._parts[term] = [fuzz.ratio(part, term) for part in self.parts]
        return ratios


def _hit_rows(hits: list[Hit]) -> dict[tuple[str, str], tuple[Chunk, float]]:
    """The table rows the hits are, (table id, row) -> (chunk, its score relative to the best hit), best first."""
    top = max(h.score for h in hits) or 1.0
    rows: dict[tuple[str, str], tuple[Chunk, float]] = {}
    for hit in hits:
        place = _place(hit.chunk.cell_id)
        # The rows a merged label spans each have a chunk under the label cell's id: the next one is the next row.
        while place is not None and place in rows and hit.chunk.text != rows[place][0].text:
            place = (place[0], str(int(place[1]) + 1))
        if place is not None and place not in rows:
            rows[place] = (hit.chunk, hit.score / top)
    return rows


class _InSources(dict[str, bool]):
    """Whether a document is one of the question's sources (an id or a prefix of ids), by document id, each id
    told once."""

    def __init__(self, sources: tuple[str, ...]):
        super().__init__()
        self.sources = sources

    def __missing__(self, doc_id: str) -> bool:
        inside = self[doc_id] = any(doc_id.startswith(s) or s in doc_id for s in self.sources)
        return inside


def _split_spanned_labels(cells: list[_Cell]) -> None:
    """A row label of two lines spanning two rows names each row by one line: the first row by its first line, the
    next by its parenthesised second line ("株主総利回り (比較指標：配当込みTOPIX)": the company's return, then the
    index's). The table reader repeats a merged label over the rows it spans, so two consecutive rows of one table
    with the same two-line label are such a pair. Each cell is named by its row's label as stored until then."""
    two_line = [(cell, lines) for cell in cells if (lines := _two_lines(cell.named)) is not None]
    if not two_line:
        return  # most questions: no candidate row has a second line
    # the rows of each table named by one of those labels (most cells are named by none: passed over by name)
    names = {cell.named for cell, _ in two_line}
    rows: dict[tuple[str, str], set[int]] = {}
    for cell in cells:
        if cell.named in names:
            rows.setdefault((cell.place[0], cell.named), set()).add(cell.row)
    for cell, (head, second) in two_line:
        spanned = sorted(rows[(cell.place[0], cell.named)])
        if len(spanned) != 2 or spanned[1] != spanned[0] + 1:
            continue
        cell.named = (head if cell.row == spanned[0] else second) or cell.named  # "(…)" alone names no row


@cached_per_book(maxsize=65536)
def _titled(label: str, titles: tuple[str, ...]) -> float:
    """0..1: how much of the label one of the titles prints (best alignment of the label within a title); 0 below
    MIN_TITLED, where a title shares a character or two with the label by chance."""
    best = max((_title_fit(label, t) for t in titles if t), default=0.0) / 100
    return best if best >= MIN_TITLED else 0.0


# a report's tables share their section titles: each is aligned once per label
@cached_per_book(maxsize=65536)
def _title_fit(label: str, title: str) -> float:
    """How much of the label the title prints (ratio points); 0 below MIN_TITLED, which lets the alignment stop
    early."""
    return fuzz.partial_ratio(label, _norm(title), score_cutoff=100 * MIN_TITLED - 1e-6)


@lru_cache(maxsize=65536)  # reads no rule file
def _two_lines(field: str) -> tuple[str, str] | None:
    """A row label's first line and its parenthesised second line, NFKC, or None for a label of one line."""
    found = _SECOND_LINE.match(unicodedata.normalize("NFKC", field))
    return (found["head"], found["second"]) if found else None


@cached_per_book(maxsize=65536)
def _head(field: str) -> str:
    """A row label's first line when a parenthesised second line qualifies it ("1株当たり配当額 (内1株当たり中間配当
    額)": 1株当たり配当額), normalised; "" for any other label."""
    lines = _two_lines(field)
    return _norm(lines[0]) if lines else ""


@cached_per_book(maxsize=65536)
def _columns(period: str) -> tuple[str, ...]:
    """The column header path of a cell ("当連結会計年度/売上高"), each header normalised."""
    return tuple(_norm(p) for p in period.split("/") if p.strip())


@lru_cache(maxsize=65536)
def _place(cell_id: str) -> tuple[str, str] | None:
    """(table id, row) of a cell id "S100IXUZ-0105010-tab89-r25c9"."""
    match = _ROW.search(cell_id or "")
    return (cell_id[: match.start()], match.group(1)) if match else None
