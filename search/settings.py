"""Where the index lives and which backend serves it: one place for it."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from parser.errors import InputError

BACKENDS = ("embedded", "elasticsearch")
DEFAULT_ES_URL = "http://127.0.0.1:9200"


@dataclass(frozen=True)
class IndexSettings:
    """Settings of the text index and the facts store.

    >>> IndexSettings(Path(".index"))                       # tantivy + SQLite under .index/
    >>> IndexSettings(Path(".index"), backend="elasticsearch", es_url="http://127.0.0.1:9200")

    With Elasticsearch, chunks and facts live in the server (indices named
    `{es_prefix}-chunks` and `{es_prefix}-facts`); INDEX_DIR still holds the
    ingest manifest, the report and the table workbooks.
    """

    index_dir: Path
    backend: str = "embedded"
    es_url: str = ""
    es_prefix: str = "finqa"

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise InputError(f"unknown backend {self.backend!r}; choose one of {', '.join(BACKENDS)}")
        if not self.es_url:
            object.__setattr__(self, "es_url", os.environ.get("FINQA_ES_URL", DEFAULT_ES_URL))
        if not self.es_prefix or not self.es_prefix.replace("-", "").replace("_", "").isalnum() or self.es_prefix != self.es_prefix.lower():
            raise InputError(f"es_prefix {self.es_prefix!r} must be lower-case letters, digits, '-' or '_'")

    @property
    def text_dir(self) -> Path:
        return self.index_dir / "text"

    @property
    def facts_path(self) -> Path:
        return self.index_dir / "facts.sqlite"

    @property
    def tables_dir(self) -> Path:
        return self.index_dir / "tables"

    @property
    def manifest_path(self) -> Path:
        return self.index_dir / "manifest.json"

    @property
    def identities_path(self) -> Path:
        """Each document's company, period and kind (parser/identity.py IdentityBook)."""
        return self.index_dir / "identities.json"

    @property
    def report_path(self) -> Path:
        return self.index_dir / "ingest_report.json"
