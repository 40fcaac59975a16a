"""What a chunk and a query become in a text index, the same for tantivy and Elasticsearch.

A chunk is indexed as whitespace-joined tokens per field (body, titles, company,
year, document-id prefixes) beside its stored form; a query becomes the same
fields' tokens and filters. Both backends build these here, so they rank alike
(`best_first`, `TIE_MARGIN`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from core.language import ZH, language_of
from core.records import Chunk
from search.backend import Hit, SearchQuery
from search.tokenize import Tokenizer

# Stands in for an empty body or titles field. Elasticsearch leaves a field with
# no tokens out of BM25's average length and tantivy does not; a placeholder
# token (the tokenizer never makes it: it has no word character) keeps the two equal.
EMPTY_FIELD = "∅"

# The company and year indexed for a chunk that has none, and added to every company and year filter:
# a document whose identity is unknown is neither excluded by such a filter nor favoured.
UNKNOWN = EMPTY_FIELD


@dataclass(frozen=True)
class ChunkTerms:
    """What a backend indexes for one chunk besides the stored chunk itself."""

    body: str  # whitespace-joined tokens of the text
    titles: str  # whitespace-joined tokens of the heading path
    doc_prefixes: tuple[str, ...]  # the doc id and every "/"-prefix of it
    year: str  # UNKNOWN when the chunk has no year
    company: str = ""  # UNKNOWN when the chunk has no company


@dataclass(frozen=True)
class QueryTerms:
    """A SearchQuery turned into index terms.

    `phrases` holds (words, slop): the phrase's words in order, and how many
    word parts the index may have between them (see Tokenizer.phrase_tokens).
    """

    body: tuple[str, ...] = ()
    phrases: tuple[tuple[tuple[str, ...], int], ...] = ()
    titles: tuple[str, ...] = ()
    companies: tuple[str, ...] = ()
    years: tuple[str, ...] = ()
    doc_prefixes: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    @property
    def scored(self) -> bool:
        """Whether any clause scores; a query of filters alone gives every match score 0."""
        return bool(self.body or self.phrases or self.titles)

    @property
    def filtered(self) -> bool:
        return bool(self.companies or self.years or self.doc_prefixes or self.kinds)


def doc_prefixes(doc_id: str) -> tuple[str, ...]:
    """Every "/"-prefix of a document id, the id itself last.

    >>> doc_prefixes("S100IXUZ/S100IXUZ-0101010")
    ('S100IXUZ', 'S100IXUZ/S100IXUZ-0101010')
    """
    parts = [p for p in doc_id.split("/") if p]
    return tuple("/".join(parts[: i + 1]) for i in range(len(parts)))


def chunk_terms(tokenizer: Tokenizer, chunk: Chunk, titles_cache: dict | None = None) -> ChunkTerms:
    """The terms to index for a chunk. Title paths repeat across a document, so their tokens may be cached."""
    language = language_of(" ".join(chunk.titles) + "\n" + chunk.text)
    if titles_cache is not None:
        key = (chunk.titles, language)
        titles = titles_cache.get(key)
        if titles is None:
            if len(titles_cache) > 50_000:
                titles_cache.clear()
            titles = titles_cache[key] = (
                " ".join(tokenizer.tokens("\n".join(chunk.titles), language)) or EMPTY_FIELD
            )
    else:
        titles = " ".join(tokenizer.tokens("\n".join(chunk.titles), language)) or EMPTY_FIELD
    return ChunkTerms(
        body=" ".join(tokenizer.tokens(chunk.text, language)) or EMPTY_FIELD,
        titles=titles,
        doc_prefixes=doc_prefixes(chunk.doc_id),
        year=UNKNOWN if chunk.year is None else str(chunk.year),
        company=chunk.company or UNKNOWN,
    )


def query_terms(tokenizer: Tokenizer, query: SearchQuery) -> QueryTerms:
    """The terms of a query. Phrases and titles are read in the query's language, else in that of its text."""
    language = query.language or (language_of(query.text) if query.text.strip() else None)
    phrases = []
    for phrase in query.phrases:
        words = tuple(tokenizer.phrase_tokens(phrase, language))
        if words:
            phrases.append((words, len(tokenizer.tokens(phrase, language)) - len(words)))
    title_tokens = []
    for title in query.titles:
        chinese = (language or language_of(title)) == ZH
        title_tokens += [t for t in tokenizer.tokens(title, language) if not (chinese and _lone_hanzi(t))]
    return QueryTerms(
        body=tuple(dict.fromkeys(tokenizer.tokens(query.text, language))),
        phrases=tuple(dict.fromkeys(phrases)),
        titles=tuple(dict.fromkeys(title_tokens)),
        companies=_or_unknown(c for c in query.companies if c),
        years=_or_unknown(str(y) for y in query.years),
        doc_prefixes=tuple(dict.fromkeys(d.strip("/") for d in query.doc_ids if d.strip("/"))),
        kinds=tuple(dict.fromkeys(k for k in query.kinds if k)),
    )


