"""Ingest a corpus into the text index and the facts store, incrementally and in parallel.

Every file below CORPUS_DIR is a document (.pdf, .html/.htm, .txt/.md, and
facts workbooks .xlsx/.csv); its id is the path relative to CORPUS_DIR
without the extension ("finance/12"). A `metadata.csv` is the user's sidecar
of document metadata (parser/metadata.py), not a document.

How a run goes:
1. walk the corpus (a path that cannot be read fails alone), check the
   stores against the manifest (ingestion/writer.py verify_stores: a lost or emptied store means
   every document is ingested again), hash each file (sha256) and compare
   with the manifest: unchanged documents are skipped, removed ones are
   deleted from the index and the facts store;
2. a process pool parses new and changed files, one file per task, within
   the limits of ParseSettings (pages, OCR, table cells, seconds); a worker
   that dies (a segfault in a native library) fails only its file;
3. the main process writes each batch of parsed documents (delete the old
   version, add the new), commits the index and the facts store, writes the
   tables workbooks, and only then the manifest - so an interrupted run
   re-does at most one batch;
4. a JSON report (one core.records.FileReport per file) goes to
   IndexSettings.report_path and a summary to stdout.

>>> summary = ingest(Path("corpus"), IndexSettings(Path(".index")), workers=2)
>>> summary.counts
{'ingested': 12, 'unchanged': 0, 'failed': 1, 'removed': 0}
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from core.errors import InputError
from core.layout import VERSION as LAYOUT_VERSION
from core.manifest import Manifest, ManifestEntry, atomic_write_text, file_sha256
from core.processes import interrupts_deferred
from core.progress import Progress
from core.records import FileReport
from core.rulebook import active, using
from ingestion.sources import Source, find_sources
from ingestion.workers import PARSE_RULES, Outcome, ParserPool, page_count
from ingestion.writer import (
    BatchWriter,
    Job,
    check_index_dir,
    failed_report,
    open_manifest_mirror,
    verify_stores,
)
from parser.metadata import MetadataFinder
from parser.settings import OUTPUT_VERSION, ParseSettings
from search.ingest_lock import ingest_running
from search.settings import IndexSettings

log = logging.getLogger(__name__)

DEFAULT_MAX_FILE_MB = 200.0
EXIT_OK, EXIT_USAGE, EXIT_FAILED = 0, 2, 3


class IngestInterrupted(KeyboardInterrupt):
    """Ctrl-C during an ingest, with what it kept: every batch committed before it stays in the stores (the
    manifest is saved after each commit), so the same command run again parses only the files left."""

    def __init__(self, kept: int, todo: int):
        super().__init__(kept, todo)
        self.kept, self.todo = kept, todo

    def __str__(self) -> str:
        done = (
            f"{self.kept} of {self.todo} files to ingest were ingested and kept"
            if self.todo
            else "nothing ingested"
        )
        return f"interrupted: {done}; run the same command again to resume"


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@dataclass(frozen=True)
class IngestOptions:
    """How a run is carried out (not what the index holds).

    >>> options = IngestOptions(workers=2, max_file_mb=50, batch_size=10)
    """

    workers: int = dataclasses.field(default_factory=default_workers)
    max_file_mb: float = DEFAULT_MAX_FILE_MB  # bigger files are reported failed, not parsed
    batch_size: int = 20  # documents per commit: an interrupted run re-does at most this many
    progress: bool | None = None  # None: a bar on a terminal, else a line every 10 s; False: none (-q)
    shard: tuple[int, int] = (1, 1)  # (I, N): this run ingests the I-th of N disjoint parts of the corpus

    def __post_init__(self):
        if self.workers < 1:
            raise InputError(f"workers must be at least 1, got {self.workers}")
        part, parts = self.shard
        if not 1 <= part <= parts:
            raise InputError(f"--shard I/N needs 1 <= I <= N, got {part}/{parts}")
        if not self.max_file_mb > 0:
            raise InputError(f"max_file_mb must be positive, got {self.max_file_mb}")
        if self.batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {self.batch_size}")

    @property
    def max_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def owns(self, doc_id: str) -> bool:
        """True when `doc_id` is in this run's shard (a hash of the id: stable on every machine)."""
        part, parts = self.shard
        return parts == 1 or int(hashlib.sha256(doc_id.encode()).hexdigest()[:12], 16) % parts == part - 1


