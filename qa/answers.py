"""Answer wording from rules/answers.yaml: one template per kind and language.

>>> templates = AnswerTemplates.load()
>>> templates.render("lookup", "zh", company="四方科技", year=2019, field="电子信箱", value="zqb@ntsquare.com", unit="")
'四方科技2019年的电子信箱是zqb@ntsquare.com。'

A part of a template in square brackets is optional: it is left out, words
and all, when a placeholder inside it is empty ("" or None). So a negative
answer to a question without a year never reads "…年的年报" with no year:

>>> templates.render("negative_value", "zh", company="四方科技", when="", document="年报", field="营业收入")
'抱歉，四方科技年报中未找到营业收入的数据。'
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError, RuleError
from core.language import LANGUAGES, rule_language
from core.rulebook import active
from core.rulefile import RuleFile
from qa.records import Analysis

REQUIRED_KINDS = (
    "lookup",
    "lookup_text",
    "ranking",
    "formula",
    "compare_same",
    "compare_changed",
    "negative_report",
    "negative_value",
    "report_text_extractive",
    "report_text_extractive_unpaged",
    "open_no_model",
)
NEGATIVE_KINDS = ("negative_report", "negative_value")
# Negative answers are given when the question named no company or year (or it was not understood).
NEGATIVE_OPTIONAL = ("company", "when")
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")

WORD_NAMES = (
    "is",
    "sep",
    "list",
    "prev",
    "missing",
    "from_next",
    "up",
    "down",
    "vs",
    "unknown_company",
    "zero",
    "year",
    "annual_report",
    "quarterly_report",
    "half_report",
    "no_period",
    "absent",
)
_DOCUMENT_OF_PERIOD = {"quarter": "quarterly_report", "ytd": "quarterly_report", "half": "half_report"}
COMMON_NAMES = (
    "same",
    "changed",
    "joiner",
    "aside",
    "formula",
    "evidence",
    "statistics_evidence",
    "unknown_measure",
    "either",
)
CHOICE_NAMES = (
    "no_article",
    "describe",
    "no_changes",
    "change",
    "law_says",
    "which_article",
    "negative",
    "positive",
    "least_like",
    "kinds",
    "list",
    "options",
)
STATISTICS_NAMES = (
    "currency",
    "high",
    "low",
    "average",
    "sum",
    "median",
    "up",
    "down",
    "none",
    "places",
    "registered",
)


def _names(names: tuple[str, ...]) -> dict:
    return {
        "type": "object",
        "required": list(names),
        "additionalProperties": False,
        "properties": {name: {"type": "string", "minLength": 1} for name in names},
    }


def _statistics_names() -> dict:
    schema = _names(STATISTICS_NAMES)
    ops = {
        "type": "object",
        "required": [">", ">=", "<", "<="],
        "additionalProperties": False,
        "properties": {op: {"type": "string", "minLength": 1} for op in (">", ">=", "<", "<=")},
    }
    return {
        **schema,
        "required": [*schema["required"], "ops"],
        "properties": {**schema["properties"], "ops": ops},
    }


ANSWERS_SCHEMA = {
    "type": "object",
    "required": ["templates", "negative_words", "words", "common", "statistics_words", "choice_words"],
    "additionalProperties": False,
    "properties": {
        "templates": {
            "type": "object",
            "required": list(REQUIRED_KINDS),
            "propertyNames": {"pattern": r"^[a-z][a-z0-9_]*$"},
            "additionalProperties": {
                "type": "object",
                "required": list(LANGUAGES),
                "additionalProperties": False,
                "properties": {lang: {"type": "string", "minLength": 1} for lang in LANGUAGES},
            },
        },
        "negative_words": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "words": {
            "type": "object",
            "required": list(LANGUAGES),
            "additionalProperties": False,
            "properties": {lang: _names(WORD_NAMES) for lang in LANGUAGES},
        },
        "common": _names(COMMON_NAMES),
        "choice_words": _names(CHOICE_NAMES),
        "statistics_words": {
            "type": "object",
            "required": list(LANGUAGES),
            "additionalProperties": False,
            "properties": {lang: _statistics_names() for lang in LANGUAGES},
        },
    },
}


@dataclass(frozen=True)
class _Piece:
    """A run of template text; `optional` ones are left out when one of their placeholders is empty."""

    text: str
    fields: frozenset[str]
    optional: bool


@dataclass(frozen=True)
class _Template:
    pieces: tuple[_Piece, ...]
    line: int

    @property
    def fields(self) -> frozenset[str]:
        return frozenset().union(*(piece.fields for piece in self.pieces))

    def render(self, values: dict) -> str:
        return "".join(
            piece.text.format(**values)
            for piece in self.pieces
            if not piece.optional or all(values[name] not in ("", None) for name in piece.fields)
        )


def answer_errors(path: Path) -> list[InputError]:
    """Every problem of an answers file: schema, malformed placeholders, negative wording."""
    return _parse(path)[1]


def _parse(path: Path) -> tuple[dict[tuple[str, str], _Template], list[InputError], RuleFile]:
    rules = RuleFile.load(path, ANSWERS_SCHEMA)
    templates, errors = {}, []
    negative_words = rules.data["negative_words"]
    for kind, by_lang in rules.data["templates"].items():
        for lang, text in by_lang.items():
            at = ("templates", kind, lang)
            try:
                pieces = _pieces(text)
            except ValueError as exc:
                errors.append(rules.error(f"template {kind}/{lang}: {exc}", *at))
                continue
            if kind in NEGATIVE_KINDS:
                bare = sorted(
                    name
                    for piece in pieces
                    if not piece.optional
                    for name in piece.fields & set(NEGATIVE_OPTIONAL)
                )
                if bare:
                    errors.append(
                        rules.error(
                            f"template {kind}/{lang}: {', '.join('{' + n + '}' for n in bare)} can be "
                            f"empty in a negative answer: put each, with its words, in [...]",
                            *at,
                        )
                    )
            if kind in NEGATIVE_KINDS and lang == "zh" and not any(w in text for w in negative_words):
                errors.append(
                    rules.error(f"template {kind}/zh must contain one of {' '.join(negative_words)}", *at)
                )
            templates[(kind, lang)] = _Template(pieces, rules.line(*at))
    return templates, errors, rules


def _pieces(text: str) -> tuple[_Piece, ...]:
    """`text` cut into plain and [optional] pieces; ValueError for malformed placeholders or brackets."""
    pieces, at = [], 0
    for match in _OPTIONAL.finditer(text):
        pieces.append(_piece(text[at : match.start()], optional=False))
        pieces.append(_piece(match.group(1), optional=True))
        at = match.end()
    pieces.append(_piece(text[at:], optional=False))
    return tuple(piece for piece in pieces if piece.text)


def _piece(text: str, optional: bool) -> _Piece:
    if "[" in text or "]" in text:
        raise ValueError("square brackets must pair up, one level deep: [optional words {placeholder}]")
    names = set()
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is not None:
            if not name.isidentifier():
                raise ValueError(f"placeholder {{{name}}} must be a plain name")
            names.add(name)
            if spec and "{" in spec:
                raise ValueError("nested placeholders are not supported")
    if optional and not names:
        raise ValueError(f"optional part [{text}] has no placeholder")
    return _Piece(text, frozenset(names), optional)


class AnswerTemplates:
    """Templates by (kind, language), rendered with str.format.

    `render` raises InputError naming the template's file:line when a
    placeholder has no value, and when the kind or language is unknown; an
    empty value leaves out the [optional] part that holds it.
    """

    def __init__(
        self,
        templates: dict[tuple[str, str], _Template],
        path: Path,
        words: dict[str, dict[str, str]],
        common: dict[str, str],
        statistics_words: dict[str, dict],
        choice_words: dict[str, str],
    ):
        self._templates = templates
        self.path = path
        self.words = words  # language -> joining words (WORD_NAMES)
        self.common = common  # words that are the same in every language (COMMON_NAMES)
        self.statistics_words = (
            statistics_words  # language -> wording over many companies (STATISTICS_NAMES, ops)
        )
        self.choice_words = choice_words  # wording of multiple-choice answers (CHOICE_NAMES)

    @classmethod
    def load(cls, path: Path | None = None) -> AnswerTemplates:
        path = Path(path or active().rules_dir / "answers.yaml")
        templates, errors, rules = _parse(path)
        if errors:
            raise errors[0]
        return cls(
            templates,
            path,
            rules.data["words"],
            rules.data["common"],
            rules.data["statistics_words"],
            rules.data["choice_words"],
        )

    @property
    def kinds(self) -> list[str]:
        return sorted({kind for kind, _ in self._templates})

    def placeholders(self, kind: str, lang: str = "zh") -> frozenset[str]:
        return self._get(kind, lang).fields

    def render(self, kind: str, lang: str = "zh", **values) -> str:
        """The template of this kind in this language ("zh" or "ja") filled with `values`."""
        template = self._get(kind, lang)
        missing = sorted(template.fields - values.keys())
        if missing:
            raise RuleError(
                f"template {kind}/{lang} needs {', '.join('{' + m + '}' for m in missing)}, "
                f"given {', '.join(sorted(values)) or 'nothing'}",
                str(self.path),
                template.line,
            )
        return template.render(values)

    def negative(self, kind: str, analysis: Analysis, company: str, years, **values) -> str:
        """A negative template (NEGATIVE_KINDS) naming the document by the period asked and the period itself:
        2022年第3季的财务报告, 2019年的年报; `years` a year, several (listed) or none.

        >>> from qa.records import Question
        >>> asked = Analysis(Question("1", "聯發科2022年第3季的營業外收入"), "lookup", "t", period="quarter",
        ...                  period_written="第3季")
        >>> AnswerTemplates.load().negative("negative_value", asked, company="聯發科", years=[2022], field="營業外收入")
        '抱歉，聯發科2022年第3季的财务报告中未找到營業外收入的数据。'
        """
        lang = rule_language(analysis.language)
        words = self.words[lang]
        listed = words["list"].join(
            str(y) for y in (years if isinstance(years, (list, tuple)) else [years]) if y
        )
        when = (words["year"].format(year=listed) if listed else "") + analysis.period_written
        document = words[_DOCUMENT_OF_PERIOD.get(analysis.period, "annual_report")]
        return self.render(kind, lang, company=company, when=when, document=document, **values)

    def _get(self, kind: str, lang: str) -> _Template:
        template = self._templates.get((kind, lang))
        if template is None:
            if not any(k == kind for k, _ in self._templates):
                raise RuleError(
                    f"no answer template {kind!r}; known: {', '.join(self.kinds)}", str(self.path)
                )
            raise RuleError(
                f"no {lang!r} text for answer template {kind!r}; languages: {', '.join(LANGUAGES)}",
                str(self.path),
            )
        return template
