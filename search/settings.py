"""Where the index lives and which backend serves it: one place for it."""

from __future__ import annotations

import argparse
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import InputError
from core.workbook_layout import TABLES_FOLDER, document_file, workbook_file

BACKENDS = ("embedded", "elasticsearch")
DEFAULT_ES_URL = "http://127.0.0.1:9200"
_NOT_INDEX_CHAR = re.compile(r"[^a-z0-9_-]+")


def add_index_options(ap: argparse.ArgumentParser, corpus_name_default: str) -> None:
    """The options that say where an index lives, shared by every command that reads or writes one
    (parser.ingest, qa.run, serve). Their values are validated by `IndexSettings`, in one place."""
    ap.add_argument(
        "--backend",
        default="embedded",
        help=f"one of {', '.join(BACKENDS)}: files under the index folder (the default) or an Elasticsearch server",
    )
    ap.add_argument(
        "--es-url", default="", help=f"Elasticsearch URL (default: $FINQA_ES_URL or {DEFAULT_ES_URL})"
    )
    ap.add_argument(
        "--es-index",
        metavar="NAME",
        default="",
        help=f"the corpus's name on the server: indices finqa-NAME-chunks/-facts/-manifest (default: {corpus_name_default})",
    )


def corpus_prefix(name: str) -> str:
    """The Elasticsearch index prefix of the corpus called `name`: `finqa-NAME`, made a valid index name.

    Two names never share a prefix: a name that had to be changed (upper case,
    spaces, CJK) gets a short hash of the name as given.

    >>> corpus_prefix("annual"), corpus_prefix("年报 2023")
    ('finqa-annual', 'finqa-2023-21c6b479')
    """
    if not name.strip():
        raise InputError("a corpus name (--es-index) must not be empty")
    slug = _NOT_INDEX_CHAR.sub("-", name.lower()).strip("-_")[:60]
    if slug != name:
        slug = f"{slug}-{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}".lstrip("-")
    return f"finqa-{slug}"


@dataclass(frozen=True)
class IndexSettings:
    """Settings of the text index and the facts store.

    >>> local = IndexSettings(Path(".index"))               # tantivy + SQLite under .index/
    >>> server = IndexSettings(Path(".index"), backend="elasticsearch", es_url="http://127.0.0.1:9200")

    With Elasticsearch, chunks, facts and the ingest manifest live in the
    server (indices `{es_prefix}-chunks`, `{es_prefix}-facts` and
    `{es_prefix}-manifest`; the CLI names them per corpus with
    `corpus_prefix`); INDEX_DIR holds a cache of the manifest, the report and
    the table workbooks.
    """

    index_dir: Path
    backend: str = "embedded"
    es_url: str = field(default="", repr=False)  # may carry user:password@
    es_prefix: str = "finqa"

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise InputError(f"unknown backend {self.backend!r}; choose one of {', '.join(BACKENDS)}")
        if not self.es_url:
            object.__setattr__(self, "es_url", os.environ.get("FINQA_ES_URL", DEFAULT_ES_URL))
        if (
            not self.es_prefix
            or not self.es_prefix.replace("-", "").replace("_", "").isalnum()
            or self.es_prefix != self.es_prefix.lower()
        ):
            raise InputError(f"es_prefix {self.es_prefix!r} must be lower-case letters, digits, '-' or '_'")

    @property
    def text_dir(self) -> Path:
        return self.index_dir / "text"

    @property
    def facts_path(self) -> Path:
        return self.index_dir / "facts.sqlite"

    @property
    def tables_dir(self) -> Path:
        return self.index_dir / TABLES_FOLDER

    @property
    def layout_dir(self) -> Path:
        """Each PDF's page layout (core/layout.py): where its lines and table words are printed."""
        return self.index_dir / "layout"

    def tables_path(self, doc_id: str) -> Path:
        """A document's tables workbook (parser/workbook.py; core/workbook_layout.py names it)."""
        return self.index_dir / workbook_file(doc_id)

    def layout_path(self, doc_id: str) -> Path:
        """A document's page layout file (core/layout.py)."""
        return document_file(self.layout_dir, doc_id, ".json")

    @property
    def laws_dir(self) -> Path:
        """The register of law titles (search/law_register.py)."""
        return self.index_dir / "laws"

    @property
    def manifest_path(self) -> Path:
        return self.index_dir / "manifest.json"

    @property
    def identities_path(self) -> Path:
        """Each document's company, period and kind (core/identity.py IdentityBook)."""
        return self.index_dir / "identities.json"

    @property
    def report_path(self) -> Path:
        return self.index_dir / "ingest_report.json"


def index_settings(
    index_dir: Path,
    backend: str = "embedded",
    es_url: str = "",
    es_index: str = "",
    corpus: Path | None = None,
) -> IndexSettings:
    """The settings of the index a command names. On Elasticsearch the corpus name is `es_index`, else the one
    INDEX_DIR's manifest records, else the corpus folder's name; InputError when there is none."""
    if backend != "elasticsearch":
        return IndexSettings(index_dir, backend=backend, es_url=es_url)
    from core.manifest import Manifest

    prefix = (
        corpus_prefix(es_index)
        if es_index
        else Manifest.read_cache(Path(index_dir) / "manifest.json").get("corpus")
    )
    if not prefix:
        if corpus is None:
            raise InputError("which corpus on the server? name it with --es-index NAME", str(index_dir))
        prefix = corpus_prefix(corpus.resolve().name)
    return IndexSettings(index_dir, backend=backend, es_url=es_url, es_prefix=prefix)
