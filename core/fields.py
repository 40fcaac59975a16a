"""Financial fields named in a question: dictionary match, then fuzzy match.

`FieldDictionary` holds rules/fields.yaml (canonical names, synonyms in
Simplified, Traditional Chinese and Japanese) as one phrase matcher and
finds the fields a question names, longest first. `PhraseMatcher` is the
dictionary matcher itself (phrases looked up by their first two characters),
shared with the company register.

>>> fields = FieldDictionary.load()
>>> [m.field for m in fields.find("2019年四方科技的總負債和营业收入是多少?")]
['负债合计', '营业收入']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Generic, TypeVar

from rapidfuzz import fuzz, process

from core.errors import InputError, RuleError
from core.folding import convert_all, field_particles, fold_field, fold_field_with_offsets
from core.rulebook import active
from core.rulefile import RuleFile

V = TypeVar("V")

STATEMENTS = ("balance_sheet", "income_statement", "cash_flow", "basic_info", "employees", "other")

FIELDS_SCHEMA = {
    "type": "object",
    "required": ["fields"],
    "additionalProperties": False,
    "properties": {
        "fields": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "statement", "kind"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "synonyms": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "statement": {"enum": list(STATEMENTS)},
                    "unit": {"type": "string"},
                    "kind": {"enum": ["number", "text"]},
                },
            },
        }
    },
}


@dataclass(frozen=True)
class PhraseMatch(Generic[V]):
    start: int
    end: int
    text: str  # the matched phrase as it stands in the searched text
    values: tuple  # every value registered under this phrase


class PhraseMatcher(Generic[V]):
    """Leftmost-longest dictionary matching by hash look-ups.

    At each position of a text only the lengths of the phrases that begin with
    its two characters are tried, so matching costs about one look-up per
    character however many phrases there are (11,588 reports' names match in
    microseconds), and building costs no more than reading the phrases: no
    pattern is compiled when an engine opens.

    >>> m = PhraseMatcher({"资产": ["a"], "资产总计": ["b"]})
    >>> [(x.text, x.values) for x in m.find("资产总计是多少")]
    [('资产总计', ('b',))]
    """

    def __init__(self, phrases: dict[str, Iterable[V]]):
        self._values = {p: tuple(dict.fromkeys(v)) for p, v in phrases.items() if p}
        # The lengths of the phrases of two or more characters, by their first two characters, longest
        # first: a position whose two characters begin no phrase is skipped at once, and elsewhere the
        # longest phrase starting there is the first of these lengths the text holds.
        lengths: dict[str, set[int]] = {}
        for p in self._values:
            if len(p) >= 2:
                lengths.setdefault(p[:2], set()).add(len(p))
        self._lengths = {start: sorted(ns, reverse=True) for start, ns in lengths.items()}
        self._singles = {p for p in self._values if len(p) == 1}

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, phrase: str) -> bool:
        return phrase in self._values

    def values(self, phrase: str) -> tuple:
        return self._values.get(phrase, ())

    def find(self, text: str) -> list[PhraseMatch[V]]:
        """Non-overlapping matches; where matches overlap the longest wins (then the leftmost)."""
        found = []
        by_start, singles, values, size = self._lengths, self._singles, self._values, len(text)
        for i in range(size):
            start = text[i : i + 2]
            if start in by_start:
                end = next((i + n for n in by_start[start] if i + n <= size and text[i : i + n] in values), 0)
                if end:
                    found.append((i, end))
                    continue
            if singles and text[i] in singles:
                found.append((i, i + 1))
        if len(found) > 1:
            found = _best_non_overlapping(found)
        return [PhraseMatch(s, e, text[s:e], self._values[text[s:e]]) for s, e in found]


def _best_non_overlapping(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    chosen: list[tuple[int, int]] = []
    for s, e in sorted(set(spans), key=lambda se: (se[0] - se[1], se[0])):
        if all(e <= cs or s >= ce for cs, ce in chosen):
            chosen.append((s, e))
    return sorted(chosen)


@dataclass(frozen=True)
class FieldDef:
    name: str
    synonyms: tuple[str, ...] = ()
    statement: str = "other"
    unit: str = ""
    kind: str = "number"
    line: int = 0


@dataclass(frozen=True)
class FieldMatch:
    field: str  # canonical name
    written: str  # as it stands in the question
    start: int  # span in the question
    end: int
    score: int = 100  # 100 for a dictionary match, the rapidfuzz score (0-100) otherwise
    how: str = "dictionary"  # "dictionary" | "fuzzy" | "llm"


def _read(path: Path | None) -> RuleFile:
    """rules/fields.yaml (of the active rule book unless given), read once for the tokenizer's words and the
    field dictionary both (again when the file changes)."""
    path = Path(path or active().rules_dir / "fields.yaml").resolve()
    try:
        stat = path.stat()
    except OSError:
        return RuleFile.load(path, FIELDS_SCHEMA)  # its one-line error
    return _read_once(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _read_once(path: Path, mtime_ns: int, size: int) -> RuleFile:
    return RuleFile.load(path, FIELDS_SCHEMA)


def field_words(path: Path | None = None) -> list[str]:
    """Every field name and synonym of rules/fields.yaml, as written: words a tokenizer keeps whole."""
    return [
        word for entry in _read(path).data["fields"] for word in (entry["name"], *entry.get("synonyms", ()))
    ]


def load_field_file(path: Path | None = None) -> tuple[RuleFile, list[FieldDef], list[InputError]]:
    """Parse rules/fields.yaml; returns the definitions and every collision found."""
    rules = _read(path)
    defs, errors = [], []
    owner: dict[str, tuple[str, int]] = {}
    for i, item in enumerate(rules.data["fields"]):
        line = rules.line("fields", i)
        defs.append(
            FieldDef(
                item["name"],
                tuple(item.get("synonyms", ())),
                item["statement"],
                item.get("unit", ""),
                item["kind"],
                line,
            )
        )
        for j, word in enumerate([item["name"], *item.get("synonyms", ())]):
            at = ("fields", i, "name") if j == 0 else ("fields", i, "synonyms", j - 1)
            key = fold_field(word)
            if not key:
                errors.append(
                    rules.error(f"{word!r} is empty once spaces and {field_particles()} are removed", *at)
                )
            elif key in owner and owner[key][0] != item["name"]:
                other, other_line = owner[key]
                errors.append(
                    rules.error(
                        f"{word!r} of {item['name']} is also listed under {other} (line {other_line})", *at
                    )
                )
            elif key not in owner:
                owner[key] = (item["name"], rules.line(*at))
    return rules, defs, errors


class FieldDictionary:
    """Canonical fields and every way of writing them, matched longest first.

    Traditional-character forms of every Simplified name are added at load
    time (OpenCC s2t), so 營業收入 needs no entry of its own; wordings that
    differ (資產總額, 総資産) are listed as synonyms.

    >>> d = FieldDictionary.load()
    >>> d.canonical("总负债")
    '负债合计'
    """

    def __init__(self, fields: list[FieldDef], fuzzy_threshold: int = 80, fuzzy_min_chars: int = 3):
        if not fields:
            raise RuleError("no fields defined")
        if not 50 <= fuzzy_threshold <= 100:
            raise InputError(f"fuzzy_threshold must be 50..100, got {fuzzy_threshold}")
        self.fields = {f.name: f for f in fields}
        self.fuzzy_threshold = fuzzy_threshold
        self.fuzzy_min_chars = fuzzy_min_chars
        phrases: dict[str, list[str]] = {}
        for f in fields:
            for word in (f.name, *f.synonyms):
                phrases.setdefault(fold_field(word), []).append(f.name)
        written = [(f.name, word) for f in fields for word in (f.name, *f.synonyms)]
        for (name, _), traditional in zip(written, convert_all("s2t", [word for _, word in written])):
            phrases.setdefault(fold_field(traditional), [name])
        self._matcher: PhraseMatcher[str] = PhraseMatcher(phrases)
        self._fuzzy_choices = {fold_field(f.name): f.name for f in fields if len(f.name) >= fuzzy_min_chars}
        self._fuzzy_keys = list(self._fuzzy_choices)
        # Each character of a fuzzy choice: (choice number, how often it has it), to count what a text shares.
        self._fuzzy_chars: dict[str, list[tuple[int, int]]] = {}
        for k, key in enumerate(self._fuzzy_keys):
            for char, count in Counter(key).items():
                self._fuzzy_chars.setdefault(char, []).append((k, count))

    @classmethod
    def load(cls, path: Path | None = None, **settings) -> FieldDictionary:
        """Read rules/fields.yaml; InputError (file:line) on a schema error or a synonym collision."""
        _, defs, errors = load_field_file(path)
        if errors:
            raise errors[0]
        return cls(defs, **settings)

    def words(self) -> list[str]:
        """Every name and synonym as written in the file (for tokenizer user dictionaries)."""
        return list(dict.fromkeys(w for f in self.fields.values() for w in (f.name, *f.synonyms)))

    def add_to_jieba(self, tokenizer=None) -> int:
        """Make jieba keep every field name whole; returns how many words were added."""
        if tokenizer is None:
            import jieba as tokenizer
        words = [w for w in self.words() if not w.isascii()]
        for word in words:
            tokenizer.add_word(word, freq=20000)
        return len(words)

    def canonical(self, written: str) -> str | None:
        """The canonical field a name or synonym stands for, or None."""
        values = self._matcher.values(fold_field(written))
        return values[0] if values else None

    def find(self, text: str) -> list[FieldMatch]:
        """Fields named in the text, in order, by exact dictionary match (longest first)."""
        folded, offsets = fold_field_with_offsets(text)
        return [
            FieldMatch(
                m.values[0],
                text[offsets[m.start] : offsets[m.end - 1] + 1],
                offsets[m.start],
                offsets[m.end - 1] + 1,
            )
            for m in self._matcher.find(folded)
        ]

    def find_fuzzy(self, text: str, threshold: int | None = None) -> list[FieldMatch]:
        """The best canonical field by rapidfuzz partial ratio, if it reaches the threshold."""
        folded = fold_field(text)
        if len(folded) < self.fuzzy_min_chars:
            return []
        cutoff = threshold or self.fuzzy_threshold
        best = process.extractOne(
            folded,
            self._fuzzy_candidates(folded, cutoff),
            scorer=fuzz.partial_ratio,
            processor=None,
            score_cutoff=cutoff,
        )
        if not best:
            return []
        key, score = best[0], round(best[1])
        return [FieldMatch(self._fuzzy_choices[key], key, 0, 0, score=score, how="fuzzy")]

    def _fuzzy_candidates(self, folded: str, cutoff: float) -> list[str]:
        """The fuzzy choices that can reach `cutoff`, in order; the others cannot be extractOne's answer.

        partial_ratio scores the shorter text (m characters) against a window of at most m characters (k) of
        the other: 100 * 2 * LCS / (m + k), with LCS <= k. Reaching the cutoff c needs LCS >= c * m / (200 - c),
        and the LCS is no longer than the choice's characters that the text has. Scoring every choice cost
        ~250 us a question (UFO); this count ~40.
        """
        shared: dict[int, int] = {}
        postings = self._fuzzy_chars
        for char in set(folded).intersection(postings):
            for k, has in postings[char]:
                shared[k] = shared.get(k, 0) + has  # at least what the two share of this character: a bound
        keys, size = self._fuzzy_keys, len(folded)
        return [
            keys[k]
            for k in sorted(shared)
            # a hair of slack: a choice kept needlessly is only scored
            if shared[k] * (200 - cutoff) + 1e-6 >= cutoff * min(len(keys[k]), size)
        ]
