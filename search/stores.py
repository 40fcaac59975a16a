"""Open the stores the settings name: the text index (tantivy on disk or Elasticsearch) and the facts store
(SQLite under the index folder or the Elasticsearch facts index).

>>> index = open_text_index(IndexSettings(Path(".index")))        # search.embedded.EmbeddedIndex
>>> index = open_text_index(IndexSettings(Path(".index"), backend="elasticsearch"))   # search.elastic.ElasticIndex
>>> facts = open_fact_store(IndexSettings(Path(".index")))         # search.sqlite_facts.SqliteFactStore

Pass the tokenizer the caller also uses for its own matching (with company
names added), so index and queries see the same words.

Opening a store makes an empty one where there is none (an ingest needs that). A command that only reads
calls `require_stores` first: a store that vanished (deleted, a wiped server) would otherwise be answered from
as an empty corpus, "not found" for every question.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

from core.errors import StoreError
from search.backend import FactStore, TextIndex
from search.settings import IndexSettings
from search.tokenize import Tokenizer


def open_text_index(settings: IndexSettings, tokenizer: Tokenizer | None = None) -> TextIndex:
    if settings.backend == "elasticsearch":
        from search.elastic import ElasticIndex  # the client is only imported when used

        return ElasticIndex(settings, tokenizer)
    from search.embedded import EmbeddedIndex

    return EmbeddedIndex(settings, tokenizer)


def open_fact_store(settings: IndexSettings) -> FactStore:
    """The facts store the settings name: SQLite under index_dir, or the Elasticsearch facts index."""
    if settings.backend == "elasticsearch":
        from search.elastic_facts import ElasticFactStore

        return ElasticFactStore.connect(settings)
    from search.sqlite_facts import SqliteFactStore

    return SqliteFactStore(settings.facts_path)


def require_stores(settings: IndexSettings, recorded: dict[str, str]) -> None:
    """StoreError (a damaged index: what to run) unless the text index and the facts store exist and, where the
    manifest `recorded` their generation ids, are the stores it describes. Reads only: nothing is created."""
    found = (
        _server_generations(settings) if settings.backend == "elasticsearch" else _local_generations(settings)
    )
    for key, name in (("text", "the text index"), ("facts", "the facts store")):
        generation = found[key]
        if generation is None:
            problem = "is missing"
        elif recorded.get(key) and generation and generation != recorded[key]:
            problem = "is not the one the ingest made (deleted and made again since)"
        else:
            continue
        where = settings.es_url if settings.backend == "elasticsearch" else str(settings.index_dir)
        raise StoreError(
            f"damaged index: {name} {problem}; ingest the corpus again (python -m parser.ingest "
            f"CORPUS --index DIR{_backend_options(settings)})",
            where,
        )


def _backend_options(settings: IndexSettings) -> str:
    return " --backend elasticsearch --es-index NAME" if settings.backend == "elasticsearch" else ""


def _local_generations(settings: IndexSettings) -> dict[str, str | None]:
    """Each embedded store's generation id, "" when it keeps none, None when the store is missing."""
    from search.embedded import GENERATION_FILE

    text: str | None = None
    if (settings.text_dir / "meta.json").is_file():
        generation = settings.text_dir / GENERATION_FILE
        text = (
            generation.read_text(encoding="ascii", errors="replace").strip() if generation.is_file() else ""
        )
    facts: str | None = None
    if settings.facts_path.is_file() and settings.facts_path.stat().st_size:
        try:
            with closing(
                sqlite3.connect(f"{settings.facts_path.resolve().as_uri()}?mode=ro", uri=True)
            ) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
            facts = row[0] if row else ""
        except (
            sqlite3.OperationalError
        ):  # a store made before generations were kept, or one this user cannot lock
            facts = ""
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"the facts store is damaged ({exc}); ingest again into a new INDEX_DIR (this one is kept)",
                str(settings.facts_path),
            ) from None
    return {"text": text, "facts": facts}


def _server_generations(settings: IndexSettings) -> dict[str, str | None]:
    """Each Elasticsearch index's uuid, None when the index is missing."""
    from search.elastic import connect, index_generation

    client = connect(settings.es_url)
    try:
        found: dict[str, str | None] = {}
        for key, suffix in (("text", "chunks"), ("facts", "facts")):
            name = f"{settings.es_prefix}-{suffix}"
            exists = client.options(ignore_status=404).indices.exists(index=name)
            found[key] = index_generation(client, name, settings.es_url) if exists else None
        return found
    finally:
        client.close()
