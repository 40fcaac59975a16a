"""Which company, period and kind of document a file is, read from any of its pages.

Many documents are excerpts: a few pages of notes with no cover, where the
company stands only in a statement title ("聯華電子股份有限公司及子公司 / 合併資產負債表")
or a running header, and the period only in a date range ("民國一一二年及一一一年一月一日至九月三十日")
or the balance dates of the columns. The rules are in rules/documents.yaml
(`identity`): company title lines, period patterns, kind words, each with a
confidence. Every page is read; each finding keeps the page and line it came
from, so the ingest report can show why.

How the period is chosen: among the findings of the highest confidence, the
latest period (a report compares its own period with the year before: the
later one is its own). Of the period-end dates (a column "112年9月30日") the
latest written at least twice counts (a maturity date far ahead is written
once), or else one that is a line of its own (a title's date), and only when it
is surer than the best range or named period.

Documents whose own pages name no company get one at the end of ingestion
(ingestion/attribution.py): from another excerpt of the same report (the
same figures in a row), or from the company register (the companies other
documents name with confidence, looked for in the text by their core name).

>>> finder = IdentityFinder(IdentityRules.load())
>>> finder.find(["聯華電子股份有限公司及子公司\\n合併資產負債表\\n民國一一二年九月三十日"]).period
'2023Q3'
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from core.language import without_spaces_in_cjk
from core.numerals import cjk_number
from core.records import DocumentMeta
from core.rulebook import active, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

KINDS = ("financial_report", "insurance_policy", "faq", "annual_report", "securities_report")
SURE_PERIOD = 0.75  # a period read this surely overrides the cover's year (not the sidecar's or file name's)
PERIOD_GROUPS = {
    "year",
    "year2",
    "end_year",
    "era",
    "era_year",
    "start_month",
    "end_month",
    "quarter",
    "half",
    "fiscal",
    "approved_month",
    "previous",
}
_COMPANY_GROUPS = {"company", "short_name", "code"}

_PATTERN = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1},
        "confidence": {"type": "number"},
        "era": {"type": "string"},
        "name": {"type": "string"},
        "top_lines": {"type": "integer"},
        "next_line": {"type": "string", "minLength": 1},
        "date": {"type": "boolean"},
    },
    "required": ["pattern", "confidence"],
    "additionalProperties": False,
}
IDENTITY_SCHEMA = {
    "type": "object",
    "properties": {
        "pages": {"type": "integer", "minimum": 1},
        "register_confidence": {"type": "number"},
        "figures_confidence": {"type": "number"},
        "company": {"type": "array", "items": _PATTERN},
        "period": {"type": "array", "items": _PATTERN},
        "kinds": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
    },
    "required": ["company", "period", "kinds"],
    "additionalProperties": False,
}
SCHEMA = {"type": "object", "properties": {"identity": IDENTITY_SCHEMA}, "required": ["identity"]}

_NUMBERS = per_book(lambda: vocabulary("numbers"))  # rules/numbers.yaml
_DATES = per_book(lambda: _NUMBERS["identity_dates"])
_DATE_NUMERAL = pattern_per_book(lambda: re.compile(_DATES["date_numeral"]))
_ORDINAL = pattern_per_book(lambda: re.compile(_DATES["quarter"]))
_SPACE_IN_DATE = pattern_per_book(
    lambda: re.compile(_DATES["space_in_date"])
)  # also a line break inside a date range
# Legal-form endings; without them a name is its core name (山东阳谷华泰化工股份有限公司 -> 山东阳谷华泰化工).
LEGAL_SUFFIXES = per_book(lambda: tuple(vocabulary("companies")["legal_suffixes"]))  # rules/companies.yaml


@dataclass(frozen=True)
class Finding:
    """One identity value, how sure the rules are, and where it was read."""

    value: str | int
    confidence: float
    source: str  # "p3: 聯華電子股份有限公司及子公司" (page and line), or "register: ..."


@dataclass(frozen=True)
class Identity:
    """What a document is about. Empty values are unknown (never a guess)."""

    company: str = ""
    short_name: str = ""
    code: str = ""
    year: int | None = None  # the year the period ends in
    quarter: int = 0  # the quarter the period ends in (1-4); 0 unknown
    period: str = ""  # "2023Q3", "2023H1", "2023FY", or "2023" when only the year is known
    kind: str = ""  # one of KINDS, "" unknown
    findings: dict[str, Finding] = field(default_factory=dict)  # per field, the evidence

    def report(self) -> dict:
        """For the ingest report: each field's value, confidence and source line."""
        return {name: asdict(f) for name, f in self.findings.items()}


