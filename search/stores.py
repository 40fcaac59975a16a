"""Open the stores the settings name: the text index (tantivy on disk or Elasticsearch) and the facts store
(SQLite under the index folder or the Elasticsearch facts index).

>>> index = open_text_index(IndexSettings(Path(".index")))        # search.embedded.EmbeddedIndex
>>> index = open_text_index(IndexSettings(Path(".index"), backend="elasticsearch"))   # search.elastic.ElasticIndex
>>> facts = open_fact_store(IndexSettings(Path(".index")))         # search.sqlite_facts.SqliteFactStore

Pass the tokenizer the caller also uses for its own matching (with company
names added), so index and queries see the same words.
"""
from __future__ import annotations

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
