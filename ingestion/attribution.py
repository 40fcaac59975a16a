"""A company for documents whose own pages name none, from the company register of the whole corpus.

Run at the end of each ingestion, over the identity book (core/identity.py), after the
index is committed, in two steps, each weaker than a name read from the document's own pages:

1. mentions: the document's text names a register company by its core name (聯華電子 of
   聯華電子股份有限公司); the company named most often wins (confidence `register_confidence`);
2. similar text: an excerpt of notes (承諾事項, 關係人交易) shares its subsidiaries, segments,
   banks and products with the same company's other reports. The document's first chunks are
   searched as one query; the companies of the best other documents vote by score, and the
   winner is kept when it holds at least `share` of the votes (confidence = half that share,
   so it never outweighs a name read from the text). Only documents of the same kind vote.

>>> attribute_companies(book, index, rules)
{'mentions': 3, 'similar': 41, 'unknown': 5}
"""
from __future__ import annotations

from collections import defaultdict

from core.identity import IdentityBook, IdentityRules
from search.backend import SearchQuery, TextIndex

SIMILAR_CHUNKS = 4  # chunks of the unknown document that make the query
SIMILAR_HITS = 40  # hits that vote
SIMILAR_SHARE = 0.6  # the winner's least share of the votes
QUERY_CHARS = 1500
ATTRIBUTED = ("register:", "similar text:")  # how this module's findings start


def attribute_companies(book: IdentityBook, index: TextIndex, rules: IdentityRules,
                        share: float = SIMILAR_SHARE) -> dict[str, int]:
    """Assign companies in `book` (not saved); returns how many documents each step placed."""
    counts = {"mentions": 0, "similar": 0, "unknown": 0}
    for row in book.documents.values():  # the register may have changed since: attribute afresh
        if row.get("findings", {}).get("company", {}).get("source", "").startswith(ATTRIBUTED):
            row["company"] = ""
            del row["findings"]["company"]
    unknown = [d for d, row in book.documents.items() if not row.get("company")]
    if not unknown:
        return counts
    register = book.register()
    known = {d: row for d, row in book.documents.items() if row.get("company")}
    mentions: dict[str, dict[str, int]] = defaultdict(dict)
    for company, core in register.items():
        for hit in index.search(SearchQuery(phrases=(core,), doc_ids=tuple(unknown), limit=200, phrase_boost=1.0)):
            counts_for = mentions[hit.chunk.doc_id]
            if core in hit.chunk.text.replace(" ", ""):
                counts_for[company] = counts_for.get(company, 0) + 1
    for doc_id in unknown:
        named = mentions.get(doc_id)
        if named:
            ranked = sorted(named.items(), key=lambda item: -item[1])
            if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
                company, n = ranked[0]
                book.assign(doc_id, company, rules.register_confidence,
                            f"register: its text names {register[company]} {n} time(s)")
                counts["mentions"] += 1
                continue
        kind = book.get(doc_id).get("kind", "")
        peers = {d: row["company"] for d, row in known.items() if not kind or row.get("kind") == kind}
        found = _similar(doc_id, index, peers, share)
        if found:
            company, votes = found
            book.assign(doc_id, company, round(votes / 2, 2),
                        f"similar text: {votes:.0%} of the best matching documents are {company}'s")
            counts["similar"] += 1
        else:
            counts["unknown"] += 1
    return counts


def _similar(doc_id: str, index: TextIndex, known_company: dict[str, str], share: float) -> tuple[str, float] | None:
    own = index.search(SearchQuery(doc_ids=(doc_id,), kinds=("text", "table"), limit=SIMILAR_CHUNKS))
    text = "\n".join(h.chunk.text for h in own)[:QUERY_CHARS]
    if not text.strip():
        return None
    votes: dict[str, float] = defaultdict(float)
    for hit in index.search(SearchQuery(text=text, kinds=("text", "table"), limit=SIMILAR_HITS)):
        company = known_company.get(hit.chunk.doc_id)
        if company and hit.chunk.doc_id != doc_id:
            votes[company] += hit.score
    total = sum(votes.values())
    if not total:
        return None
    company = max(votes, key=votes.get)
    return (company, votes[company] / total) if votes[company] / total >= share else None