@dataclass
class IngestSummary:
    """What a run did, file by file, with totals."""

    files: list[FileReport]
    seconds: float
    report_path: Path
    ignored: dict[str, int] = field(default_factory=dict)  # other file types found, by extension
    warnings: list[str] = field(
        default_factory=list
    )  # about the run as a whole (stores rebuilt, index skipped)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(f.status for f in self.files)
        return {status: found.get(status, 0) for status in ("ingested", "unchanged", "failed", "removed")}

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "failed"]

    def total(self, name: str, statuses: tuple[str, ...] = ("ingested",)) -> int:
        return sum(getattr(f, name) for f in self.files if f.status in statuses)

    @property
    def rejected(self) -> list[str]:
        """Bad rows left out of ingested facts workbooks ("file:row: reason")."""
        return [row for f in self.files for row in f.rejected]

    @property
    def exit_code(self) -> int:
        return EXIT_FAILED if self.failed or self.rejected else EXIT_OK

    def text(self) -> str:
        counts = self.counts
        lines = [
            f"{counts['ingested']} ingested, {counts['unchanged']} unchanged, {counts['failed']} failed, "
            f"{counts['removed']} removed in {self.seconds:.1f} s: {self.total('pages')} pages "
            f"({self.total('ocr_pages')} OCR), {self.total('tables')} tables, {self.total('chunks')} chunks, "
            f"{self.total('facts')} facts",
        ]
        if self.total("facts_without_company"):
            lines[0] += (
                f" ({self.total('facts_without_company')} without a company, kept with their "
                f"documents: see 'facts_without_company' in the report)"
            )
        lines += [f"warning: {w}" for w in self.warnings]
        partial = [f for f in self.files if f.status == "ingested" and f.errors]
        if partial:
            lines.append(
                f"{len(partial)} files ingested with warnings (limits hit, pages or tables skipped): "
                f"see 'errors' in the report"
            )
        lines += [f"failed: {f.path}: {'; '.join(f.errors)}" for f in self.failed]
        lines += [f"rejected row: {row}" for row in self.rejected]
        if self.ignored:
            kinds = ", ".join(f"{n} {ext or '(no extension)'}" for ext, n in sorted(self.ignored.items()))
            lines.append(f"ignored files of other types: {kinds}")
        lines.append(f"report: {self.report_path}")
        return "\n".join(lines)


