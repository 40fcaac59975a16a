"""A company for documents whose own pages name none, from the company register of the whole corpus.

Run at the end of each ingestion, over the identity book (core/identity.py), after the
index is committed, in three steps, each weaker than a name read from the document's own pages:

1. spelling: a name (a scanned title, 聯莽電子股份有限公司) that differs in one character from a
   name at least SPELLING_RATIO times as many documents write is read as that name (the finding keeps
   what the page wrote, and the name as `read_as`);
2. figures: an excerpt that writes FIGURE_RUN amounts in a row as another document does (the same
   statement or note: 9,630,649 7,197,351 7,720,129) is of the same report, or of the same company's
   report of another period (its comparative columns); it takes the company that document's own pages
   name (confidence `figures_confidence`), then that of a document placed so (an excerpt shares figures
   with another excerpt only); not when documents of two companies share as many runs with it. After
   step 3, again from the documents it placed (with their confidence, `register_confidence`);
3. mentions: the document's text names a register company by its core name (聯華電子 of
   聯華電子股份有限公司) or by a short name that its own reports write and no other company's
   do (中鋼, 台積, 智邦: the characters stand in order in the core name, from its first);
   compared in Simplified characters, as OCR often reads them. The company named most often
   wins (confidence `register_confidence`).

Nothing is guessed from text that only reads like another company's reports: voting by the most similar
documents was wrong more often than right on note excerpts (a company with few documents in the corpus
loses its excerpts to one whose reports share the auditor's wording), and a wrong company is worse than none.

>>> attribute_companies(book, index, rules)
{'spelling': 1, 'figures': 2, 'mentions': 3, 'unknown': 5}
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from core.folding import fold, opencc
from core.identity import LEGAL_SUFFIXES, IdentityBook, IdentityRules
from core.rulebook import per_book
from core.vocabulary import vocabulary
from search.backend import SearchQuery, TextIndex

DOCUMENT_CHUNKS = 2000  # chunks read from a document to count the names in it
SHORT_NAME_USES = (
    2  # a short name counts once this many of a company's own reports write it (all, when fewer)
)
SPELLING_RATIO = 2  # a name is read as a one-character-apart name that this many times more documents write
FIGURE_RUN = 3  # amounts in a row that two documents write alike: the same statement or note
FIGURE_DIGITS = 5  # an amount counts from 10,000 (smaller ones recur by chance: 1,000, 2,500)
_FIGURE = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,])")  # as printed, with thousands separators
_WORDS = per_book(lambda: vocabulary("companies"))  # rules/companies.yaml
# A legal form after a name, and a title's group suffix, in folded Simplified text ((股)公司 folds to 股公司).
_LEGAL_FORM = per_book(
    lambda: "|".join(
        re.escape(opencc("t2s").convert(fold(suffix)))
        for suffix in (*LEGAL_SUFFIXES.value(), *_WORDS["abbreviated_suffixes"])
    )
)
_GROUP = per_book(lambda: opencc("t2s").convert(_WORDS["group_suffix"]))
_HOLDING = per_book(
    lambda: "|".join(re.escape(opencc("t2s").convert(word)) for word in _WORDS["holding_words"])
)
# How this module's findings start (similar text: an earlier version's).
ATTRIBUTED = ("register:", "figures:", "similar text:")


def attribute_companies(book: IdentityBook, index: TextIndex, rules: IdentityRules) -> dict[str, int]:
    """Assign companies in `book` (not saved); returns how many documents each step placed."""
    counts = {"spelling": 0, "figures": 0, "mentions": 0, "unknown": 0}
    for row in book.documents.values():  # the register may have changed since: attribute afresh
        found = row.get("findings", {}).get("company", {})
        if found.get("source", "").startswith(ATTRIBUTED):
            row["company"] = ""
            del row["findings"]["company"]
        elif found.get("value") and row.get("company"):
            row["company"] = found["value"]  # as its pages wrote it, before step 1 reads it again
            found.pop("read_as", None)
    counts["spelling"] = _correct_spelling(book)
    if all(row.get("company") for row in book.documents.values()):
        return counts
    texts = _Texts(index)
    figures = _FigureRuns(book, texts)
    counts["figures"] = figures.place(book, rules.figures_confidence)
    unknown = [d for d, row in book.documents.items() if not row.get("company")]
    register = book.register()
    names = _names(register, _short_names(book, texts, register)) if unknown else {}
    for doc_id in unknown:
        named = _mentions(texts.folded(doc_id), names)
        ranked = sorted(named.items(), key=lambda item: -sum(item[1].values()))
        if ranked and (len(ranked) == 1 or sum(ranked[0][1].values()) > sum(ranked[1][1].values())):
            company, used = ranked[0]
            written = ", ".join(f"{name} {n}x" for name, n in used.items())
            book.assign(doc_id, company, rules.register_confidence, f"register: its text names {written}")
            counts["mentions"] += 1
    # then excerpts of the reports just placed by the names they write, as surely as those
    counts["figures"] += figures.place(book, rules.register_confidence)
    counts["unknown"] = sum(not row.get("company") for row in book.documents.values())
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
        close = [
            a
            for a, n in written.items()
            if n >= max(2, SPELLING_RATIO * written[name])
            and len(a) == len(name)
            and sum(x != y for x, y in zip(a, name)) == 1
        ]
        if len(close) == 1:
            row["company"] = close[0]
            row["findings"]["company"]["read_as"] = close[0]
            corrected += 1
    return corrected


class _Texts:
    """The documents' text as read from the index, once each: as written, and folded."""

    def __init__(self, index: TextIndex):
        self.index = index
        self.written: dict[str, str] = {}

    def text(self, doc_id: str) -> str:
        if doc_id not in self.written:
            chunks = self.index.search(
                SearchQuery(doc_ids=(doc_id,), kinds=("text", "table"), limit=DOCUMENT_CHUNKS)
            )
            self.written[doc_id] = "\n".join(h.chunk.text for h in chunks)
        return self.written[doc_id]

    def folded(self, doc_id: str) -> str:
        """Folded (no spaces) and in Simplified characters."""
        return opencc("t2s").convert(fold(self.text(doc_id)))


