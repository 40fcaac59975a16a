"""Documents ranked with the question's companies and period against each document's identity.

A question that names companies (聯電, 台達電, 華碩與鴻海) and a period (2023年第1季) is about
documents of those companies and that period. Each document's identity (INDEX_DIR/identities.json,
core/identity.py) gives its company, year and quarter with a confidence. Identity only demotes: a
document about another company or period has its keyword score multiplied by 1 - confidence x penalty;
among the rest (agreeing, or not knowing) content decides. Agreement raised the score too once
(a boost), and then an excerpt that does not print the company's name lost to the same report's excerpts
about other topics that do; a boost can still be set, for corpora where identity is all there is.

>>> matcher = IdentityMatcher(IdentityBook.load(settings.identities_path))
>>> matcher.factor("finance/162", analysis)
(1.0, 'company 聯華電子股份有限公司 agrees (0.9); period 2023Q1 agrees (0.9)')
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from core.errors import InputError
from core.identity import IdentityBook, core_name
from qa.records import Analysis


@dataclass(frozen=True)
class IdentityWeights:
    """How much agreement and disagreement of company and period move a document's score."""

    company_boost: float = 0.0
    company_penalty: float = 0.6
    period_boost: float = 0.0
    period_penalty: float = 0.6

    def __post_init__(self):
        for name in ("company_boost", "company_penalty", "period_boost", "period_penalty"):
            value = getattr(self, name)
            if value < 0 or (name.endswith("penalty") and value >= 1):
                raise InputError(f"{name} must be >= 0 (a penalty < 1), got {value}")


class IdentityMatcher:
    """Score factors of documents for an analysed question."""

    def __init__(self, book: IdentityBook, weights: IdentityWeights = IdentityWeights()):
        if not isinstance(weights, IdentityWeights):
            raise TypeError(f"IdentityMatcher needs IdentityWeights, got {type(weights).__name__}")
        self.book = book
        self.weights = weights

    def __bool__(self) -> bool:
        return bool(self.book.documents)

    def factor(
        self, doc_id: str, analysis: Analysis, companies: bool = True, period: bool = True
    ) -> tuple[float, str]:
        """The factor for one document and why ("" when the question or the document says nothing)."""
        row = self.book.get(doc_id)
        if not row:
            return 1.0, ""
        findings = row.get("findings", {})
        factor, notes = 1.0, []
        wanted = {_key(c.name) for c in analysis.companies}
        if companies and wanted and row.get("company"):
            confidence = findings.get("company", {}).get("confidence", 1.0)
            agrees = _key(row["company"]) in wanted
            factor *= self._apply(
                agrees, confidence, self.weights.company_boost, self.weights.company_penalty
            )
            notes.append(f"company {row['company']} {'agrees' if agrees else 'differs'} ({confidence})")
        if period and analysis.years and row.get("year"):
            confidence = findings.get("period", {}).get("confidence", 1.0)
            agrees = row["year"] in analysis.years and (
                not analysis.quarter or not row.get("quarter") or row["quarter"] == analysis.quarter
            )
            factor *= self._apply(agrees, confidence, self.weights.period_boost, self.weights.period_penalty)
            notes.append(
                f"period {row.get('period') or row['year']} {'agrees' if agrees else 'differs'} ({confidence})"
            )
        return factor, "; ".join(notes)

    @staticmethod
    def _apply(agrees: bool, confidence: float, boost: float, penalty: float) -> float:
        return 1 + confidence * boost if agrees else 1 - confidence * penalty


def _key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).replace(" ", "")
    return core_name(folded) or folded
