"""The question classifier: ordered regex rules from rules/question_types.yaml.

Each rule names the type it assigns, regexes (any / all / none) tried on the
question, and the entities it requires (or forbids) among those extraction
found. Rules are tried by priority (then file order); the first that fits
decides, and its id goes into the trace.

>>> classifier = QuestionClassifier.load()
>>> classifier.classify("2019年四方科技的电子信箱是什么?", Entities(company=True, years=1, fields=1)).id
'lookup_field'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError, RuleError
from core.patterns import backtracking_risk
from core.rulebook import active
from core.rulefile import RuleFile
from qa.records import ROUTES, QuestionType

ENTITIES = (
    "company",
    "companies",
    "year",
    "years",
    "field",
    "fields",
    "formula",
    "growth",
    "quoted",
    "sources",
    "ranking",
    "statistics",
)

# What a rule may say the answer's value is: "difference" (compare_years: the later year's value minus the earlier's).
ASKS = ("difference",)
_PATTERN_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}}
_ROUTE = {"enum": list(ROUTES)}
QUESTION_TYPES_SCHEMA = {
    "type": "object",
    "required": ["types", "rules"],
    "additionalProperties": False,
    "properties": {
        "types": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": r"^[a-z][a-z0-9_]*$"},
            "additionalProperties": {
                "type": "object",
                "required": ["route"],
                "additionalProperties": False,
                "properties": {
                    "route": _ROUTE,
                    "across_companies": _ROUTE,
                    "description": {"type": "string"},
                },
            },
        },
        "rules": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["id", "type"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^[a-z][a-z0-9_]*$"},
                    "type": {"type": "string"},  # one of `types` (checked with the rule's line)
                    "priority": {"type": "integer"},
                    "description": {"type": "string"},
                    "patterns": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {"any": _PATTERN_LIST, "all": _PATTERN_LIST, "none": _PATTERN_LIST},
                    },
                    "requires": {"type": "array", "items": {"enum": list(ENTITIES)}, "uniqueItems": True},
                    "absent": {"type": "array", "items": {"enum": list(ENTITIES)}, "uniqueItems": True},
                    "asks": {"enum": list(ASKS)},
                },
            },
        },
        "boilerplate": {"type": "array", "items": {"type": "string", "minLength": 1}},
    },
}


@dataclass(frozen=True)
class Entities:
    """What extraction found, as the rules see it."""

    company: bool = False
    companies: int = 0  # distinct companies named
    years: int = 0
    fields: int = 0
    formula: bool = False
    growth: bool = False
    quoted: bool = False
    sources: bool = False
    ranking: bool = False
    statistics: bool = False  # a count, list, aggregate, threshold, place filter or multi-year condition

    def present(self) -> frozenset[str]:
        """The entity names (as rules write them) that were found."""
        found = {
            "company": self.company,
            "companies": self.companies >= 2,
            "year": self.years >= 1,
            "years": self.years >= 2,
            "field": self.fields >= 1,
            "fields": self.fields >= 2,
            "formula": self.formula,
            "growth": self.growth,
            "quoted": self.quoted,
            "sources": self.sources,
            "ranking": self.ranking,
            "statistics": self.statistics,
        }
        return frozenset(name for name, yes in found.items() if yes)


@dataclass(frozen=True)
class TypeRule:
    id: str
    type: str
    priority: int = 0
    any: re.Pattern | None = None  # the rule's `any` regexes joined into one alternation
    all: tuple[re.Pattern, ...] = ()
    none: re.Pattern | None = None  # likewise for `none`
    requires: frozenset[str] = frozenset()
    absent: frozenset[str] = frozenset()
    line: int = 0
    asks: str = ""  # what the answer's value is when not the type's usual one (ASKS)

    def fits(self, text: str, present: frozenset[str]) -> bool:
        """Whether the rule fits a question (NFKC text) with these entities present."""
        return (
            self.requires <= present
            and not (self.absent & present)
            and (self.any is None or self.any.search(text) is not None)
            and all(p.search(text) for p in self.all)
            and (self.none is None or self.none.search(text) is None)
        )


# When no rule fits (a rule file without a catch-all): the question is open.
FALLBACK_RULE = TypeRule("no_rule_matched", "open")


@dataclass(frozen=True)
class TypeRules:
    """rules/question_types.yaml read: the declared types, the rules by priority, the boilerplate phrases."""

    types: dict[str, QuestionType]
    rules: list[TypeRule]
    boilerplate: list[str]


def load_type_rules(path: Path | None = None) -> tuple[TypeRules, list[InputError]]:
    """Parse rules/question_types.yaml, with every error found (file:line)."""
    rules_file = RuleFile.load(path or active().rules_dir / "question_types.yaml", QUESTION_TYPES_SCHEMA)
    types = {
        name: QuestionType(name, item["route"], item.get("across_companies", ""), item.get("description", ""))
        for name, item in rules_file.data["types"].items()
    }
    rules, errors, seen = [], [], {}
    for i, item in enumerate(rules_file.data["rules"]):
        misplaced = _misplaced(rules_file, i, item, types, seen)
        if misplaced is not None:
            errors.append(misplaced)
            continue
        seen[item["id"]] = rules_file.line("rules", i, "id")
        compiled = _compiled_patterns(rules_file, i, item, errors)
        rules.append(
            TypeRule(
                item["id"],
                item["type"],
                item.get("priority", 0),
                _joined(compiled["any"]),
                tuple(compiled["all"]),
                _joined(compiled["none"]),
                frozenset(item.get("requires", ())),
                frozenset(item.get("absent", ())),
                rules_file.line("rules", i),
                item.get("asks", ""),
            )
        )
    order = {rule.id: n for n, rule in enumerate(rules)}
    rules.sort(key=lambda r: (-r.priority, order[r.id]))
    if FALLBACK_RULE.type not in types:
        errors.append(
            rules_file.error(
                f"`types` must declare {FALLBACK_RULE.type!r}: a question no rule fits has that type", "types"
            )
        )
    return TypeRules(types, rules, list(rules_file.data.get("boilerplate", ()))), errors


def _misplaced(
    rules_file: RuleFile, i: int, item: dict, types: dict[str, QuestionType], seen: dict[str, int]
) -> InputError | None:
    """Why rule `i` cannot be used: a type `types` does not declare, or an id used before."""
    if item["type"] not in types:
        return rules_file.error(
            f"rule {item['id']} has type {item['type']!r}, which `types` does not declare ({', '.join(types)})",
            "rules",
            i,
            "type",
        )
    if item["id"] in seen:
        return rules_file.error(
            f"duplicate rule id {item['id']!r} (first at line {seen[item['id']]})", "rules", i, "id"
        )
    return None


def _compiled_patterns(rules_file: RuleFile, i: int, item: dict, errors: list[InputError]) -> dict[str, list]:
    """Rule `i`'s `any`, `all` and `none` patterns compiled. A pattern that is no regex is left out; it, and
    one that can backtrack without end, add their file:line error to `errors`."""
    compiled: dict[str, list[re.Pattern]] = {}
    for kind in ("any", "all", "none"):
        compiled[kind] = []
        for j, pattern in enumerate(item.get("patterns", {}).get(kind, [])):
            try:
                compiled[kind].append(re.compile(pattern, re.IGNORECASE))
            except re.error as exc:
                errors.append(
                    rules_file.error(
                        f"bad regex {pattern!r} in rule {item['id']}: {exc}", "rules", i, "patterns", kind, j
                    )
                )
                continue
            nested = backtracking_risk(pattern)
            if nested:  # `re` cannot be interrupted: such a pattern can hang every run on one question
                errors.append(
                    rules_file.error(
                        f"regex {pattern!r} in rule {item['id']} can backtrack without end: {nested}; rewrite it",
                        "rules",
                        i,
                        "patterns",
                        kind,
                        j,
                    )
                )
    return compiled


def _joined(patterns: list[re.Pattern]) -> re.Pattern | None:
    """One regex matching where any of these does (each was compiled alone first, to report errors)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), re.IGNORECASE)


class QuestionClassifier:
    """Assigns a question type by the first fitting rule.

    >>> QuestionClassifier.load().classify("什么是存货周转率？", Entities(fields=0)).type
    'open'
    """

    def __init__(self, rules: TypeRules):
        if not rules.rules:
            raise RuleError("no question-type rules")
        self.types = rules.types
        self.rules = rules.rules
        self.boilerplate = list(rules.boilerplate)

    @classmethod
    def load(cls, path: Path | None = None) -> QuestionClassifier:
        rules, errors = load_type_rules(path)
        if errors:
            raise errors[0]
        return cls(rules)

    def classify(self, text: str, entities: Entities) -> TypeRule:
        """The first rule (by priority, then file order) that fits; FALLBACK_RULE when none does."""
        text = unicodedata.normalize("NFKC", text)
        present = entities.present()
        for rule in self.rules:
            if rule.fits(text, present):
                return rule
        return FALLBACK_RULE
