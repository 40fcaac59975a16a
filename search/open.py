"""Open the text index the settings name: tantivy on disk or Elasticsearch.

>>> index = open_text_index(IndexSettings(Path(".index")))        # search.embedded.EmbeddedIndex
>>> index = open_text_index(IndexSettings(Path(".index"), backend="elasticsearch"))   # search.elastic.ElasticIndex

Pass the tokenizer the caller also uses for its own matching (with company
names added), so index and queries see the same words.
"""
from __future__ import annotations

from search.backend import TextIndex
from search.settings import IndexSettings
from search.tokenize import Tokenizer


def open_text_index(settings: IndexSettings, tokenizer: Tokenizer | None = None) -> TextIndex:
    if settings.backend == "elasticsearch":
        from search.elastic import ElasticIndex  # the client is only imported when used

        return ElasticIndex(settings, tokenizer)
    from search.embedded import EmbeddedIndex

    return EmbeddedIndex(settings, tokenizer)