class Ingester:
    """One ingestion run of a corpus into an index directory.

    >>> import tempfile
    >>> from core.rulefile import data_dir
    >>> with tempfile.TemporaryDirectory() as index:
    ...     Ingester(data_dir("examples") / "corpus", IndexSettings(Path(index)), options=IngestOptions(workers=1)).run().counts
    {'ingested': 5, 'unchanged': 0, 'failed': 0, 'removed': 0}
    """

    def __init__(
        self,
        corpus: Path,
        settings: IndexSettings,
        parse: ParseSettings = ParseSettings(),
        options: IngestOptions | None = None,
    ):
        corpus = Path(corpus)
        if not corpus.is_dir():
            raise InputError("corpus directory not found", str(corpus))
        check_index_dir(settings.index_dir)
        if options is not None and options.shard[1] > 1 and settings.backend != "elasticsearch":
            raise InputError("--shard needs --backend elasticsearch (the embedded index has one writer)")
        self.corpus = corpus
        self.settings = settings
        self.parse = parse
        self.options = options or IngestOptions()
        self._kept, self._todo = 0, 0  # files ingested and committed in this run, of those it had to ingest

    def run(self) -> IngestSummary:
        """Ingest the corpus; IngestInterrupted (a KeyboardInterrupt) on Ctrl-C, saying what was kept."""
        try:
            with using(self.parse.rules):
                return self._locked_run()
        except IngestInterrupted:
            raise
        except KeyboardInterrupt:
            raise IngestInterrupted(self._kept, self._todo) from None

    def _locked_run(self) -> IngestSummary:
        started = time.perf_counter()
        settings = self.settings
        sources, reports, ignored = find_sources(self.corpus, exclude=[settings.index_dir])
        warnings = []
        if settings.index_dir.resolve().is_relative_to(self.corpus.resolve()):
            warnings.append(
                f"the index directory {settings.index_dir} is inside the corpus: its files are skipped"
            )
        finder = MetadataFinder.for_corpus(self.corpus, {s.doc_id: s.path for s in sources})
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        with ingest_running(settings.index_dir):  # qa.run warns while the stores change
            mirror = open_manifest_mirror(settings)
            try:
                manifest = Manifest.load(settings.manifest_path, mirror)
                manifest.corpus = settings.es_prefix if mirror is not None else ""
                manifest.root = str(self.corpus.resolve())
                return self._run(started, sources, reports, ignored, warnings, finder, manifest)
            finally:
                if mirror is not None:
                    mirror.close()

    def _run(
        self,
        started: float,
        sources: list[Source],
        reports: list[FileReport],
        ignored: dict[str, int],
        warnings: list[str],
        finder: MetadataFinder,
        manifest: Manifest,
    ) -> IngestSummary:
        settings = self.settings
        owns = self.options.owns
        sources = [s for s in sources if owns(s.doc_id)]
        reports = [r for r in reports if owns(r.doc_id)]  # each path problem is reported by one shard
        present = {s.doc_id for s in sources}
        removed = [
            entry for doc_id, entry in manifest.entries.items() if owns(doc_id) and doc_id not in present
        ]
        lost = verify_stores(settings, manifest)
        if lost:
            warnings.append(f"{'; '.join(lost)}: every document is ingested again")
            manifest.forget_all(owns)
        todo = _longest_first(self._jobs(sources, reports, finder, manifest))
        self._todo = len(todo)
        workers = min(self.options.workers, len(todo))
        with ExitStack() as stack:
            # the pool forks before the index opens its writer threads
            pool = stack.enter_context(ParserPool(finder, self.parse, workers)) if todo else None
            writer = stack.enter_context(BatchWriter(settings, manifest))
            if removed:
                with interrupts_deferred():  # a write is done whole or not at all, then Ctrl-C is answered
                    writer.remove(removed)
                reports += [FileReport(e.path, e.doc_id, "removed") for e in removed]
            if pool is not None:
                reports += self._parse_all(todo, pool, writer, manifest)
            with interrupts_deferred():
                if todo or removed:
                    writer.attribute()
                for report in reports:
                    report.identity = writer.identities.get(report.doc_id).get("findings", report.identity)
                writer.finish()
            if todo:
                writer.compact()

        summary = IngestSummary(
            sorted(reports, key=lambda r: r.path),
            time.perf_counter() - started,
            settings.report_path,
            ignored,
            warnings,
        )
        _write_report(summary, self.corpus, settings, self.options)
        return summary

    def _jobs(
        self, sources: list[Source], reports: list[FileReport], finder: MetadataFinder, manifest: Manifest
    ) -> list[Job]:
        """The sources to parse: new or changed since the manifest (their bytes, or what their parse depends
        on). An unchanged file's report, or a failed one's (too big, unreadable), is added to `reports`."""
        fingerprint = _settings_fingerprint(self.parse)
        todo: list[Job] = []
        for source in sources:
            try:
                stat = source.path.stat()
                if stat.st_size > self.options.max_bytes:
                    reports.append(
                        failed_report(
                            source,
                            [
                                f"file is {stat.st_size / 2**20:.3g} MB, over the limit of "
                                f"{self.options.max_file_mb:g} MB (--max-file-mb)"
                            ],
                            manifest,
                        )
                    )
                    continue
                # same size and modification time as when indexed: the recorded hash stands (as git does)
                sha = manifest.known_sha256(source.doc_id, stat.st_size, stat.st_mtime_ns) or file_sha256(
                    source.path
                )
            except OSError as exc:
                reports.append(failed_report(source, [f"cannot read the file: {exc.strerror}"], manifest))
                continue
            key = hashlib.sha256(f"{fingerprint}|{finder.key(source.doc_id)}".encode()).hexdigest()[:24]
            if manifest.is_current(source.doc_id, sha, key):
                reports.append(_unchanged_report(source, manifest.entries[source.doc_id]))
            else:
                pages = page_count(source.path) if source.kind == "pdf" else 0
                todo.append(Job(source, sha, key, stat.st_size, stat.st_mtime_ns, pages))
        return todo

    def _parse_all(
        self, todo: list[Job], pool: ParserPool, writer: BatchWriter, manifest: Manifest
    ) -> list[FileReport]:
        reports: list[FileReport] = []
        jobs = {job.source.doc_id: job for job in todo}
        batch: list[tuple[Outcome, Job]] = []
        pdf_pages = sum(job.pages for job in todo)

        def pages() -> dict[str, str]:
            # while parsing: the pages the workers have read; at the end: the reports' count, as the summary's
            read = sum(r.pages for r in reports) if done else pool.pages_read.value
            return {"pages": f"{read}/{pdf_pages}" if pdf_pages else str(read)}

        done = False
        with Progress("ingest", "file", len(todo), self.options.progress, pages) as bar:
            for outcome in pool.run(job.source for job in todo):
                bar.update(1)
                if outcome.document is None:
                    reports.append(failed_report(outcome.source, outcome.errors, manifest, outcome.seconds))
                    log.warning("%s failed: %s", outcome.source.doc_id, "; ".join(outcome.errors))
                    continue
                log.info("%s parsed in %.1f s", outcome.source.doc_id, outcome.seconds)
                for (
                    warning
                ) in outcome.document.warnings:  # a limit hit (a table cut or skipped) is never silent
                    log.warning("%s: %s", outcome.source.rel, warning)
                batch.append((outcome, jobs[outcome.source.doc_id]))
                if len(batch) >= self.options.batch_size:
                    reports += self._write(writer, batch)
                    batch = []
            if batch:
                reports += self._write(writer, batch)
            done = True
        return reports

    def _write(self, writer: BatchWriter, batch: list[tuple[Outcome, Job]]) -> list[FileReport]:
        """One batch written and committed whole (Ctrl-C waits for the commit), and counted as kept."""
        with interrupts_deferred():
            written = writer.write(batch)
            self._kept += sum(report.status == "ingested" for report in written)
        return written


