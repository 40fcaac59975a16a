"""Which company a question is about: a register of names matched in one pass.

The register holds full names, short names (every one a company has used),
stock codes and derived aliases (the full name without its legal suffix),
built from the corpus's company-years and, optionally, a reports list in the
FinGLM file-name format (`date__full name__code__short name__year__年度报告`).
All names go into one `PhraseMatcher`, so matching costs about one look-up
per character of the question whatever the size of the register; when nothing matches
exactly, rapidfuzz compares company-like spans with the full names.

>>> register = CompanyRegister.from_reports_list(Path("reports_list.csv"))
>>> register.find("2019年四方科技的电子信箱是什么?").company.name
'四方科技集团股份有限公司'
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz import fuzz, process

from core.errors import InputError
from core.fields import PhraseMatcher
from core.folding import convert_all, fold, fold_with_offsets, opencc
from core.identity import core_name
from core.records import ReportYear
from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary
from qa.records import Company

# Prefixes of special-treatment share names (*ST华仪 is also asked as 华仪).
_SHORT_NAME_PREFIX = re.compile(r"^(?:\*?s?\*?st|xd|xr|dr|n|c)(?=[\u4e00-\u9fff])", re.IGNORECASE)
# A span that looks like a company name (ends in a legal form), for names the register lacks.
_WORDS = per_book(lambda: vocabulary("companies"))  # rules/companies.yaml
_COMPANY_SPAN = pattern_per_book(
    lambda: re.compile(
        r"[\u3040-\u30ff\u4e00-\u9fffa-z]{2,30}(?:" + "|".join(map(re.escape, _WORDS["span_suffixes"])) + ")"
    )
)
# Words that run into a company name in questions ("请分析湖南…", "2020年雪龙…") and are not part of it.
_SPAN_LEAD = pattern_per_book(lambda: re.compile(f"^(?:{'|'.join(map(re.escape, _WORDS['span_lead']))})*"))
_CODE = pattern_per_book(
    lambda: re.compile(rf"(?<![\d.])\d{{4,6}}(?![\d.{re.escape(_WORDS['code_not_before'])}])")
)
# Stand-ins for what a question's other parts are, so name shapes (rules/companies.yaml) can say where a name
# stands.
MARKS = {"company": "\ue000", "year": "\ue001", "field": "\ue002"}
_NAME = "[\u3400-\u9fff\uf900-\ufaffA-Za-z]{2,12}?"


def _name_shapes() -> list[re.Pattern]:
    shapes = _WORDS["name_shapes"]
    parts = {
        "{name}": f"(?:{_SPAN_LEAD.pattern[1:]})(?P<name>{_NAME})",
        "{and}": f"(?:{'|'.join(map(re.escape, shapes['conjunctions']))})",
        "{at}": f"(?:{'|'.join(map(re.escape, shapes['at']))})",
        **{f"{{{kind}}}": mark + "+" for kind, mark in MARKS.items()},
    }
    patterns = []
    for pattern in shapes["patterns"]:
        for placeholder, regex in parts.items():
            pattern = pattern.replace(placeholder, regex)
        patterns.append(re.compile(pattern))
    return patterns


_NAME_SHAPES = per_book(_name_shapes)


def name_shaped(marked: str, beside_company: bool = False) -> list[tuple[int, int]]:
    """Spans written where a question names the company it asks about, in a question whose known companies,
    years and fields are overwritten by MARKS (same length); spans holding a word of `not_names` are left out.
    `beside_company`: only names joined to a known company (华锦股份和宁德时代), when the question has one.

    >>> marked = "\ue000" * 4 + "和宁德时代的" + "\ue002" * 4 + "分别是多少元?"
    >>> [marked[s:e] for s, e in name_shaped(marked, beside_company=True)]
    ['宁德时代']
    """
    found: dict[tuple[int, int], None] = {}
    for pattern in _NAME_SHAPES:
        if beside_company and MARKS["company"] not in pattern.pattern:
            continue
        for m in pattern.finditer(marked):
            name = m.group("name")
            if not any(word in name for word in _WORDS["not_names"]):
                found[m.span("name")] = None
    return list(found)


# A two-character abbreviation that is also a common word (中國 of 中國鋼鐵, 統一 of 統一企業) names no company:
# jieba's dictionary count of the word must stay below this.
ABBREVIATION_WORD_FREQ = 200


@dataclass(frozen=True)
class CompanyMatch:
    """The outcome of `CompanyRegister.find`."""

    company: Company | None = None
    candidates: tuple[Company, ...] = ()  # several equally good matches (company is None then)
    written: str = ""  # the name as it stands in the question
    start: int = -1  # span in the question
    end: int = -1
    how: str = "none"  # "exact" | "alias" | "code" | "abbreviation" | "fuzzy" | "unregistered" | "none"
    score: int = 0
    others: tuple[Company, ...] = ()  # further companies named elsewhere in the question


@dataclass
class _Entry:
    company: Company
    short_names: set[str] = field(default_factory=set)
    years: set[int] = field(default_factory=set)


class CompanyRegister:
    """Company names, short names and codes, matched longest first.

    >>> register = CompanyRegister.from_reports([ReportYear("丸紅株式会社", 2020, code="8002")])
    >>> register.find("丸紅株式会社の2020年時点における「負債」は？").company.name
    '丸紅株式会社'
    """

    def __init__(self, entries: Iterable[_Entry], fuzzy_threshold: int = 80):
        if not 50 <= fuzzy_threshold <= 100:
            raise InputError(f"company fuzzy_threshold must be 50..100, got {fuzzy_threshold}")
        self.fuzzy_threshold = fuzzy_threshold
        self._entries: dict[str, _Entry] = {}
        for entry in entries:
            known = self._entries.get(entry.company.name)
            if known is None:
                self._entries[entry.company.name] = entry
            else:
                known.short_names |= entry.short_names
                known.years |= entry.years
        exact: dict[str, list[str]] = {}
        derived: dict[str, list[str]] = {}
        self._codes: dict[str, list[str]] = {}
        for name, entry in self._entries.items():
            exact.setdefault(fold(name), []).append(name)
            for short in entry.short_names:
                exact.setdefault(fold(short), []).append(name)
                bare = _SHORT_NAME_PREFIX.sub("", fold(short))
                if len(bare) >= 2 and bare != fold(short):
                    derived.setdefault(bare, []).append(name)
            core = core_name(fold(name))
            if core:
                derived.setdefault(core, []).append(name)
            if entry.company.code:
                self._codes.setdefault(entry.company.code, []).append(name)
        # The same names in the other script (鴻海精密工業 / 鸿海精密工业), so either writing matches.
        for converted, names in _other_script(exact).items():
            derived.setdefault(converted, []).extend(names)
        # A derived alias never hides an exact name of another company.
        phrases = {**{k: v for k, v in derived.items() if k not in exact}, **exact}
        self._exact = set(exact)
        self._matcher: PhraseMatcher[str] = PhraseMatcher(phrases)
        # Fuzzy matching compares core names: the shared legal form (…股份有限公司) would make
        # unrelated companies look alike (南亚新材料科技 vs 湖南泰嘉新材料科技 score 86 with it, 75 without).
        self._core_names = {(core_name(fold(n)) or fold(n)): n for n in self._entries}
        self._core_of = {name: core for core, name in self._core_names.items()}
        # Abbreviations keep the core name's characters in order (聯電 of 聯華電子, 台達電 of 台達電子工業).
        self._by_first: dict[str, list[tuple[str, str]]] = {}
        for core, name in self._core_names.items():
            self._by_first.setdefault(core[0], []).append((core, name))

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def companies(self) -> list[Company]:
        return [e.company for e in self._entries.values()]

    def years_of(self, name: str) -> set[int]:
        entry = self._entries.get(name)
        return set(entry.years) if entry else set()

    # ------------------------------------------------------------------ building
    @classmethod
    def from_reports(cls, reports: Iterable[ReportYear], **settings) -> CompanyRegister:
        """From the corpus's company-years (core.records.ReportYear, or rows with those attributes)."""
        return cls(
            (_entry(r.company, r.short_name, r.code, r.year) for r in reports if r.company), **settings
        )

    @classmethod
    def from_rows(cls, rows: Iterable[dict], **settings) -> CompanyRegister:
        """From mappings with keys company, year, short_name, code (a FactStore's `reports()` rows)."""
        return cls(
            (
                _entry(
                    _text(r.get("company")), _text(r.get("short_name")), _text(r.get("code")), r.get("year")
                )
                for r in rows
                if _text(r.get("company"))
            ),
            **settings,
        )

    @classmethod
    def from_fact_store(cls, store, **settings) -> CompanyRegister:
        """From a FactStore's company-years (its `reports()` rows)."""
        return cls.from_rows(store.reports(), **settings)

    @classmethod
    def from_reports_list(cls, path: Path, **settings) -> CompanyRegister:
        """From report file names `date__full name__code__short name__year__年度报告` (one per line or CSV row)."""
        return cls(read_reports_list(path), **settings)

    def merged(self, other: CompanyRegister) -> CompanyRegister:
        """A register holding both registers' companies."""
        return CompanyRegister(
            [*self._entries.values(), *other._entries.values()], fuzzy_threshold=self.fuzzy_threshold
        )

    # ------------------------------------------------------------------ matching
    def find(
        self, text: str, years: Iterable[int] = (), reserved: Iterable[tuple[int, int]] = ()
    ) -> CompanyMatch:
        """The company the text names: longest exact name, then code, then a fuzzy full-name match.

        When one written name fits several companies, those that have a report
        for one of `years` are preferred; if several remain, they are returned
        as `candidates` (ambiguous) and `company` is None. A name with a legal
        form (…股份有限公司) that the register lacks comes back as it is written,
        with `how="unregistered"`, so answers can say that company is not covered. An abbreviation is not
        read within the `reserved` spans of the text (its field names). A fuzzy match must be unique: when
        two companies come within the threshold, the name is not in the register.
        """
        folded, offsets = fold_with_offsets(text)
        spans = [
            (m.start() + len(lead.group()), m.end())
            for m in _COMPANY_SPAN.finditer(folded)
            for lead in [_SPAN_LEAD.match(m.group())]
            if m.end() - m.start() - len(lead.group()) >= 6
        ]
        found = self._find_name(text, folded, offsets, spans, years)
        if found is None:
            found = self._find_code(text, folded, offsets, years)
        if found is None and not spans:  # a written full name is matched fuzzily, not abbreviated
            found = self._find_short_name(text, folded, offsets, reserved, years)
        return found if found is not None else self._find_fuzzy(text, folded, offsets, spans, years)

    def _find_name(
        self, text: str, folded: str, offsets: list[int], spans: list[tuple[int, int]], years: Iterable[int]
    ) -> CompanyMatch | None:
        """The longest name or alias of the register the text writes, unless it lies inside a longer
        written full name (which then names another company); the other names it writes are `others`."""
        matches = self._matcher.find(folded)
        if not matches:
            return None
        best = max(matches, key=lambda m: (m.end - m.start, -m.start))
        if any(
            s[0] <= best.start and best.end <= s[1] and s[1] - s[0] > best.end - best.start for s in spans
        ):
            return None
        names = self._narrow(best.values, years)
        others = tuple(
            dict.fromkeys(
                self._entries[n].company
                for m in matches
                if m is not best
                for n in m.values
                if n not in best.values
            )
        )
        how = "exact" if best.text in self._exact else "alias"
        return self._result(names, text, offsets, best.start, best.end, how, 100, others)

    def _find_code(
        self, text: str, folded: str, offsets: list[int], years: Iterable[int]
    ) -> CompanyMatch | None:
        """A securities code of the register the text writes (a four-digit year is no code)."""
        for m in _CODE.finditer(folded):
            code = m.group()
            if code in self._codes and not (len(code) == 4 and 1900 <= int(code) <= 2100):
                names = self._narrow(tuple(self._codes[code]), years)
                return self._result(names, text, offsets, m.start(), m.end(), "code", 100)
        return None

    def _find_short_name(
        self,
        text: str,
        folded: str,
        offsets: list[int],
        reserved: Iterable[tuple[int, int]],
        years: Iterable[int],
    ) -> CompanyMatch | None:
        """A company's abbreviation the text writes outside the `reserved` spans."""
        taken = {at for start, end in reserved for at in range(start, end)}
        abbreviated = self._find_abbreviation(
            folded, {i for i, at in enumerate(offsets[: len(folded)]) if at in taken}
        )
        if abbreviated is None:
            return None
        start, end, names = abbreviated
        # Two characters that fit several companies' names apart (新和 in 新希望六和 and 新疆众和) are a coincidence,
        # not an abbreviation; two that start them all (長榮 of 長榮海運 and 長榮航空) name the group: candidates.
        if (
            end - start > 2
            or len(names) == 1
            or all(self._core_of.get(n, "").startswith(folded[start:end]) for n in names)
        ):
            return self._result(self._narrow(names, years), text, offsets, start, end, "abbreviation", 90)
        return None

    def _find_abbreviation(self, folded: str, reserved: set[int]) -> tuple[int, int, tuple[str, ...]] | None:
        """The longest span whose characters stand in order in a core name, starting with its first
        (聯電 -> 聯華電子股份有限公司), outside the `reserved` positions; all companies it fits when several do."""
        found: dict[tuple[int, int], list[str]] = {}
        for i, char in enumerate(folded):
            if i in reserved:
                continue
            for core, name in self._by_first.get(char, ()):
                at, j = 1, i + 1
                while j < len(folded) and at < len(core):
                    at = core.find(folded[j], at)
                    if at < 0:
                        break
                    if j in reserved:
                        break
                    at, j = at + 1, j + 1
                if j - i >= 2 and (j - i >= 3 or _rare_word(folded[i:j])):
                    found.setdefault((i, j), []).append(name)
        if not found:
            return None
        (start, end), names = max(found.items(), key=lambda item: (item[0][1] - item[0][0], -item[0][0]))
        return start, end, tuple(dict.fromkeys(names))

    def _find_fuzzy(
        self, text, folded, offsets, spans: list[tuple[int, int]], years: Iterable[int]
    ) -> CompanyMatch:
        for start, end in spans:
            span = folded[start:end]
            hits = process.extract(
                core_name(span) or span,
                list(self._core_names),
                scorer=fuzz.ratio,
                processor=None,
                score_cutoff=self.fuzzy_threshold,
                limit=2,
            )
            hit = hits[0] if len(hits) == 1 else None  # two alike: which one is meant is a guess
            if hit:
                return self._result(
                    self._narrow((self._core_names[hit[0]],), years),
                    text,
                    offsets,
                    start,
                    end,
                    "fuzzy",
                    int(hit[1]),
                )
            written = text[offsets[start] : offsets[end - 1] + 1]
            return CompanyMatch(
                Company(written), (), written, offsets[start], offsets[end - 1] + 1, "unregistered", 0
            )
        return CompanyMatch()

    def _narrow(self, names: tuple[str, ...], years: Iterable[int]) -> tuple[str, ...]:
        years = set(years)
        if len(names) > 1 and years:
            having = tuple(n for n in names if self._entries[n].years & years)
            if having:
                return having
        return names

    def _result(self, names, text, offsets, start, end, how, score, others=()) -> CompanyMatch:
        """The match, with its span mapped from folded back to written text."""
        companies = tuple(self._entries[n].company for n in names)
        start, end = offsets[start], offsets[end - 1] + 1
        written = text[start:end]
        if len(companies) == 1:
            return CompanyMatch(companies[0], (), written, start, end, how, score, others)
        return CompanyMatch(None, companies, written, start, end, how, score, others)


