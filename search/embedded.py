"""The embedded text index: tantivy on disk under IndexSettings.text_dir.

Text is tokenized in Python (search.tokenize) and indexed as whitespace-joined
tokens with tantivy's whitespace tokenizer, so tantivy never re-tokenizes CJK
and scores exactly the tokens Elasticsearch scores (BM25 on both).

>>> index = EmbeddedIndex(IndexSettings(Path(".index")))
>>> index.add(chunks); index.commit()
>>> index.search(SearchQuery(text="保單借款的可借金額上限", doc_ids=("insurance",)))[0].chunk.doc_id
>>> index.close()

Only one process may write at a time (tantivy's writer lock); any number may
search. Changes not committed when the index is closed are dropped.

Each commit leaves a segment, and every search pays per segment: a writer that
added every chunk the index holds (a fresh ingest) writes them again as one
segment with compact(), from what it kept while adding (search/added_chunks.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

import tantivy

from core.errors import InputError, StoreError
from core.lru import LeastRecent
from core.records import Chunk
from search.added_chunks import MAX_KEPT, AddedChunks
from search.backend import Hit, SearchQuery
from search.index_terms import (
    CHUNK_FIELD_NAMES,
    TIE_MARGIN,
    QueryTerms,
    best_first,
    chunk_terms,
    contenders,
    query_terms,
)
from search.settings import IndexSettings
from search.tokenize import Tokenizer

GENERATION_FILE = "generation"  # not a tantivy file: tantivy ignores it
_KEYWORD = "raw"  # tantivy's built-in tokenizers: "raw" keeps the value whole,
_TOKENS = "whitespace"  # "whitespace" splits our pre-tokenized text on spaces only

_TITLES = CHUNK_FIELD_NAMES.index("titles")
_new_chunk = object.__new__
# The stored chunk: a JSON array of Chunk's fields in their order, read back in half the time of a JSON object (a
# search reads ~40). The field's name carries a digest of those names, so an index stored with other fields has
# another schema and is refused (_open), never misread.
_STORED = "chunk_" + hashlib.sha256(" ".join(CHUNK_FIELD_NAMES).encode()).hexdigest()[:8]
FORMAT = _STORED.removeprefix("chunk_")  # names the layout this code writes (a cache of an index keys on it)
# A text field, since tantivy reads a stored bytes field back a byte at a time; indexed (tantivy-py indexes every
# text field) by this tokenizer, whose one raw token is always dropped as too long: stored, never searched.
STORED_TOKENIZER = "finqa_stored_only"


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(
        "chunk_id", fast=True, tokenizer_name=_KEYWORD
    )  # fast: filter-only queries sort by it
    for name in ("doc_id", "doc_prefixes", "company", "year", "kind"):
        builder.add_text_field(name, tokenizer_name=_KEYWORD)
    builder.add_text_field("body", tokenizer_name=_TOKENS)
    builder.add_text_field("titles", tokenizer_name=_TOKENS)
    builder.add_text_field(_STORED, stored=True, tokenizer_name=STORED_TOKENIZER, index_option="basic")
    return builder.build()


def _document(fields: tuple) -> tantivy.Document:
    """The tantivy document of a chunk's field values, in EmbeddedIndex.add's order."""
    chunk_id, doc_id, doc_prefixes, company, year, kind, body, titles, stored = fields
    doc = tantivy.Document()
    doc.add_text("chunk_id", chunk_id)
    doc.add_text("doc_id", doc_id)
    for prefix in doc_prefixes:
        doc.add_text("doc_prefixes", prefix)
    doc.add_text("company", company)
    doc.add_text("year", year)
    doc.add_text("kind", kind)
    doc.add_text("body", body)
    doc.add_text("titles", titles)
    doc.add_text(_STORED, stored)
    return doc


def _stored_form(chunk: Chunk) -> str:
    return json.dumps([getattr(chunk, name) for name in CHUNK_FIELD_NAMES], ensure_ascii=False)


# json's C scanner called directly: json.loads less its Python wrapper and its two whitespace matches (the stored
# form, json.dumps', has no whitespace around it). A fifth of decoding a chunk.
_SCAN_JSON = json.JSONDecoder().scan_once


def _chunk_of(stored: str | None) -> Chunk:
    """The chunk of its stored form; a ValueError when that is damaged or missing."""
    if type(stored) is not str:
        raise ValueError("a document without its stored chunk")
    try:
        values, end = _SCAN_JSON(stored, 0)
    except StopIteration:
        raise ValueError("a stored chunk is not JSON") from None
    if (
        end != len(stored)
        or type(values) is not list
        or len(values) != len(CHUNK_FIELD_NAMES)
        or type(values[_TITLES]) is not list
    ):
        raise ValueError("a stored chunk is not a list of the chunk's fields")
    values[_TITLES] = tuple(values[_TITLES])
    # Every field given, in order: set at once, not one object.__setattr__ each as a frozen dataclass's __init__
    # does (half the rest of the decoding; a search decodes ~40 chunks it has not met before).
    chunk = _new_chunk(Chunk)
    chunk.__dict__.update(zip(CHUNK_FIELD_NAMES, values))
    return chunk


class EmbeddedIndex:
    """A chunk index in a directory; implements search.backend.TextIndex.

    `writer_heap_mb` bounds the memory tantivy's writer buffers before it
    flushes a segment; `cached_chunks` how many chunks read from the index are
    kept decoded; `kept_chunks` how many added chunks are kept for compact().
    """

    def __init__(
        self,
        settings: IndexSettings,
        tokenizer: Tokenizer | None = None,
        writer_heap_mb: int = 128,
        cached_chunks: int = 16384,
        kept_chunks: int = MAX_KEPT,
    ):
        if writer_heap_mb < 16:
            raise InputError(f"writer_heap_mb must be at least 16, got {writer_heap_mb}")
        if cached_chunks < 1:
            raise InputError(f"cached_chunks must be positive, got {cached_chunks}")
        if kept_chunks < 0:
            raise InputError(f"kept_chunks must not be negative, got {kept_chunks}")
        self.settings = settings
        self.directory = Path(settings.text_dir)
        self._heap = writer_heap_mb * 1_000_000
        self._writer: tantivy.IndexWriter | None = None
        self._titles_cache: dict = {}
        # Chunks by their address in the reader's current generation (see _searcher): a batch of questions about
        # one report reads the same chunks again and again.
        self._chunks: LeastRecent[tuple[int, int], Chunk] = LeastRecent(cached_chunks)
        self._generation: tuple[int, int, int] | None = (
            None  # meta.json's (inode, mtime, size) the reader was loaded at
        )
        self._meta = str(self.directory / "meta.json")  # tantivy's list of committed segments
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the index directory: {exc.strerror}", str(self.directory)
            ) from None
        self._index = self._open()
        self.tokenizer = tokenizer or Tokenizer()
        # what this session's writer added, for compact()
        self._added = AddedChunks(self.directory, kept_chunks)
        self._uncommitted = False  # added or deleted since the last commit

    def add(self, chunks: Iterable[Chunk]) -> int:
        writer = self._writable()
        n = 0
        for chunk in chunks:
            terms = chunk_terms(self.tokenizer, chunk, self._titles_cache)
            fields = (
                chunk.chunk_id,
                chunk.doc_id,
                terms.doc_prefixes,
                terms.company,
                terms.year,
                chunk.kind,
                terms.body,
                terms.titles,
                _stored_form(chunk),
            )
            # Deletes apply to documents added before them, so this replaces an older copy only.
            writer.delete_documents_by_term("chunk_id", chunk.chunk_id)
            writer.add_document(_document(fields))
            self._added.add(chunk.chunk_id, chunk.doc_id, fields)
            n += 1
        self._uncommitted = self._uncommitted or n > 0
        return n

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        writer = self._writable()
        doc_ids = list(doc_ids)
        for doc_id in doc_ids:
            writer.delete_documents_by_term("doc_id", doc_id)
        self._added.delete_documents(doc_ids)
        self._uncommitted = self._uncommitted or bool(doc_ids)

    def commit(self) -> None:
        if self._writer is None:
            return
        try:
            self._writer.commit()
        except ValueError as exc:
            raise StoreError(f"cannot commit the text index: {exc}", str(self.directory)) from None
        self._uncommitted = False
        self._reload()

    def compact(self) -> bool:
        """Write the index again as one segment (searches pay per segment) when this writer added every
        document it holds and they lie in several: from what it added (search.added_chunks), in one commit,
        so an interruption keeps the segments as they were. False when there was nothing to do."""
        if self._writer is None or self._uncommitted or self._added.overflowed or not len(self._added):
            return False
        searcher = self._searcher()
        if searcher.num_segments < 2 or searcher.num_docs != len(self._added):
            return False  # documents of earlier sessions have no tokens kept: tantivy's merges keep those
        self._writer.delete_all_documents()  # takes effect with the commit below
        for fields in self._added.in_chunk_order():
            self._writer.add_document(_document(fields))
        self._uncommitted = True
        self.commit()
        return True

    def search(self, query: SearchQuery) -> list[Hit]:
        if query.limit < 1:
            return []
        terms = query_terms(self.tokenizer, query)
        plan = self._query(terms, query)
        if plan is None:
            return []
        try:
            searcher = self._searcher()
            if not terms.scored:  # filters alone: every match scores 0, so take them in chunk_id order
                found = searcher.search(
                    plan, limit=query.limit, count=False, order_by_field="chunk_id", order=tantivy.Order.Asc
                ).hits
                return [Hit(self._stored(searcher, address), 0.0) for _, address in found]
            found = contenders(
                searcher.search(plan, limit=query.limit + TIE_MARGIN, count=False).hits, query.limit
            )
            return best_first(
                [Hit(self._stored(searcher, address), score) for score, address in found], query.limit
            )
        except (ValueError, OSError) as exc:
            raise StoreError(
                f"cannot read the text index ({exc}); delete the directory and ingest again",
                str(self.directory),
            ) from None

    def search_many(self, queries: Sequence[SearchQuery]) -> list[list[Hit]]:
        """The hits of each query, in order (in-process: one search after another)."""
        return [self.search(query) for query in queries]

    def count(self) -> int:
        return self._searcher().num_docs

    def generation(self) -> str:
        """An id made with the index (kept in GENERATION_FILE): a new one when the index is made again."""
        path = self.directory / GENERATION_FILE
        try:
            return path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            try:
                path.write_text(uuid.uuid4().hex, encoding="ascii")
            except OSError:
                return ""  # a read-only index made before generations were kept
            return path.read_text(encoding="ascii").strip()

    def close(self) -> None:
        """Release the writer lock; uncommitted changes are dropped."""
        writer, self._writer = self._writer, None
        self._added.close()
        if writer is not None:
            writer.rollback()
            writer.wait_merging_threads()

    def __enter__(self) -> EmbeddedIndex:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def _searcher(self) -> tantivy.Searcher:
        """A searcher of the last commit, whoever made it. The reader reloads only here and in commit() (its reload
        policy is manual), so a chunk's address stays valid for _chunks until the index's meta.json changes."""
        if self._meta_generation() != self._generation:
            self._reload()
        return self._index.searcher()

    def _meta_generation(self) -> tuple[int, int, int] | None:
        try:
            meta = os.stat(self._meta)
        except FileNotFoundError:
            return None
        return meta.st_ino, meta.st_mtime_ns, meta.st_size

    def _reload(self) -> None:
        # Read before the reload: a commit in between makes the next search reload once more, never serve stale.
        self._generation = self._meta_generation()
        self._index.reload()
        self._chunks.clear()

    def _stored(self, searcher: tantivy.Searcher, address) -> Chunk:
        key = (address.segment_ord, address.doc)
        chunk = self._chunks.get(key)
        if chunk is None:
            chunk = self._chunks[key] = _chunk_of(searcher.doc(address).get_first(_STORED))
        return chunk

    def _open(self) -> tantivy.Index:
        path = str(self.directory)
        try:
            index = tantivy.Index(_schema(), path=path, reuse=True)
            stored_only = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw()).filter(
                tantivy.Filter.remove_long(1)
            )
            index.register_tokenizer(STORED_TOKENIZER, stored_only.build())
            index.config_reader(reload_policy="Manual")  # see _searcher
            return index
        except ValueError as exc:
            if "schema does not match" in str(exc):
                reason = "was built by another version of finqa (its schema differs)"
            elif "ReadOnlyFilesystem" in str(exc) or "PermissionDenied" in str(exc):
                raise StoreError(
                    "the text index is read-only here, and tantivy must write its lock file "
                    "(.tantivy-meta.lock) even to read: copy INDEX_DIR to a writable place",
                    path,
                ) from None
            else:
                reason = f"is damaged ({exc})"
            raise StoreError(
                f"the text index {reason}; ingest again into a new INDEX_DIR (this one is kept)", path
            ) from None

    def _writable(self) -> tantivy.IndexWriter:
        if self._writer is None:
            try:
                self._writer = self._index.writer(heap_size=self._heap, num_threads=1)
            except ValueError as exc:
                if "LockBusy" in str(exc):
                    raise StoreError(
                        "the text index is locked by another writer (is another ingest running?)",
                        str(self.directory),
                    ) from None
                if "ReadOnlyFilesystem" in str(exc) or "PermissionDenied" in str(exc):
                    raise StoreError(
                        "the text index is read-only: cannot ingest into it", str(self.directory)
                    ) from None
                raise StoreError(f"cannot write the text index: {exc}", str(self.directory)) from None
        return self._writer

    def _query(self, terms: QueryTerms, query: SearchQuery) -> tantivy.Query | None:
        """Filters must match (scoring nothing); at least one should-clause must match when there are any."""
        schema = self._index.schema
        Q, must, should = tantivy.Query, tantivy.Occur.Must, tantivy.Occur.Should
        clauses = []
        for field, values in (
            ("company", terms.companies),
            ("year", terms.years),
            ("doc_prefixes", terms.doc_prefixes),
            ("kind", terms.kinds),
        ):
            if values:
                # Term queries, not a term set query: tantivy builds a set query's matches as a bitset over the whole
                # index, while a term query's postings are skipped through (2.6x faster on a report's tables).
                any_of = Q.boolean_query([(should, Q.term_query(schema, field, value)) for value in values])
                clauses.append((must, Q.const_score_query(any_of, 0.0)))
        scoring = []
        if terms.body:
            scoring.append(Q.boolean_query([(should, Q.term_query(schema, "body", t)) for t in terms.body]))
        for words, slop in terms.phrases:
            phrase = (
                Q.term_query(schema, "body", words[0])
                if len(words) == 1
                else Q.phrase_query(schema, "body", list(words), slop=slop)
            )
            scoring.append(Q.boost_query(phrase, query.phrase_boost))
        if terms.titles:
            titles = Q.boolean_query([(should, Q.term_query(schema, "titles", t)) for t in terms.titles])
            scoring.append(Q.boost_query(titles, query.title_boost))
        if scoring:
            clauses.append((must, Q.boolean_query([(should, q) for q in scoring])))
        if not clauses:
            return None
        return Q.boolean_query(clauses)
