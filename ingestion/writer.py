"""Write parsed documents to the stores in batches: text index, facts store, tables workbooks and page
layouts, then the manifest.

The manifest is written last, so an interrupted run re-does at most one batch;
verify_stores notices a lost or emptied store so every document is ingested again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError
from core.identity import IdentityBook, IdentityRules
from core.layout import write_layout
from core.manifest import Manifest, ManifestEntry
from core.records import FileReport
from core.workbook_layout import name_digest
from ingestion.attribution import attribute_companies
from ingestion.sources import Source
from ingestion.workers import Outcome
from parser.workbook import write_tables_workbook
from search.law_register import LawRegister
from search.settings import IndexSettings


def check_index_dir(index_dir: Path) -> None:
    """InputError when INDEX_DIR cannot be an index directory: an existing file, or a read-only folder."""
    if index_dir.exists() and not index_dir.is_dir():
        raise InputError("INDEX_DIR is an existing file, not a directory; name a directory", str(index_dir))
    if index_dir.is_dir() and not os.access(index_dir, os.W_OK):
        raise InputError(
            "INDEX_DIR is read-only: cannot ingest into it (nothing was changed)", str(index_dir)
        )


def open_manifest_mirror(settings: IndexSettings):
    """Where the manifest lives on the server (Elasticsearch), or None when the local file is the manifest."""
    if settings.backend != "elasticsearch":
        return None
    from search.elastic_manifest import ElasticManifest

    return ElasticManifest(settings)


def verify_stores(settings: IndexSettings, manifest: Manifest) -> list[str]:
    """Why the stores do not hold what the manifest lists ([] when they may be trusted).

    Each store has a generation id, made with it; the manifest records the
    ids of the stores its documents were written to. A store that was
    deleted, truncated, or made again on a wiped server has another id (or is
    empty where the manifest lists content), and is rebuilt from the corpus.
    """
    if not manifest.entries:
        return []
    from search.stores import open_fact_store, open_text_index

    problems = []
    for key, name, unit, opener in (
        ("text", "the text index", "chunks", open_text_index),
        ("facts", "the facts store", "facts", open_fact_store),
    ):
        store = opener(settings)
        try:
            recorded, expected = manifest.stores.get(key), manifest.expected(unit)
            if recorded and store.generation() != recorded:
                problems.append(
                    f"{name} is not the one the manifest describes (it was deleted, emptied or made "
                    f"again since the last ingest)"
                )
            elif expected and store.count() == 0:
                problems.append(f"{name} is empty, but the manifest lists {expected} {unit}")
        finally:
            store.close()
        del store  # drop the tantivy reader's threads before the parser pool forks
    return problems


@dataclass(frozen=True)
class Job:
    """A file to parse, with what the manifest will record for it."""

    source: Source
    sha256: str
    inputs_key: str
    size: int
    mtime_ns: int
    pages: int = 0  # a PDF's pages, from its page tree; 0 for other files


def failed_report(source: Source, errors: list[str], manifest: Manifest, seconds: float = 0.0) -> FileReport:
    errors = list(errors) or ["unknown error"]
    if source.doc_id in manifest.entries:
        errors.append("the previously indexed version is kept")
    return FileReport(source.rel, source.doc_id, "failed", seconds=round(seconds, 3), errors=errors)


class BatchWriter:
    """Writes parsed documents to the stores in batches: delete old, add new, commit, then the manifest.

    Opening takes the index's writer lock at once, so a locked index fails
    the run before any parsing (InputError).
    """

    def __init__(self, settings: IndexSettings, manifest: Manifest):
        from search.stores import open_fact_store, open_text_index

        self.manifest, self.settings = manifest, settings
        self.laws = LawRegister(settings.laws_dir)
        self.identities = IdentityBook.load(settings.identities_path)
        self.index = open_text_index(settings)
        try:
            self.index.delete_documents([])  # deleting nothing takes the writer lock
            self.facts = open_fact_store(settings)
        except BaseException:
            self.index.close()
            raise
        manifest.stores = {"text": self.index.generation(), "facts": self.facts.generation()}

    def finish(self) -> None:
        """Save the manifest once more: the stores' generations and the corpus name even when nothing changed."""
        self.manifest.save()

    def compact(self) -> bool:
        """The text index written again as searched fastest, when the ingest added all of it (a fresh one:
        search.added_chunks); everything is committed already, so Ctrl-C here loses nothing."""
        return self.index.compact()

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *_) -> None:
        try:
            self.index.close()
        finally:
            self.facts.close()

    def remove(self, entries: list[ManifestEntry]) -> None:
        ids = [e.doc_id for e in entries]
        self.index.delete_documents(ids)
        self.facts.delete_documents(ids)
        self.index.commit()
        self.facts.commit()
        for doc_id in ids:
            self.settings.tables_path(doc_id).unlink(missing_ok=True)
            self.settings.layout_path(doc_id).unlink(missing_ok=True)
            self.laws.remove(doc_id)
            self.manifest.forget(doc_id)
            self.identities.forget(doc_id)
        self.identities.save()
        self.manifest.save()

    def write(self, batch: list[tuple[Outcome, Job]]) -> list[FileReport]:
        ids = [outcome.source.doc_id for outcome, _ in batch]
        # delete first even for new documents: a run interrupted after a commit may have added them already
        self.index.delete_documents(ids)
        self.facts.delete_documents(ids)
        reports = []
        for outcome, job in batch:
            document, source = outcome.document, outcome.source
            chunks = self.index.add(document.chunks)
            facts = self.facts.add(document.facts, document.reports)
            errors = list(document.warnings)
            # the parsers hand the tables themselves over as `table_list` (see the report: a field to add)
            errors += self._write_tables(
                source.doc_id, document.table_list, document.facts, document.meta.language
            )
            write_layout(self.settings.layout_path(source.doc_id), document.layout)
            self.laws.write(source.doc_id, document.law)
            reports.append(
                FileReport(
                    source.rel,
                    source.doc_id,
                    "ingested",
                    pages=document.pages,
                    tables=document.tables,
                    chunks=chunks,
                    facts=facts,
                    ocr_pages=document.ocr_pages,
                    seconds=round(outcome.seconds, 3),
                    errors=errors,
                    rejected=list(document.rejected),
                    facts_without_company=sum(not f.company for f in document.facts),
                    identity=document.identity,
                )
            )
            self.identities.record(document.meta, document.identity)
            if document.rejected:  # read again next run, so its bad rows are reported until they are fixed
                continue
            self.manifest.record(
                ManifestEntry(
                    source.doc_id,
                    source.rel,
                    job.sha256,
                    job.size,
                    job.inputs_key,
                    mtime_ns=job.mtime_ns,
                    pages=document.pages,
                    chunks=chunks,
                    facts=facts,
                    tables=document.tables,
                    ocr_pages=document.ocr_pages,
                )
            )
        self.index.commit()
        self.facts.commit()
        self.identities.save()
        self.manifest.save()
        return reports

    def attribute(self) -> None:
        """Companies for the documents whose pages name none, from the corpus's register (ingestion/attribution.py)."""
        attribute_companies(self.identities, self.index, IdentityRules.load())
        self.identities.save()

    def _write_tables(self, doc_id: str, tables: list, facts: list, language: str) -> list[str]:
        path = self.settings.tables_path(doc_id)
        if not tables:
            path.unlink(missing_ok=True)
            return []
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".finqa-{name_digest(doc_id)}.tmp.xlsx")  # short, whatever the document's name
        try:
            write_tables_workbook(tables, temp, facts, language)
            os.replace(temp, path)
        except Exception as exc:  # noqa: BLE001 - the workbook is a by-product; the index still has the document
            temp.unlink(missing_ok=True)
            return [f"tables workbook not written: {type(exc).__name__}: {exc}"]
        return []