@dataclass(frozen=True)
class _Rule:
    regex: re.Pattern
    confidence: float
    era: str = ""
    top_lines: int = 0  # > 0: only within the first `top_lines` lines of a page
    next_line: re.Pattern | None = None  # only when the line after matches this (a title's second line)
    date: bool = False  # a period-end date (column head, balance date), chosen as the module docstring says

    def applies(self, lines: list[str], position: int) -> bool:
        if self.top_lines and position >= self.top_lines:
            return False
        following = lines[position + 1] if position + 1 < len(lines) else ""
        return self.next_line is None or bool(following and self.next_line.search(following))


@dataclass(frozen=True)
class IdentityRules:
    """The compiled `identity` section of rules/documents.yaml."""

    company: tuple[_Rule, ...]
    period: tuple[_Rule, ...]
    kinds: dict[str, tuple[str, ...]]
    eras: dict[str, int]
    pages: int = 400
    register_confidence: float = 0.5
    figures_confidence: float = 0.6

    @classmethod
    def load(cls, path: Path | None = None) -> IdentityRules:
        rule_file = RuleFile.load(path or active().rules_dir / "documents.yaml", SCHEMA)
        data = rule_file.data
        section = data["identity"]
        eras = dict(data.get("eras") or {})

        def compile_list(name: str, allowed: set[str]) -> tuple[_Rule, ...]:
            out = []
            for i, item in enumerate(section[name]):
                try:
                    regex = re.compile(item["pattern"])
                    next_line = re.compile(item["next_line"]) if item.get("next_line") else None
                except re.error as exc:
                    raise rule_file.error(f"bad regex: {exc}", "identity", name, i, "pattern") from None
                unknown = set(regex.groupindex) - allowed
                if unknown:
                    raise rule_file.error(
                        f"unknown group(s) {', '.join(sorted(unknown))}; allowed: "
                        f"{', '.join(sorted(allowed))}",
                        "identity",
                        name,
                        i,
                        "pattern",
                    )
                if not 0 < item["confidence"] <= 1:
                    raise rule_file.error("confidence must be in (0, 1]", "identity", name, i, "confidence")
                era = item.get("era", "")
                if era and era not in eras:
                    raise rule_file.error(f"era {era!r} is not listed under eras", "identity", name, i, "era")
                out.append(
                    _Rule(
                        regex,
                        float(item["confidence"]),
                        era,
                        int(item.get("top_lines", 0)),
                        date=bool(item.get("date", False)),
                        next_line=next_line,
                    )
                )
            return tuple(out)

        kinds = {k: tuple(v) for k, v in section["kinds"].items()}
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise rule_file.error(
                f"unknown kind(s) {', '.join(sorted(unknown))}; known: {', '.join(KINDS)}",
                "identity",
                "kinds",
            )
        return cls(
            compile_list("company", _COMPANY_GROUPS),
            compile_list("period", PERIOD_GROUPS),
            kinds,
            eras,
            int(section.get("pages", 400)),
            float(section.get("register_confidence", 0.5)),
            float(section.get("figures_confidence", 0.6)),
        )


def normalise_dates(text: str) -> str:
    """NFKC, no spaces inside CJK runs or dates, Chinese-numeral dates and quarters in digits.

    >>> normalise_dates("民國 一一二 年 九 月 三十 日 第一季")
    '民國112年9月30日第1季'
    """
    text = unicodedata.normalize("NFKC", text)
    text = without_spaces_in_cjk(text)
    text = _DATE_NUMERAL.sub(
        lambda m: str(cjk_number(m.group(1)) if cjk_number(m.group(1)) is not None else m.group(1)), text
    )
    text = _ORDINAL.sub(lambda m: f"{_DATES['ordinal']}{cjk_number(m.group(1))}", text)
    return _SPACE_IN_DATE.sub("", text)