class _FigureRuns:
    """Which documents write each run of FIGURE_RUN amounts (FIGURE_DIGITS digits or more, all different)."""

    def __init__(self, book: IdentityBook, texts: _Texts):
        self.runs = {doc_id: _figure_runs(texts.text(doc_id)) for doc_id in book.documents}
        self.writers: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for doc_id, found in self.runs.items():
            for run in found:
                self.writers[run].add(doc_id)

    def place(self, book: IdentityBook, confidence: float) -> int:
        """Give documents without a company the company of a document that writes the same figures in a row
        (then of one placed so); returns how many were placed."""
        placed = 0
        while True:
            named = {d: row["company"] for d, row in book.documents.items() if row.get("company")}
            chosen = {}
            for doc_id, row in book.documents.items():
                if row.get("company"):
                    continue
                shared: dict[str, set] = defaultdict(
                    set
                )  # company -> the runs its documents share with this one
                documents: dict[str, Counter] = defaultdict(Counter)  # company -> document -> runs shared
                for run in self.runs[doc_id]:
                    for other in self.writers[run] & named.keys():
                        shared[named[other]].add(run)
                        documents[named[other]][other] += 1
                ranked = sorted(shared, key=lambda company: -len(shared[company]))
                if ranked and (len(ranked) == 1 or len(shared[ranked[0]]) > len(shared[ranked[1]])):
                    chosen[doc_id] = ranked[0], documents[ranked[0]]
            if not chosen:
                return placed
            for doc_id, (company, documents) in chosen.items():
                written = ", ".join(f"{other} {n}x" for other, n in documents.most_common(3))
                book.assign(doc_id, company, confidence, f"figures: amounts in a row as in {written}")
                placed += 1


def _figure_runs(text: str) -> set[tuple[str, ...]]:
    """Every FIGURE_RUN amounts written in a row (of FIGURE_DIGITS digits or more, all different)."""
    figures = [f for f in _FIGURE.findall(text) if len(f.replace(",", "")) >= FIGURE_DIGITS]
    return {
        run
        for i in range(len(figures) - FIGURE_RUN + 1)
        if len(set(run := tuple(figures[i : i + FIGURE_RUN]))) == FIGURE_RUN
    }


def _short_names(book: IdentityBook, texts: _Texts, register: dict[str, str]) -> dict[str, set[str]]:
    """Company -> its short names: two or three characters standing in order in its core name from the
    first (中鋼 of 中國鋼鐵, 智邦 of 智邦科技) that its own reports (named on their pages) write and no other
    company's reports do (中華 of 中華電信 is in every report's 中華民國)."""
    t2s = opencc("t2s")
    candidates = {company: _abbreviations(t2s.convert(core)) for company, core in register.items()}
    reports: Counter = Counter()
    writers: dict[str, Counter] = defaultdict(Counter)  # short name -> company -> its reports that write it
    for doc_id, row in book.documents.items():
        company = row.get("company", "")
        if company not in register:
            continue
        reports[company] += 1
        text = texts.folded(doc_id)
        for short in {s for shorts in candidates.values() for s in shorts if s in text}:
            writers[short][company] += 1
    return {
        company: {
            s
            for s in shorts
            if set(writers[s]) == {company} and writers[s][company] >= min(SHORT_NAME_USES, reports[company])
        }
        for company, shorts in candidates.items()
    }


def _abbreviations(core: str) -> set[str]:
    """The two- and three-character names whose characters stand in order in `core`, from its first."""
    rest = core[1:]
    pairs = {core[0] + rest[i] + b for i in range(len(rest)) for b in rest[i + 1 :]}
    return ({core[0] + a for a in rest} | pairs) - {core}


def _names(register: dict[str, str], short_names: dict[str, set[str]]) -> dict[str, dict[str, str]]:
    """Company -> what names it in folded Simplified text (its core name, its short names) -> as shown."""
    to_traditional = opencc("s2t")
    out = {}
    for company, core in register.items():
        named = {opencc("t2s").convert(core): core}
        named.update({short: to_traditional.convert(short) for short in sorted(short_names.get(company, ()))})
        out[company] = named
    return out


def _mentions(text: str, names: dict[str, dict[str, str]]) -> dict[str, Counter]:
    """Company -> how often the text writes each of its names (as shown), leaving out names written with
    their legal form outside a title (…股份有限公司及子公司) and names of shares held (出售部分研華股票): the
    notes call their own company 本公司 and name another party in full (本公司對聯發科技股份有限公司提起告訴:
    no mention of 聯發科)."""
    full = "|".join(re.escape(name) for named in names.values() for name in named)
    if full:  # not a title, nor shares held
        text = re.sub(
            f"(?:{full})(?:(?:{_LEGAL_FORM.value()})(?!{_GROUP.value()})|{_HOLDING.value()})", "\n", text
        )
    out = {}
    for company, named in names.items():
        used = Counter({shown: text.count(name) for name, shown in named.items() if name in text})
        if used:
            out[company] = used
    return out
