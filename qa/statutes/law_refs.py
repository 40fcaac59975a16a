"""Law names and article references in questions, options and article text.

The register of law titles comes from the corpus (search/law_register.py);
rules/laws.yaml adds abbreviations (金商法 -> 金融商品取引法), the orders a
delegation word points to (政令で定める -> 施行令) and the question forms.

>>> book = LawBook.load(register)
>>> [r.label for r in book.references("金商法第5条第6項により、同条第1項の届出書")]
['金融商品取引法第5条第6項', '金融商品取引法第5条第1項']
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from core.articles import arabic_articles
from core.records import LawRecord
from core.rulebook import active, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

LAWS_SCHEMA = {
    "type": "object",
    "required": ["abbreviations", "orders", "forms", "change", "question_words"],
    "additionalProperties": False,
    "properties": {
        "abbreviations": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
        "orders": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "required": ["suffixes"],
                "properties": {
                    "suffixes": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "any_title": {"type": "array", "items": {"type": "string", "minLength": 1}},
                },
            },
        },
        "forms": {
            "type": "object",
            "additionalProperties": False,
            "required": ["which_article", "negative"],
            "properties": {
                name: {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
                for name in ("which_article", "negative")
            },
        },
        "question_words": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "asks_value": {
            "type": "object",
            "additionalProperties": False,
            "required": ["question", "stated"],
            "properties": {
                "question": {"type": "string", "minLength": 1},
                "stated": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        "list_joiners": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "two_column": {"type": "string", "minLength": 1},
        "change": {
            "type": "object",
            "additionalProperties": False,
            "required": ["negation", "condition"],
            "properties": {
                **{
                    name: {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
                    for name in (
                        "negation",
                        "condition",
                        "frame",
                        "excluded",
                        "proviso",
                        "limited",
                        "limits",
                        "obligation",
                        "effort",
                        "permission",
                        "prohibition",
                    )
                },
                "opposites": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "items": {"type": "string", "minLength": 1},
                    },
                },
            },
        },
    },
}

# 第5条の2第1項第3号 (Arabic after arabic_articles), or 同条 / 前条 / 次条 with an optional paragraph and item.
_STATUTES = per_book(lambda: vocabulary("statutes"))  # rules/statutes.yaml
_WORDS = per_book(lambda: _STATUTES["references"])
_REF = pattern_per_book(lambda: re.compile(_WORDS["reference"]))
_SPACE = re.compile(r"\s+")  # \s includes the ideographic space


@dataclass(frozen=True)
class Reference:
    """An article reference resolved to a law: `key` is parser.statutes.article_key's spelling ("24の2")."""

    doc_id: str
    law: str
    key: str
    paragraph: int | None = None
    item: int | None = None
    start: int = 0  # where it was written (in the normalised text)

    @property
    def label(self) -> str:
        ordinal, branch = _STATUTES["ordinal"], _STATUTES["branch"]
        article, *branches = self.key.split(branch)
        text = f"{self.law}{ordinal}{article}{_STATUTES['article']}" + "".join(
            f"{branch}{b}" for b in branches
        )
        if self.paragraph:
            text += f"{ordinal}{self.paragraph}{_WORDS['paragraph']}"
        return text + (f"{ordinal}{self.item}{_WORDS['item']}" if self.item else "")


@dataclass(frozen=True)
class LawRules:
    abbreviations: dict[str, str]
    orders: dict[str, dict]
    forms: dict[str, tuple[re.Pattern, ...]]
    change: dict[str, tuple[re.Pattern, ...]]
    question_words: tuple[str, ...] = ()
    # 第2条第1項第4号、第8号及び第15号: the words joining the later numbers of one reference
    more: re.Pattern | None = None
    # a lead whose items are a case and what it is given, on two lines (parser.statutes.provisions)
    two_column: re.Pattern | None = None
    # a which-article question that asks for the provision setting a value (期間を定めた条文; group 1 the value),
    # and how a provision states each value
    asks_value: re.Pattern | None = None
    stated_values: dict[str, re.Pattern] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> LawRules:
        rules = RuleFile.load(path or active().rules_dir / "laws.yaml", LAWS_SCHEMA)
        compiled = {}
        for section in ("forms", "change"):
            compiled[section] = {}
            for name, patterns in rules.data[section].items():
                items = []
                for i, pattern in enumerate(patterns):
                    if isinstance(pattern, list):  # a pair of opposite words, written plainly
                        items.append(tuple(re.compile(re.escape(word)) for word in pattern))
                        continue
                    try:
                        items.append(re.compile(pattern))
                    except re.error as exc:
                        raise rules.error(f"bad regex {pattern!r}: {exc}", section, name, i) from None
                compiled[section][name] = tuple(items)
        joiners = "|".join(re.escape(j) for j in rules.data.get("list_joiners", ()))
        more = (
            re.compile(
                rf"(?:{joiners}){re.escape(_STATUTES['ordinal'])}(\d+)"
                rf"({re.escape(_WORDS['paragraph'])}|{re.escape(_WORDS['item'])})"
            )
            if joiners
            else None
        )
        asks = rules.data.get("asks_value", {})
        stated = {
            word: _compile(rules, p, "asks_value", "stated", word)
            for word, p in asks.get("stated", {}).items()
        }
        two_column = _compile(rules, rules.data.get("two_column"), "two_column")
        return cls(
            rules.data["abbreviations"],
            rules.data["orders"],
            compiled["forms"],
            compiled["change"],
            tuple(rules.data["question_words"]),
            more,
            two_column,
            _compile(rules, asks.get("question"), "asks_value", "question"),
            stated,
        )


