"""A company for documents whose own pages name none, from the company register of the whole corpus.

Run at the end of each ingestion, over the identity book (core/identity.py), after the
index is committed, in two steps, each weaker than a name read from the document's own pages:

1. spelling: a name (a scanned title, 聯莽電子股份有限公司) that differs in one character from a
   name at least SPELLING_RATIO times as many documents write is read as that name (the finding keeps
   what the page wrote, and the name as `read_as`);
2. mentions: the document's text names a register company by its core name (聯華電子 of
   聯華電子股份有限公司) or by a short name its own reports use for it before 公司 or 集團
   (中鋼公司, 台積公司, 國巨集團: the characters stand in order in the core name, from its
   first); compared in Simplified characters, as OCR often reads them. The company named
   most often wins (confidence `register_confidence`).

Nothing is guessed from text that only reads like another company's reports: voting by the most similar
documents was wrong more often than right on note excerpts (a company with few documents in the corpus
loses its excerpts to one whose reports share the auditor's wording), and a wrong company is worse than none.

>>> attribute_companies(book, index, rules)
{'spelling': 1, 'mentions': 3, 'unknown': 5}
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict

from core.folding import fold, opencc
from core.identity import IdentityBook, IdentityRules
from search.backend import SearchQuery, TextIndex

DOCUMENT_CHUNKS = 2000  # chunks read from a document to count the names in it
SHORT_NAME_USES = 2  # a short name counts once a company's own reports use it this often
SPELLING_RATIO = 2  # a name is read as a one-character-apart name that this many times more documents write
ATTRIBUTED = ("register:", "similar text:")  # how this module's findings start (similar text: an earlier version's)
# What follows a company's short name when a report names it (中鋼公司, 台化集團), folded to Simplified.
_NAMED = re.compile("公司|集团")


def attribute_companies(book: IdentityBook, index: TextIndex, rules: IdentityRules) -> dict[str, int]:
    """Assign companies in `book` (not saved); returns how many documents each step placed."""
    counts = {"spelling": 0, "mentions": 0, "unknown": 0}
    for row in book.documents.values():  # the register may have changed since: attribute afresh
        found = row.get("findings", {}).get("company", {})
        if found.get("source", "").startswith(ATTRIBUTED):
            row["company"] = ""
            del row["findings"]["company"]
        elif found.get("value") and row.get("company"):
            row["company"] = found["value"]  # as its pages wrote it, before step 1 reads it again
            found.pop("read_as", None)
    counts["spelling"] = _correct_spelling(book)
    unknown = [d for d, row in book.documents.items() if not row.get("company")]
    if not unknown:
        return counts
    register = book.register()
    names = _names(register, _short_names(book, index, register))
    for doc_id in unknown:
        named = _mentions(_folded_text(index, doc_id), names)
        ranked = sorted(named.items(), key=lambda item: -sum(item[1].values()))
        if ranked and (len(ranked) == 1 or sum(ranked[0][1].values()) > sum(ranked[1][1].values())):
            company, used = ranked[0]
            written = ", ".join(f"{name} {n}x" for name, n in used.items())
            book.assign(doc_id, company, rules.register_confidence, f"register: its text names {written}")
            counts["mentions"] += 1
        else:
            counts["unknown"] += 1
    return counts


def _correct_spelling(book: IdentityBook) -> int:
    """Read a name as the name, one character apart and of the same length, that many more documents
    write (an OCR misreading); returns how many were read again."""
    written = Counter(row["company"] for row in book.documents.values() if row.get("company"))
    corrected = 0
    for row in book.documents.values():
        name = row.get("company", "")
        if not name:
            continue
        close = [a for a, n in written.items() if n >= max(2, SPELLING_RATIO * written[name]) and len(a) == len(name)
                 and sum(x != y for x, y in zip(a, name)) == 1]
        if len(close) == 1:
            row["company"] = close[0]
            row["findings"]["company"]["read_as"] = close[0]
            corrected += 1
    return corrected


def _folded_text(index: TextIndex, doc_id: str) -> str:
    """A document's text, folded (no spaces) and in Simplified characters."""
    chunks = index.search(SearchQuery(doc_ids=(doc_id,), kinds=("text", "table"), limit=DOCUMENT_CHUNKS))
    return opencc("t2s").convert(fold("\n".join(h.chunk.text for h in chunks)))


def _short_names(book: IdentityBook, index: TextIndex, register: dict[str, str]) -> dict[str, set[str]]:
    """Company -> the short names its own reports (named on their pages) give it before 公司 or 集團."""
    uses: dict[str, Counter] = defaultdict(Counter)
    for doc_id, row in book.documents.items():
        core = register.get(row.get("company", ""))
        if not core:
            continue
        core = opencc("t2s").convert(core)
        text = _folded_text(index, doc_id)
        for match in _NAMED.finditer(text):
            for size in (2, 3):
                candidate = text[max(0, match.start() - size): match.start()]
                if len(candidate) == size and candidate != core[:size] and _in_order(candidate, core):
                    uses[row["company"]][candidate] += 1
    owners = Counter(name for used in uses.values() for name, n in used.items() if n >= SHORT_NAME_USES)
    return {company: {name for name, n in used.items() if n >= SHORT_NAME_USES and owners[name] == 1}
            for company, used in uses.items()}


def _in_order(short: str, core: str) -> bool:
    """Whether the characters of `short` stand in order in `core`, starting with its first (中鋼 in 中國鋼鐵)."""
    if not short or short[0] != core[0]:
        return False
    at = 1
    for char in short[1:]:
        at = core.find(char, at) + 1
        if not at:
            return False
    return True


def _names(register: dict[str, str], short_names: dict[str, set[str]]) -> dict[str, dict[str, str]]:
    """Company -> what names it in folded text (its core name, each short name before 公司 or 集團) -> as shown."""
    to_traditional = opencc("s2t")
    out = {}
    for company, core in register.items():
        named = {opencc("t2s").convert(core): core}
        for short in sorted(short_names.get(company, ())):
            for word in ("公司", "集团"):
                named[short + word] = to_traditional.convert(short + word)
        out[company] = named
    return out


def _mentions(text: str, names: dict[str, dict[str, str]]) -> dict[str, Counter]:
    """Company -> how often the text writes each of its names (as shown)."""
    out = {}
    for company, named in names.items():
        used = Counter({shown: text.count(name) for name, shown in named.items() if name in text})
        if used:
            out[company] = used
    return out
