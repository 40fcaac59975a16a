"""The forms text is compared in: NFKC width folding, case and space folding, Simplified/Traditional Chinese.

Every module that matches names, fields or phrases folds text here, so a name
written in full-width characters, with spaces or parentheses, or in Traditional
characters meets its dictionary entry.

>>> nfkc("ＡＢＣ１２３"), fold("福建龙溪轴承(集团) 股份有限公司"), fold_field("归属于母公司的净利润")
('ABC123', '福建龙溪轴承集团股份有限公司', '归属于母公司净利润')
>>> opencc("t2s").convert("營業收入")
'营业收入'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from core.rulebook import per_book
from core.vocabulary import vocabulary

_DROPPED = re.compile(r"[\s()]+")


def fold(text: str) -> str:
    """The form names are matched in: NFKC (full-width to half-width), lower case, no spaces or parentheses.

    Parentheses go because report lists write 福建龙溪轴承集团股份有限公司 for 福建龙溪轴承(集团)股份有限公司.
    """
    return _DROPPED.sub("", unicodedata.normalize("NFKC", text)).lower()


def fold_field(text: str) -> str:
    """Field names are also matched with 的 removed (归属于母公司的净利润 = 归属于母公司净利润)."""
    text = fold(text)
    for particle in field_particles():
        text = text.replace(particle, "")
    return text


def fold_with_offsets(text: str, drop: str = "()") -> tuple[str, list[int]]:
    """`fold(text)` (also dropping the characters in `drop`) and, for each of its characters,
    the index it came from in `text`, so matches can be reported as written."""
    normalized = unicodedata.normalize("NFKC", text).lower()
    if len(normalized) == len(text):  # the usual case: one character for one
        dropper = _dropper(drop)
        kept = (
            [i for i, c in enumerate(normalized) if c not in drop and not c.isspace()]
            if dropper.search(normalized)
            else range(len(normalized))
        )
        return dropper.sub("", normalized), kept
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).lower():
            if c not in drop and not c.isspace():
                out.append(c)
                offsets.append(i)
    return "".join(out), offsets


@lru_cache(maxsize=8)
def _dropper(drop: str) -> re.Pattern:
    return re.compile("[\\s" + re.escape(drop) + "]") if drop else re.compile(r"\s")


def fold_field_with_offsets(text: str) -> tuple[str, list[int]]:
    """`fold_field(text)` with offsets into `text` (see fold_with_offsets)."""
    return fold_with_offsets(text, field_particles() + "()")


def field_particles() -> str:
    """The particles field names are matched without (rules/tokens.yaml field_particles)."""
    return _FIELD_PARTICLES.value()


# Every fold of a field name or question reads them: once per rule book, not through the book each time.
_FIELD_PARTICLES = per_book(lambda: vocabulary("tokens")["field_particles"])


@lru_cache(maxsize=2)
def opencc(config: str):
    """One OpenCC converter per process and config: "s2t" (Simplified -> Traditional) or "t2s"."""
    import opencc as _opencc  # loads its dictionaries; only when Chinese text is folded

    return _opencc.OpenCC(config)


def convert_all(config: str, texts: list[str]) -> list[str]:
    """Each text converted by the OpenCC converter `config`, in one call: OpenCC is fast per call, not per
    text, and no dictionary entry holds a newline, so texts joined by newlines convert as they do alone."""
    converter = opencc(config)
    if not texts or any("\n" in text for text in texts):
        return [converter.convert(text) for text in texts]
    return converter.convert("\n".join(texts)).split("\n")


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)