def _lone_hanzi(token: str) -> bool:
    """A one-character Chinese word (有, 及, 的): in a heading it says nothing of the topic (或有事項 is not
    what 有關… asks about), so it does not match titles; it still counts in the body."""
    return len(token) == 1 and "\u3400" <= token <= "\u9fff"


def _or_unknown(values: Iterable[str]) -> tuple[str, ...]:
    """Filter values plus UNKNOWN (when there are any): chunks of an unknown company or year pass the filter."""
    values = tuple(dict.fromkeys(values))
    return values + (UNKNOWN,) if values else ()


# Hits fetched beyond the limit so that ties at the cut are broken by chunk_id
# on both backends (each engine breaks ties by its own internal order).
TIE_MARGIN = 20


def best_first(hits: list[Hit], limit: int) -> list[Hit]:
    """Highest score first, ties by chunk_id; at most `limit`."""
    return sorted(hits, key=lambda h: (-h.score, h.chunk.chunk_id))[:limit]


def contenders(scored: list[tuple[float, object]], limit: int) -> list[tuple[float, object]]:
    """The (score, address) pairs best_first may keep of these: the `limit` best and any tied with the last of
    them, whose chunk ids break the tie. Only these need their stored chunk read.

    >>> contenders([(3.0, "a"), (2.0, "b"), (2.0, "c"), (1.0, "d")], 2)
    [(3.0, 'a'), (2.0, 'b'), (2.0, 'c')]
    """
    if len(scored) <= limit:
        return scored
    last = sorted((score for score, _ in scored), reverse=True)[limit - 1]
    return [pair for pair in scored if pair[0] >= last]


def chunk_to_stored(chunk: Chunk) -> dict:
    """The chunk as a JSON-able dict, as Elasticsearch stores it (the embedded index stores a JSON array of the
    fields, search/embedded.py): `dataclasses.asdict`'s, without its deep copy
    (a chunk holds strings, numbers and a tuple of strings; the copy was a sixth of indexing a chunk)."""
    return {name: getattr(chunk, name) for name in CHUNK_FIELD_NAMES}


# in Chunk's order: the stored forms' fields
CHUNK_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Chunk))
_CHUNK_FIELDS = frozenset(CHUNK_FIELD_NAMES)


def chunk_from_stored(stored: dict) -> Chunk:
    """The chunk of a stored dict; keys of other versions are left out."""
    # Every hit a search returns is decoded here: the keys are filtered one by one only when some are not Chunk's.
    values = (
        dict(stored)
        if stored.keys() <= _CHUNK_FIELDS
        else {k: v for k, v in stored.items() if k in _CHUNK_FIELDS}
    )
    values["titles"] = tuple(values.get("titles") or ())
    return Chunk(**values)
