"""Which lines are headings and how deep, and the heading path above a line.

The levels live in rules/headings.yaml (ordered regex levels, validated by a
JSON schema); `HeadingStack` turns a stream of headings into the path of
titles each chunk carries.

>>> rules = HeadingRules.load()
>>> rules.level("第三节 管理层讨论与分析"), rules.level("（一）技术研发优势")
(2, 5)
>>> rules.level("一、第一保單年度至第三保單年度：「年繳保險費總和」的一點零二五倍。") is None
True
>>> stack = HeadingStack()
>>> for text in ("第三节 管理层讨论与分析", "二、主要业务", "（一）主要产品", "三、核心竞争力"):
...     stack.push(rules.level(text), text)
>>> stack.path
('第三节 管理层讨论与分析', '三、核心竞争力')
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from core.rulebook import active, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

_PATTERN = {"type": "string", "minLength": 1}

HEADINGS_SCHEMA = {
    "type": "object",
    "required": ["levels"],
    "additionalProperties": False,
    "properties": {
        "max_chars": {"type": "integer", "minimum": 1},
        "reject": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["why", "pattern"],
                "additionalProperties": False,
                "properties": {"why": {"type": "string"}, "pattern": _PATTERN},
            },
        },
        "levels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "level", "patterns"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                    "level": {"type": "integer", "minimum": 1, "maximum": 20},
                    "max_chars": {"type": "integer", "minimum": 1},
                    "patterns": {"type": "array", "minItems": 1, "items": _PATTERN},
                },
            },
        },
    },
}

# Full-width ASCII (U+FF01..U+FF5E) and the ideographic space, folded to ASCII;
# unlike NFKC this keeps ① and CJK punctuation as they are.
_WIDTH_FOLD = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_SPACES = re.compile(r"\s+")
_CJK = r"\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_CHAR = re.compile(rf"[{_CJK}]")
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}])")
_LAYOUT = per_book(lambda: vocabulary("layout"))  # rules/layout.yaml
_ORDINAL = pattern_per_book(lambda: re.compile(_LAYOUT["spaced_ordinal"]))
# CJK compatibility ideographs (U+F900..U+FAFF: 列 for 列) and Kangxi radicals (U+2F00..: ⼀ for 一)
# that PDF fonts map some characters to; a search for 列 must find them.
_CJK_VARIANTS = {
    code: unicodedata.normalize("NFKC", chr(code))
    for code in (*range(0x2E80, 0x2FE0), *range(0xF900, 0xFB00))
    if len(unicodedata.normalize("NFKC", chr(code))) == 1
    and unicodedata.normalize("NFKC", chr(code)) != chr(code)
}


def canonical_cjk(text: str) -> str:
    """Compatibility ideographs and Kangxi radicals as the ordinary ideographs they stand for."""
    return text.translate(_CJK_VARIANTS)


def fold_width(text: str) -> str:
    """Full-width ASCII to half-width: "（１）" -> "(1)"."""
    return text.translate(_WIDTH_FOLD)


def tidy_line(text: str) -> str:
    """Runs of whitespace as one space; a letter-spaced CJK line or ordinal closed up.

    PDFs set titles letter-spaced ("合 併 資 產 負 債 表", "第 七 條"); a space
    between two CJK characters on such a line is layout, not a word break.

    >>> tidy_line("合 併 資 產 負 債 表"), tidy_line("第 七 條 契約的終止")
    ('合併資產負債表', '第七條 契約的終止')
    """
    text = _ORDINAL.sub(
        lambda m: _LAYOUT["ordinal_mark"] + m.group(1) + m.group(2), _SPACES.sub(" ", text).strip()
    )
    gaps = len(_CJK_GAP.findall(text))
    if gaps >= 2 and gaps * 2 >= len(_CJK_CHAR.findall(text)) - 1:
        text = _CJK_GAP.sub("", text)
    return text


@dataclass(frozen=True)
class HeadingLevel:
    name: str
    level: int
    max_chars: int
    patterns: tuple[re.Pattern, ...]


@dataclass(frozen=True)
class HeadingRules:
    """Ordered heading levels from rules/headings.yaml; `level(line)` is the one entry point."""

    levels: tuple[HeadingLevel, ...]
    reject: tuple[re.Pattern, ...] = ()
    path: Path | None = None

    @classmethod
    def load(cls, path: Path | None = None) -> HeadingRules:
        """Read and check the rule file (the active rule book's headings.yaml unless given); InputError
        naming file:line on a bad regex or schema error."""
        path = path or active().rules_dir / "headings.yaml"
        rules = RuleFile.load(path, HEADINGS_SCHEMA)
        default_max = rules.data.get("max_chars", 40)
        reject = tuple(
            _compile(rules, item["pattern"], "reject", i, "pattern")
            for i, item in enumerate(rules.data.get("reject", []))
        )
        levels = tuple(
            HeadingLevel(
                name=entry["name"],
                level=entry["level"],
                max_chars=entry.get("max_chars", default_max),
                patterns=tuple(
                    _compile(rules, pattern, "levels", i, "patterns", j)
                    for j, pattern in enumerate(entry["patterns"])
                ),
            )
            for i, entry in enumerate(rules.data["levels"])
        )
        return cls(levels=levels, reject=reject, path=Path(path))

    @classmethod
    def shared(cls, path: Path | None = None) -> HeadingRules:
        """`load`, read once per process and path (parsers call this for every document)."""
        return _shared(Path(path or active().rules_dir / "headings.yaml").resolve())

    def level(self, line: str) -> int | None:
        """The heading level of this line (1 = outermost), or None for running text."""
        text = tidy_line(fold_width(line))
        if not text or any(p.search(text) for p in self.reject):
            return None
        length = len(text.replace(" ", ""))
        for entry in self.levels:
            if length <= entry.max_chars and any(p.search(text) for p in entry.patterns):
                return entry.level
        return None


@functools.lru_cache(maxsize=8)
def _shared(path: Path) -> HeadingRules:
    return HeadingRules.load(path)


def _compile(rules: RuleFile, pattern: str, *keys) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise rules.error(f"bad regex {pattern!r}: {exc}", *keys) from None


@dataclass
class HeadingStack:
    """The open headings above the current line, outermost first.

    Pushing a heading closes every open heading at its level or deeper.
    """

    _open: list[tuple[int, str]] = field(default_factory=list)

    def push(self, level: int, text: str) -> None:
        while self._open and self._open[-1][0] >= level:
            self._open.pop()
        self._open.append((level, tidy_line(text)))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._open)

    @property
    def innermost(self) -> tuple[int, str] | None:
        """(level, text) of the innermost open heading, None when none is open."""
        return self._open[-1] if self._open else None