def _other_script(phrases: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each phrase converted Simplified->Traditional and Traditional->Simplified (OpenCC), where that changes it."""
    keys = list(phrases)
    converted: dict[str, list[str]] = {}
    for config in ("s2t", "t2s"):
        for key, other in zip(keys, convert_all(config, keys)):
            if other != key:
                converted.setdefault(other, []).extend(phrases[key])
    return converted


def _text(value) -> str:
    """A cell as text: None and NaN (pandas' empty cell) become ""."""
    if value is None or value != value:
        return ""
    return str(value).strip()


def _rare_word(span: str) -> bool:
    """Whether a short span is no common word (jieba's dictionary, Simplified)."""
    from search.tokenize import base_frequency

    return base_frequency(opencc("t2s").convert(span)) < ABBREVIATION_WORD_FREQ


def _entry(name: str, short_name: str, code: str, year) -> _Entry:
    try:
        year_int = int(year) if year not in (None, "") else None
    except (TypeError, ValueError):
        year_int = None
    return _Entry(
        Company(name.strip(), short_name.strip(), str(code).strip()),
        {short_name.strip()} if short_name and short_name.strip() else set(),
        {year_int} if year_int else set(),
    )


def read_reports_list(path: Path) -> list[_Entry]:
    """Entries from a FinGLM-style reports list; InputError naming the line for an unreadable row."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read reports list: {exc}", str(path)) from None
    latest: dict[str, tuple[int, _Entry]] = {}
    for number, row in enumerate(csv.reader(text.splitlines()), start=1):
        if not row or not row[0].strip() or row[0].strip() == "name":
            continue
        parts = Path(row[0].strip()).stem.split("__") if "__" in row[0] else []
        if len(parts) < 5:
            raise InputError(
                f"expected date__full name__code__short name__year__{_WORDS['report_name']}",
                str(path),
                number,
            )
        date, name, code, short_name, year = parts[:5]
        entry = _entry(name, short_name, code, year.rstrip(_WORDS["year"]))
        if not entry.years:
            raise InputError(f"bad year {year!r}", str(path), number)
        # The company's current short name is the one in its latest filing; older ones stay aliases.
        seen = latest.get(name)
        if seen is None:
            latest[name] = (int(date[:4]) if date[:4].isdigit() else 0, entry)
        else:
            when, kept = seen
            kept.short_names |= entry.short_names
            kept.years |= entry.years
            if date[:4].isdigit() and int(date[:4]) >= when:
                kept.company = Company(name, short_name, code or kept.company.code)
                latest[name] = (int(date[:4]), kept)
    return [entry for _, entry in latest.values()]