@dataclass
class LawBook:
    """Law titles (with abbreviations) -> document ids, and reference finding."""

    laws: dict[str, LawRecord]  # doc_id -> record
    rules: LawRules
    names: dict[str, str] = field(
        default_factory=dict
    )  # written name -> doc_id ("" for a law the corpus lacks)
    _pattern: re.Pattern | None = None

    @classmethod
    def load(cls, laws: dict[str, LawRecord], rules: LawRules | None = None) -> LawBook:
        rules = rules or LawRules.load()
        book = cls(dict(laws), rules)
        by_title = {_fold(law.title): doc_id for doc_id, law in sorted(laws.items())}
        names = dict(by_title)
        for doc_id, law in laws.items():
            for short in law.abbreviations:
                names.setdefault(_fold(short), doc_id)
        for short, title in rules.abbreviations.items():
            # a law the corpus lacks is still a name: the article numbers in and after it are not another law's
            # (金融商品取引法第二条に規定する定義に関する内閣府令第十六条 is not 金融商品取引法 第二条, 第十六条)
            names.setdefault(_fold(short), by_title.get(_fold(title), ""))
            names.setdefault(_fold(title), by_title.get(_fold(title), ""))
        # references are read with Arabic article numbers: names that write one are found in that form too
        names.update({arabic_articles(n): d for n, d in names.items() if arabic_articles(n) not in names})
        book.names = names
        if names:
            alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
            book._pattern = re.compile(alternatives)
        return book

    def title(self, doc_id: str) -> str:
        return self.laws[doc_id].title if doc_id in self.laws else doc_id

    def laws_named(self, text: str) -> list[str]:
        """Document ids of the laws a text names, in order, each once (longest names win)."""
        text = _fold(text)
        found = [self.names[m.group(0)] for m in self._pattern.finditer(text)] if self._pattern else []
        return [d for d in dict.fromkeys(found) if d]

    def references(self, text: str, default: str = "") -> list[Reference]:
        """Article references in `text`; a bare one belongs to the law last named before it (or `default`)."""
        text = arabic_articles(_fold(text))
        names = (
            [(m.start(), m.end(), self.names[m.group(0)]) for m in self._pattern.finditer(text)]
            if self._pattern
            else []
        )
        out: list[Reference] = []
        last: Reference | None = None
        for match in _REF.finditer(text):
            if any(start <= match.start() < end for start, end, _ in names):
                continue  # part of a law's name
            before = [n for n in names if n[1] <= match.start()]
            doc_id = before[-1][2] if before else default
            if match.group("rel"):
                if last is None:
                    continue
                doc_id, key = last.doc_id, last.key
                if match.group("rel") != _WORDS["same_article"]:
                    step = 1 if match.group("rel") == _WORDS["next_article"] else -1
                    number = int(key.split(_STATUTES["branch"])[0]) + step
                    key = str(number)
            else:
                if not doc_id:
                    continue
                key = match.group("art") + match.group("branch")
            ref = Reference(
                doc_id,
                self.title(doc_id),
                key,
                _int(match.group("para")),
                _int(match.group("item")),
                match.start(),
            )
            out.append(ref)
            out += self._listed(text, match.end(), ref)
            last = ref
        return out

    def _listed(self, text: str, end: int, ref: Reference) -> list[Reference]:
        """The references a list continues with: 第1項第4号、第8号及び第15号 -> items 8 and 15 of 第1項."""
        out = []
        while self.rules.more is not None:
            more = self.rules.more.match(text, end)
            if not more:
                return out
            number, unit = int(more.group(1)), more.group(2)
            if unit == _WORDS["paragraph"]:
                out.append(Reference(ref.doc_id, ref.law, ref.key, number, None, more.start()))
            else:
                out.append(Reference(ref.doc_id, ref.law, ref.key, ref.paragraph, number, more.start()))
            end = more.end()
        return out

    def without_citations(self, text: str, keep_if_shorter: int = 0) -> str:
        """The text without law names and article references (the law's own text does not repeat them).

        When what is left is shorter than `keep_if_shorter` characters, the option is
        mostly a citation ("第2条第8項第1号の金銭"), and its references are kept to be found in the law.
        """
        text = arabic_articles(_fold(text))
        if self._pattern:
            text = self._pattern.sub("", text)
        bare = _REF.sub("", text)
        return text if len(bare) < keep_if_shorter else bare

    def orders_of(self, doc_id: str, word: str) -> list[str]:
        """The orders a delegation word (政令, 内閣府令) in `doc_id`'s text points to."""
        order = self.rules.orders.get(word)
        if not order or doc_id not in self.laws:
            return []
        base = re.sub(_WORDS["regulation_suffixes"], "", self.laws[doc_id].title)
        wanted = {_fold(base + suffix) for suffix in order["suffixes"]}
        found = [d for d, law in self.laws.items() if _fold(law.title) in wanted]
        for part in order.get("any_title", ()):
            found += [d for d, law in self.laws.items() if part in law.title and d not in found]
        return found

    def form(self, question: str) -> str:
        """ "which_article", "negative" or "positive": what the question asks to pick."""
        text = _fold(question)
        for name in ("which_article", "negative"):
            if any(p.search(text) for p in self.rules.forms[name]):
                return name
        return "positive"


def _compile(rules: RuleFile, pattern: str | None, *keys: str) -> re.Pattern | None:
    try:
        return re.compile(pattern) if pattern else None
    except re.error as exc:
        raise rules.error(f"bad regex {pattern!r}: {exc}", *keys) from None


def _int(value: str | None) -> int | None:
    return int(value) if value else None


def _fold(text: str) -> str:
    return _SPACE.sub("", unicodedata.normalize("NFKC", text))
