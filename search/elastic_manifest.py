"""The ingest manifest of a corpus on Elasticsearch, next to its data: index `{es_prefix}-manifest`.

Any machine can resume or verify an ingest from it: the local INDEX_DIR only
caches it. A wiped server has no manifest, so the next ingest re-does every
document instead of trusting a local cache that describes data that is gone.

>>> mirror = ElasticManifest(IndexSettings(Path(".index"), backend="elasticsearch", es_prefix="finqa-annual"))
>>> manifest = Manifest.load(settings.manifest_path, mirror)
>>> delete_corpus(settings)      # chunks, facts and manifest of the corpus
"""

from __future__ import annotations

import hashlib

from elasticsearch import ApiError, Elasticsearch, TransportError, helpers

from core.errors import StoreError
from search.elastic import ElasticStore, connect, ensure_index, request_failed
from search.settings import IndexSettings

MAPPING_VERSION = 1
MAPPING = {
    "dynamic": "strict",
    "_meta": {"finqa_mapping": MAPPING_VERSION},
    "properties": {
        "kind": {"type": "keyword"},  # "header" (one document) or "document"
        "doc_id": {"type": "keyword"},
        "values": {"type": "object", "enabled": False},  # a ManifestEntry's fields, or the header
    },
}
HEADER_ID = "header"
STORE_SUFFIXES = ("chunks", "facts", "manifest")


class ElasticManifest(ElasticStore):
    """Implements core.manifest.ManifestMirror in `{es_prefix}-manifest`."""

    suffix = "manifest"

    def __init__(self, settings: IndexSettings, client: Elasticsearch | None = None):
        super().__init__(settings, client, bulk_size=1000)

    def exists(self) -> bool:
        return bool(self._call(lambda: self.client.indices.exists(index=self.name)))

    def header(self) -> dict | None:
        """The manifest's header alone (`stores`, `corpus`), None when the corpus has none on the server."""
        found = self._call(lambda: self.client.options(ignore_status=404).get(index=self.name, id=HEADER_ID))
        return dict(found["_source"]["values"]) if found.get("found") else None

    def load(self) -> dict | None:
        if not self.exists():
            return None
        header, documents = None, {}
        for hit in self._call(
            lambda: list(
                helpers.scan(self.client, index=self.name, size=2000, query={"query": {"match_all": {}}})
            )
        ):
            source = hit["_source"]
            if source["kind"] == "header":
                header = dict(source["values"])
            else:
                documents[source["doc_id"]] = source["values"]
        if header is None:
            return None if not documents else {"version": None, "documents": documents}
        return dict(header, documents=documents)

    def save(self, header: dict, changed: dict[str, dict], removed: list[str]) -> None:
        ensure_index(self.client, self.name, MAPPING, MAPPING_VERSION, self.settings.es_url)
        actions = [{"_op_type": "delete", "_index": self.name, "_id": _entry_id(d)} for d in removed]
        actions += [
            {"_index": self.name, "_id": _entry_id(d), "kind": "document", "doc_id": d, "values": v}
            for d, v in changed.items()
        ]
        actions.append(
            {"_index": self.name, "_id": HEADER_ID, "kind": "header", "doc_id": "", "values": header}
        )
        self._bulk(actions, "manifest entries", missing_ok=True)
        self._call(lambda: self.client.indices.refresh(index=self.name))


def delete_corpus(settings: IndexSettings) -> list[str]:
    """Delete the corpus's chunks, facts and manifest from the server; the names of the indices deleted."""
    client = connect(settings.es_url)
    try:
        names = [f"{settings.es_prefix}-{suffix}" for suffix in STORE_SUFFIXES]
        found = [name for name in names if client.indices.exists(index=name)]
        for name in found:
            client.indices.delete(index=name)
        return found
    except ApiError as exc:
        raise StoreError(
            f"cannot delete the corpus {settings.es_prefix}: {exc.error}", settings.es_url
        ) from None
    except TransportError as exc:
        raise request_failed(exc, settings.es_url) from None
    finally:
        client.close()


def _entry_id(doc_id: str) -> str:
    """A document id of any length as an Elasticsearch _id (at most 512 bytes)."""
    return "d-" + hashlib.sha256(doc_id.encode("utf-8", "surrogateescape")).hexdigest()
