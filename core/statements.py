"""What a table is and whose figures it holds, read from the document (rules/statements.yaml).

>>> rules = StatementRules.load()
>>> rules.classify(("第5【経理の状況】", "(1)【連結財務諸表】", "①【連結貸借対照表】"), language="ja")
TableKind(statement='balance_sheet', scope='consolidated')
>>> rules.classify(("2【財務諸表等】", "(1)【財務諸表】", "①【貸借対照表】"), language="ja")
TableKind(statement='balance_sheet', scope='parent')
>>> rules.classify(("十七、母公司财务报表主要项目注释",), language="zh").statement
'notes'
>>> rules.period_kind("第三季度（7-9月份）"), rules.period_kind("本期发生额")
('quarter', '')

The innermost title that names a kind decides the kind, and the innermost that names
a scope decides the scope; the table's first rows count only when no title names a
kind (a statement printed with its name in its first row). A primary statement whose
titles name no scope is the parent company's where the consolidated statements always
say so (Japanese: 連結), else the scope stays unknown ("").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from core.dates import date_digits
from core.folding import nfkc
from core.language import LANGUAGES
from core.numerals import cjk_number
from core.rulebook import active, cached_per_book
from core.rulefile import RuleFile

SCRIPTS = ("zh-Hans", "zh-Hant", "ja")  # statement and scope words are written per script
STATEMENTS = ("balance_sheet", "income_statement", "cash_flow", "equity_changes")  # the primary statements
KINDS = (*STATEMENTS, "key_figures", "notes", "mdna")
SCOPES = ("consolidated", "parent")
PERIOD_KINDS = ("ytd", "quarter", "half", "change")

_WORDS = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
_BY_LANGUAGE = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "properties": {script: _WORDS for script in SCRIPTS},
}
SCHEMA = {
    "type": "object",
    "required": ["kinds", "scopes", "periods"],
    "additionalProperties": False,
    "properties": {
        "kinds": {
            "type": "object",
            "propertyNames": {"enum": list(KINDS)},
            "additionalProperties": _BY_LANGUAGE,
        },
        "scopes": {
            "type": "object",
            "propertyNames": {"enum": list(SCOPES)},
            "additionalProperties": _BY_LANGUAGE,
        },
        "parent_when_bare": {"type": "array", "items": {"enum": list(LANGUAGES)}},
        "periods": {
            "type": "object",
            "propertyNames": {"enum": list(PERIOD_KINDS)},
            "additionalProperties": _WORDS,
        },
        "asked_parent": _WORDS,
        "period_end": _WORDS,
        "search_titles": {
            "type": "object",
            "propertyNames": {"enum": list(STATEMENTS)},
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "properties": {language: _WORDS for language in LANGUAGES},
            },
        },
    },
}


@dataclass(frozen=True)
class TableKind:
    """A table's kind (one of KINDS, or "other") and scope (one of SCOPES, or "" when unknown)."""

    statement: str = "other"
    scope: str = ""


