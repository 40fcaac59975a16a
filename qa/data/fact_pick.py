"""Which of several candidate facts answers a field-year question: by what each fact is, not where it sits.

Facts carry their table's statement kind and scope and their column's period kind
(core/statements.py). The order, best first:

1. the year's own report before another report's previous-year column;
2. scope: consolidated (合并 / 連結) unless the question asks for the parent company
   (母公司 / 個別 / 提出会社), then the parent's; a table of unknown scope in between;
3. statement: the statement the field stands in (fields.yaml `statement`: 净利润 in the income statement,
   not the 净利润 row of the changes in equity), then the other primary statements, then key figures,
   then notes, MD&A and other tables;
4. period: a full year or a year end before a quarter, a half year or a change column;
5. then the store's own order (name order, precision, page: search.sqlite_facts.PREFERENCE).

>>> ranked = rank_facts(rows, parent=False, home={"营业收入": "income_statement"})
>>> explain(ranked[0])
'consolidated income_statement, own report (营业收入 本期发生额 p54)'
"""

from __future__ import annotations

from dataclasses import dataclass

from core.statements import STATEMENTS, shared_statement_rules
from qa.records import Analysis

_STATEMENT_RANK = {**{kind: 1 for kind in STATEMENTS}, "key_figures": 2}
_SCOPE_RANK = {"consolidated": 0, "": 1, "parent": 2}


@dataclass(frozen=True)
class Asked:
    """What a question asks of a fact besides its field and year: whose figures, and of which period."""

    parent: bool = False  # the parent company's own figures (母公司 / 個別)
    period: str = ""  # "" a full year (or a year end), "quarter", "ytd" (前三季) or "half" (core.years)
    quarter: int = 0  # the quarter the period asked ends in (前三季 and 第三季: 3)

    @classmethod
    def of(cls, analysis: Analysis) -> Asked:
        return cls(asks_parent(analysis.question.text), analysis.period, analysis.quarter)


def fits_period(row: dict, asked: Asked) -> bool:
    """Whether a fact is of the period asked: its column's kind (core/statements.py) is the kind asked and
    ends in the quarter asked; a balance sheet's year-end-like column (9月30日) is the point in time at the end
    of the quarter asked. A question naming no quarter takes full years and year ends, never a quarter's column.

    >>> fits_period({"period_kind": "quarter", "period": "7月1日至9月30日"}, Asked(period="quarter", quarter=3))
    True
    >>> fits_period({"period_kind": "ytd", "period": "1月1日至9月30日"}, Asked(period="quarter", quarter=3))
    False
    """
    kind = row.get("period_kind") or ""
    if not asked.period:
        return kind in ("", "change")
    ends = shared_statement_rules().quarter_end(row.get("period") or "")
    if kind == asked.period:
        return ends == asked.quarter or (asked.period == "half" and not ends)
    return not kind and row.get("statement") == "balance_sheet" and ends == asked.quarter


def asks_parent(text: str) -> bool:
    """The question asks for the parent company's own figures (母公司 / 個別 / 提出会社)."""
    return any(word in text for word in shared_statement_rules().asked_parent)  # rules/statements.yaml


def preference(row: dict, parent: bool, home: str = "") -> tuple:
    """Sort key of a candidate fact (lower is better); `home`: the statement its field stands in.
    See the module docstring."""
    scope = _SCOPE_RANK.get(row.get("scope") or "", 1)
    statement = row.get("statement") or ""
    return (
        row["report_year"] != row["year"],
        2 - scope if parent else scope,
        0 if home and statement == home else _STATEMENT_RANK.get(statement, 3),
        bool(row.get("period_kind")),
    )


def rank_facts(rows: list[dict], parent: bool, home: dict[str, str] | None = None) -> list[dict]:
    """The candidates best first (a stable sort: equal facts keep the store's order); `home` maps a row's
    field to the statement that field stands in."""
    home = home or {}
    return sorted(rows, key=lambda row: preference(row, parent, home.get(row["field"], "")))


def explain(row: dict) -> str:
    """One line saying what a candidate is and where it is from, for the answer's trace."""
    what = " ".join(
        p
        for p in (
            row.get("scope") or "scope unknown",
            row.get("statement") or "not a table",
            row.get("period_kind") or "",
        )
        if p
    )
    where = "own report" if row["report_year"] == row["year"] else f"report of {row['report_year']}"
    page = f" p{row['page']}" if row.get("page") else ""
    return f"{what}, {where} ({row['field']} {row.get('period') or ''}{page}: {row.get('raw') or row.get('value')})"