def _unchanged_report(source: Source, entry: ManifestEntry) -> FileReport:
    """The report of a file the manifest holds as it is: what its last ingest counted."""
    return FileReport(
        source.rel,
        source.doc_id,
        "unchanged",
        pages=entry.pages,
        tables=entry.tables,
        chunks=entry.chunks,
        facts=entry.facts,
        ocr_pages=entry.ocr_pages,
    )


PAGE_BYTES = 2048  # a file other than a PDF counts as one page per this many bytes, when jobs are ordered


def _longest_first(todo: list[Job]) -> list[Job]:
    """The jobs with the most pages first (a PDF's from its page tree, cheap; other files by size).

    The pool then ends on short files: no worker idles while another parses a
    long report alone, and the last batch the main process writes is small.
    """

    def pages(job: Job) -> float:
        return job.pages if job.source.kind == "pdf" else job.size / PAGE_BYTES

    return sorted(todo, key=pages, reverse=True)


def _settings_fingerprint(parse: ParseSettings) -> str:
    """What every document's parse depends on: the parse settings, the parsers' rule files, the parsers'
    output version and the layout file's version (an index made by older parsers parses again, once)."""
    digest = hashlib.sha256(f"{parse!r} output {OUTPUT_VERSION} layout {LAYOUT_VERSION}".encode())
    for name in PARSE_RULES:
        path = active().rules_dir / name
        digest.update(name.encode() + (path.read_bytes() if path.exists() else b""))
    return digest.hexdigest()[:16]


def _write_report(
    summary: IngestSummary, corpus: Path, settings: IndexSettings, options: IngestOptions
) -> None:
    report = {
        "corpus": str(corpus),
        "index_dir": str(settings.index_dir),
        "backend": settings.backend,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(summary.seconds, 3),
        "workers": options.workers,
        "shard": "/".join(map(str, options.shard)),
        "counts": summary.counts,
        "totals": {
            name: summary.total(name)
            for name in ("pages", "ocr_pages", "tables", "chunks", "facts", "facts_without_company")
        },
        "ignored": summary.ignored,
        "warnings": summary.warnings,
        "files": [dataclasses.asdict(f) for f in summary.files],
    }
    atomic_write_text(settings.report_path, json.dumps(report, ensure_ascii=False, indent=1))


def ingest(
    corpus: Path,
    settings: IndexSettings,
    parse: ParseSettings = ParseSettings(),
    workers: int | None = None,
    *,
    max_file_mb: float = DEFAULT_MAX_FILE_MB,
    batch_size: int = 20,
    progress: bool | None = None,
    shard: tuple[int, int] = (1, 1),
) -> IngestSummary:
    """Ingest `corpus` into the index `settings` names, doing only what changed since the last run.

    >>> import tempfile
    >>> from core.rulefile import data_dir
    >>> with tempfile.TemporaryDirectory() as index:
    ...     ingest(data_dir("examples") / "corpus", IndexSettings(Path(index)), workers=1).exit_code
    0
    """
    options = IngestOptions(
        workers=workers or default_workers(),
        max_file_mb=max_file_mb,
        batch_size=batch_size,
        progress=progress,
        shard=shard,
    )
    return Ingester(corpus, settings, parse, options).run()