@dataclass(frozen=True)
class StatementRules:
    """rules/statements.yaml compiled: one alternation per kind, scope and period kind."""

    kinds: tuple[tuple[str, re.Pattern], ...]
    scopes: tuple[tuple[str, re.Pattern], ...]
    periods: tuple[tuple[str, re.Pattern], ...]
    parent_when_bare: frozenset[str]
    search_titles: dict[str, dict[str, tuple[str, ...]]]  # statement -> question language -> titles
    asked_parent: tuple[str, ...]  # words of a question asking for the parent company's figures
    # the quarter (group q) or the month (group m) a column's period ends in
    period_end: tuple[re.Pattern, ...] = ()

    @classmethod
    def load(cls, path: Path | None = None) -> StatementRules:
        """Read and validate the file (InputError "file:line: …" when it is wrong, a bad regex too)."""
        rules = RuleFile.load(path or active().rules_dir / "statements.yaml", SCHEMA)
        data = rules.data

        def compiled(section: str, words: list[str], *where) -> re.Pattern:
            parts = [w[3:] if w.startswith("re:") else re.escape(nfkc(w)) for w in words]
            try:
                return re.compile("|".join(parts))
            except re.error as exc:
                raise rules.error(f"bad regex in {section}: {exc}", section, *where) from None

        def by_language(section: str) -> tuple[tuple[str, re.Pattern], ...]:
            return tuple(
                (name, compiled(section, [w for script in SCRIPTS for w in words.get(script, ())], name))
                for name, words in data[section].items()
            )

        periods = tuple((name, compiled("periods", words, name)) for name, words in data["periods"].items())
        search_titles = {
            statement: {lang: tuple(titles) for lang, titles in by_lang.items()}
            for statement, by_lang in data.get("search_titles", {}).items()
        }
        asked_parent = tuple(data.get("asked_parent", ()))
        try:
            period_end = tuple(re.compile(p) for p in data.get("period_end", ()))
        except re.error as exc:
            raise rules.error(f"bad regex in period_end: {exc}", "period_end") from None
        return cls(
            by_language("kinds"),
            by_language("scopes"),
            periods,
            frozenset(data.get("parent_when_bare", ())),
            search_titles,
            asked_parent,
            period_end,
        )

    def classify(
        self,
        titles: tuple[str, ...],
        first_rows: tuple[str, ...] = (),
        language: str = "",
        headers: tuple[str, ...] = (),
    ) -> TableKind:
        """Kind and scope of a table from its titles (outermost first, the table's own title last) and first rows.

        The scope is read from the table's own title, then from the headers over its value columns (`headers`:
        a bank heads them 本集团 / 本行), then from the headings above it, nearest first."""
        inner = [nfkc(t) for t in reversed(titles) if t]
        statement = _first(self.kinds, inner) or _first(self.kinds, [nfkc(r) for r in first_rows]) or "other"
        scope = (
            _first(self.scopes, inner[:1])
            or _first(self.scopes, [nfkc(h) for h in headers])
            or _first(self.scopes, inner[1:])
            or ""
        )
        bare = not scope and language in self.parent_when_bare
        if bare and (statement in STATEMENTS or self._names_statement(inner)):
            scope = "parent"  # a bare statement, or a note about one ((損益計算書関係)), is the parent's
        return TableKind(statement, scope)

    def _names_statement(self, texts: list[str]) -> bool:
        return any(
            name in STATEMENTS and pattern.search(text) for text in texts for name, pattern in self.kinds
        )

    def period_kind(self, label: str) -> str:
        """ "ytd" (前三季, 1月1日至9月30日), "quarter" (第三季, 7月1日至9月30日), "half" or "change" for a column
        label that is not a full year's figure; "" otherwise (a full year or a point in time)."""
        text = _period_text(label)
        return next((name for name, pattern in self.periods if pattern.search(text)), "")

    def quarter_end(self, label: str) -> int:
        """The quarter (1-4) a column's period ends in (第三季, Q3, 至9月30日, 9月30日), 0 when the label does not say.

        >>> shared_statement_rules().quarter_end("111年7月1日至9月30日"), shared_statement_rules().quarter_end("本期")
        (3, 0)
        """
        text = _period_text(label)
        for pattern in self.period_end:
            m = pattern.search(text)
            if m:
                groups = m.groupdict()
                if groups.get("q"):
                    quarter = cjk_number(groups["q"]) or 0
                    return quarter if 1 <= quarter <= 4 else 0
                month = int(groups.get("m") or 0)
                return (month + 2) // 3 if month % 3 == 0 and 3 <= month <= 12 else 0
        return 0


def _period_text(label: str) -> str:
    """A column label as period patterns read it: dates in digits, and a period wrapped over two header rows
    ("111年1月1日/至3月31日") in one piece."""
    return date_digits(nfkc(label)).replace("/", "")


def _first(named: tuple[tuple[str, re.Pattern], ...], texts: list[str]) -> str:
    """The name of the first pattern (in file order) that the first matching text holds."""
    for text in texts:
        for name, pattern in named:
            if pattern.search(text):
                return name
    return ""


@cached_per_book()
def shared_statement_rules() -> StatementRules:
    """rules/statements.yaml, loaded once per process."""
    return StatementRules.load()