@dataclass(frozen=True)
class _Period:
    year: int
    quarter: int
    label: str


@dataclass
class _Clues:
    """What the rules read on a document's pages, before the best of each is chosen."""

    companies: dict[str, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    codes: dict[str, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    short_names: dict[str, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    periods: list[tuple[float, _Period, str]] = field(default_factory=list)
    dates: list[tuple[float, _Period, str, bool]] = field(default_factory=list)  # and: is the date its line?
    kind_words: Counter[str] = field(default_factory=Counter)

    def of(self, group: str) -> dict[str, list[Finding]]:
        """The findings of a company rule's named group (company, code, short_name)."""
        return {"company": self.companies, "code": self.codes, "short_name": self.short_names}[group]


class IdentityFinder:
    """Reads a document's identity from its pages' text."""

    def __init__(self, rules: IdentityRules):
        self.rules = rules

    def find(self, pages: list[str]) -> Identity:
        clues = _Clues()
        for number, page in enumerate(pages[: self.rules.pages], start=1):
            page = normalise_dates(page)
            lines = [line.strip() for line in page.splitlines() if line.strip()]
            for position, line in enumerate(lines):
                where = f"p{number}: {line[:80]}"
                self._read_company(clues, lines, position, where)
                self._read_period(clues, lines, position, where)
            for kind, words in self.rules.kinds.items():
                clues.kind_words.update(kind for word in words if word in page)
        return self._identity(clues)

    def _read_company(self, clues: _Clues, lines: list[str], position: int, where: str) -> None:
        """The company, code and short name the company rules read on one line."""
        for rule in self.rules.company:
            if not rule.applies(lines, position):
                continue
            for match in rule.regex.finditer(lines[position]):
                for group, value in match.groupdict().items():
                    if group in _COMPANY_GROUPS and value and value.strip():
                        clues.of(group)[value.strip()].append(Finding(value.strip(), rule.confidence, where))

    def _read_period(self, clues: _Clues, lines: list[str], position: int, where: str) -> None:
        """The periods and period-end dates the period rules read on one line."""
        line = lines[position]
        for rule in self.rules.period:
            if not rule.applies(lines, position):
                continue
            for match in rule.regex.finditer(line):
                period = self._period(match, rule)
                if period is None:
                    continue
                if rule.date:
                    clues.dates.append((rule.confidence, period, where, match.group() == line))
                else:
                    clues.periods.append((rule.confidence, period, where))

    def _identity(self, clues: _Clues) -> Identity:
        """The best of each kind of finding, as the document's identity."""
        best = {
            "company": _best(clues.companies),
            "code": _best(clues.codes),
            "short_name": _best(clues.short_names),
        }
        findings: dict[str, Finding] = {name: found for name, found in best.items() if found}
        period = self._choose_period(clues.periods, clues.dates)
        if period:
            findings["period"] = period[1]
        kind = self._kind(clues.kind_words)
        if kind:
            findings["kind"] = kind
        chosen = period[0] if period else None
        company, code, short = best["company"], best["code"], best["short_name"]
        return Identity(
            company=str(company.value) if company else "",
            short_name=str(short.value) if short else "",
            code=str(code.value) if code else "",
            year=chosen.year if chosen else None,
            quarter=chosen.quarter if chosen else 0,
            period=chosen.label if chosen else "",
            kind=str(kind.value) if kind else "",
            findings=findings,
        )

    def _period(self, match: re.Match, rule: _Rule) -> _Period | None:
        groups = {k: v for k, v in match.groupdict().items() if v}
        year = _year_number(
            groups.get("year"), groups.get("era") or rule.era, groups.get("era_year"), self.rules.eras
        )
        second = _year_number(groups.get("year2"), groups.get("era") or rule.era, None, self.rules.eras)
        if year is None:
            return None
        if second is not None:
            year = max(year, second)
        end_year = _year_number(groups.get("end_year"), groups.get("era") or rule.era, None, self.rules.eras)
        if groups.get("previous"):  # the last annual report, referred to by an interim one of the year after
            return _Period(year + 1, 0, str(year + 1))
        if groups.get("approved_month"):  # approved or reviewed within a quarter of the period's end
            ended = (int(groups["approved_month"]) - 1) // 3
            if ended == 0:
                return _Period(year - 1, 4, f"{year - 1}FY")
            return _Period(year, ended, f"{year}Q{ended}") if ended <= 3 else None
        if groups.get("quarter"):
            quarter = int(groups["quarter"])
            return _Period(year, quarter, f"{year}Q{quarter}") if 1 <= quarter <= 4 else None
        if groups.get("half"):
            return _Period(year, 2, f"{year}H1")
        end = int(groups["end_month"]) if groups.get("end_month") else 0
        start = int(groups["start_month"]) if groups.get("start_month") else 0
        if not 1 <= end <= 12 and not groups.get("fiscal"):
            return None
        months = (end - start) % 12 + 1 if start else 0
        if end_year is not None:
            if not 0 <= end_year - year <= 1 or (end_year > year and start <= end):
                return None  # several years (a lease term, a loan): no reporting period
            year = end_year
        elif start and end and start > end:  # 4月1日至3月31日: a period is named by the year it ends in
            year += 1
        if groups.get("fiscal") or months == 12:
            return _Period(year, 4, f"{year}FY")
        if start == 1 and end == 6:
            return _Period(year, 2, f"{year}H1")
        if end % 3:
            return None  # a quarter ends with its third month (1月1日至8月31日 is a scanned 3月31日)
        quarter = end // 3
        return _Period(year, quarter, f"{year}Q{quarter}")

    @staticmethod
    def _choose_period(
        periods: list[tuple[float, _Period, str]], dates: list[tuple[float, _Period, str, bool]]
    ) -> tuple[_Period, Finding] | None:
        candidates = []
        if periods:
            top = max(c for c, _, _ in periods)
            best = max((p for p in periods if p[0] == top), key=lambda p: (p[1].year, p[1].quarter))
            candidates.append((best[0], 1, best[1], best[2]))
        counts = Counter(p for _, p, _, _ in dates)
        # a date written once counts only as a title's own line (a column head the scan garbled, 1104*12月31日,
        # would leave last year's column as the latest; a date in running text may be any day)
        repeated = [p for p, n in counts.items() if n >= 2] or [p for _, p, _, whole in dates if whole]
        if repeated:
            chosen = max(repeated, key=lambda p: (p.year, p.quarter))
            confidence, where = next((c, w) for c, p, w, _ in dates if p == chosen)
            candidates.append(
                (round(confidence if counts[chosen] >= 2 else confidence * 2 / 3, 2), 0, chosen, where)
            )
        if not candidates:
            return None
        confidence, _, period, where = max(candidates, key=lambda c: (c[0], c[1]))
        return period, Finding(period.label, confidence, where)

    def _kind(self, words: Counter[str]) -> Finding | None:
        if not words:
            return None
        (kind, n), *rest = words.most_common()
        if rest and rest[0][1] == n:
            return None
        wanted = len(self.rules.kinds[kind])
        return Finding(kind, round(min(1.0, n / max(1, min(wanted, 3))), 2), f"{n} of its words")


def _best(found: dict[str, list[Finding]]) -> Finding | None:
    """The value with the highest total confidence; its most confident finding is the source."""
    if not found:
        return None
    value = max(found, key=lambda v: (sum(f.confidence for f in found[v]), -len(v)))
    return max(found[value], key=lambda f: f.confidence)


def _year_number(written: str | None, era: str, era_year: str | None, eras: dict[str, int]) -> int | None:
    if era_year:
        number = cjk_number(era_year)
        return eras[era] + number if era in eras and number is not None else None
    if not written:
        return None
    number = cjk_number(written)
    if number is None:
        return None
    if not 1900 <= number <= 2100 and len(written) == 4 and written.isdigit():
        number = int(
            written[1:]
        )  # a year run into the number before it (…174,121111年): its last three digits
    if number < 200:  # a bare short year in a Chinese report counts from 民國 (rules/documents.yaml eras)
        base = eras.get(era) if era else eras.get(_NUMBERS["bare_era"])
        if base is None:
            return None
        number += base
    return number if 1900 <= number <= 2100 else None


def core_name(company: str) -> str:
    """The name without its legal form (聯華電子股份有限公司 -> 聯華電子); "" when nothing is left."""
    for suffix in LEGAL_SUFFIXES.value():
        if company.endswith(suffix):
            core = company[: -len(suffix)]
            return core if len(core) >= 2 else ""
    return ""


COVER_CONFIDENCE = {"company": 0.8, "period": 0.3}  # a cover pattern's first match (parser/metadata.py)


def findings_of(meta: DocumentMeta, identity: Identity, fixed: dict | None = None) -> dict:
    """The identity's findings, with the company and period `meta` took from elsewhere: the sidecar or
    file name (confidence 1) or the cover (COVER_CONFIDENCE), so a weak cover year moves ranking little."""
    fixed = fixed or {}
    findings = identity.report()
    for name, value, own, key in (
        ("company", meta.company, identity.company, "company"),
        ("period", meta.period, identity.period, "year"),
    ):
        if value and value != own:
            sure = key in fixed
            findings[name] = asdict(
                Finding(
                    value,
                    1.0 if sure else COVER_CONFIDENCE[name],
                    "sidecar or file name" if sure else "cover",
                )
            )
    return findings


def with_identity(meta: DocumentMeta, identity: Identity, fixed: dict | None = None) -> DocumentMeta:
    """`meta` with what it lacks filled from the identity.

    The sidecar and file name (`fixed`) come first; a period read with confidence from a date range or
    a title (at least SURE_PERIOD) comes before the cover's year, whose first-match patterns also
    catch dates in running text (an effective date 民國113年1月1日); the cover comes before the rest.
    """
    fixed = fixed or {}
    sure = (
        identity.year is not None
        and identity.findings.get("period", Finding("", 0, "")).confidence >= SURE_PERIOD
    )
    year = fixed.get("year") or (identity.year if sure else None) or meta.year or identity.year
    same_year = identity.year is not None and identity.year == year
    return replace(
        meta,
        company=meta.company or identity.company,
        short_name=meta.short_name or identity.short_name,
        code=meta.code or identity.code,
        year=year,
        quarter=meta.quarter or (identity.quarter if same_year else 0),
        period=meta.period or (identity.period if same_year else (str(year) if year else "")),
        kind=meta.kind or identity.kind,
    )


class IdentityBook:
    """Every document's identity, kept in INDEX_DIR/identities.json across incremental runs.

    Written by ingestion, read by the question-answering engine (both backends: the file sits
    beside the manifest). A row: company, short_name, code, year, quarter, period, kind and
    `findings` (per field: value, confidence, source line).
    """

    def __init__(self, path: Path, documents: dict[str, dict] | None = None):
        self.path = Path(path)
        self.documents: dict[str, dict] = documents or {}

    @classmethod
    def load(cls, path: Path) -> IdentityBook:
        import json

        path = Path(path)
        if not path.exists():
            return cls(path)
        try:
            return cls(path, json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return cls(path)  # rebuilt by the next ingest; until then every identity is unknown

    def record(self, meta: DocumentMeta, findings: dict) -> None:
        self.documents[meta.doc_id] = {
            "company": meta.company,
            "short_name": meta.short_name,
            "code": meta.code,
            "year": meta.year,
            "quarter": meta.quarter,
            "period": meta.period,
            "kind": meta.kind,
            "findings": findings,
        }

    def forget(self, doc_id: str) -> None:
        self.documents.pop(doc_id, None)

    def get(self, doc_id: str) -> dict:
        return self.documents.get(doc_id, {})

    def save(self) -> None:
        import json

        from core.manifest import atomic_write_text

        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(self.documents, ensure_ascii=False, indent=0))

    def register(self, min_confidence: float = 0.7) -> dict[str, str]:
        """Company -> core name, for the companies documents name with confidence (the ingest register)."""
        out = {}
        for row in self.documents.values():
            found = row.get("findings", {}).get("company", {})
            if row.get("company") and found.get("confidence", 1.0) >= min_confidence:
                core = core_name(row["company"])
                if core:
                    out[row["company"]] = core
        return out

    def assign(self, doc_id: str, company: str, confidence: float, source: str) -> None:
        row = self.documents[doc_id]
        row["company"] = company
        row.setdefault("findings", {})["company"] = asdict(Finding(company, confidence, source))
