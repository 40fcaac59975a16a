"""Ingest a corpus into the text index and the facts store, incrementally and in parallel.

    python -m parser.ingest CORPUS_DIR --index INDEX_DIR [--backend embedded|elasticsearch] [--es-url URL]
                            [--workers N] [--max-file-mb MB] [--batch N]

Every file below CORPUS_DIR is a document (.pdf, .html/.htm, .txt/.md, and
facts workbooks .xlsx/.csv); its id is the path relative to CORPUS_DIR
without the extension ("finance/12"). A `metadata.csv` is the user's sidecar
of document metadata (parser/metadata.py), not a document.

How a run goes:
1. walk the corpus, hash each file (sha256) and compare with the manifest:
   unchanged documents are skipped, removed ones are deleted from the index
   and the facts store;
2. a process pool parses new and changed files, one file per task; a worker
   that dies (a segfault in a native library) fails only its file;
3. the main process writes each batch of parsed documents (delete the old
   version, add the new), commits the index and the facts store, writes the
   tables workbooks, and only then the manifest - so an interrupted run
   re-does at most one batch;
4. a JSON report (one parser.records.FileReport per file) goes to
   IndexSettings.report_path and a summary to stdout.

Exit status: 0 when every file ingested, 3 when some failed (the rest are
indexed), 2 on bad usage or a user error (missing directory, locked index),
130 when interrupted.

>>> summary = ingest(Path("corpus"), IndexSettings(Path(".index")), workers=2)
>>> summary.counts
{'ingested': 12, 'unchanged': 0, 'failed': 1, 'removed': 0}
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import multiprocessing
import os
import sys
import time
import traceback
from collections import Counter, deque
from contextlib import ExitStack
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator

from parser.errors import InputError
from parser.html import parse_html
from parser.attribution import attribute_companies
from parser.identity import IdentityBook, IdentityFinder, IdentityRules, document_pages, findings_of, with_identity
from parser.manifest import Manifest, ManifestEntry, atomic_write_text, file_sha256
from parser.metadata import SIDECAR_NAME, MetadataFinder
from parser.pdf import parse_pdf
from parser.records import FileReport, ParsedDocument, ReportYear
from parser.rulefile import PROJECT_ROOT as _PROJECT, RULES_DIR
from parser.settings import ParseSettings
from parser.text import parse_text
from parser.workbook import read_facts_workbook, write_tables_workbook
from search.settings import BACKENDS, IndexSettings

DOCUMENT_KINDS = {".pdf": "pdf", ".html": "html", ".htm": "html", ".txt": "text", ".md": "text",
                  ".xlsx": "facts", ".csv": "facts"}
# Rules the parsers read: a change to one of them re-parses every document.
PARSE_RULES = ("documents.yaml", "headings.yaml", "fields.yaml")  # fields.yaml: tokenizer words
DEFAULT_MAX_FILE_MB = 200.0
EXIT_OK, EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 0, 2, 3, 130


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@dataclass(frozen=True)
class IngestOptions:
    """How a run is carried out (not what the index holds).

    >>> IngestOptions(workers=2, max_file_mb=50, batch_size=10)
    """

    workers: int = dataclasses.field(default_factory=default_workers)
    max_file_mb: float = DEFAULT_MAX_FILE_MB  # bigger files are reported failed, not parsed
    batch_size: int = 20  # documents per commit: an interrupted run re-does at most this many
    progress: bool | None = None  # tqdm bar; None = only on a terminal

    def __post_init__(self):
        if self.workers < 1:
            raise InputError(f"workers must be at least 1, got {self.workers}")
        if not self.max_file_mb > 0:
            raise InputError(f"max_file_mb must be positive, got {self.max_file_mb}")
        if self.batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {self.batch_size}")

    @property
    def max_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)


@dataclass(frozen=True)
class Source:
    """One document file of the corpus."""

    path: Path
    rel: str  # path relative to the corpus, "/"-separated
    doc_id: str
    kind: str  # pdf | html | text | facts


@dataclass
class IngestSummary:
    """What a run did, file by file, with totals."""

    files: list[FileReport]
    seconds: float
    report_path: Path
    ignored: dict[str, int] = field(default_factory=dict)  # other file types found, by extension

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
    def exit_code(self) -> int:
        return EXIT_FAILED if self.failed else EXIT_OK

    def text(self) -> str:
        counts = self.counts
        lines = [
            f"{counts['ingested']} ingested, {counts['unchanged']} unchanged, {counts['failed']} failed, "
            f"{counts['removed']} removed in {self.seconds:.1f} s: {self.total('pages')} pages "
            f"({self.total('ocr_pages')} OCR), {self.total('tables')} tables, {self.total('chunks')} chunks, "
            f"{self.total('facts')} facts",
        ]
        lines += [f"failed: {f.path}: {'; '.join(f.errors)}" for f in self.failed]
        if self.ignored:
            kinds = ", ".join(f"{n} {ext or '(no extension)'}" for ext, n in sorted(self.ignored.items()))
            lines.append(f"ignored files of other types: {kinds}")
        lines.append(f"report: {self.report_path}")
        return "\n".join(lines)


def find_sources(corpus: Path, exclude: Iterable[Path] = ()) -> tuple[list[Source], list[FileReport], dict[str, int]]:
    """Document files under `corpus` in path order, files whose id is already taken, and ignored types.

    Hidden files and folders, Office lock files (~$...), the sidecar
    metadata.csv and anything under `exclude` (an index inside the corpus)
    are skipped.
    """
    excluded = [p.resolve() for p in exclude]
    sources: list[Source] = []
    clashes: list[FileReport] = []
    ignored: Counter[str] = Counter()
    taken: dict[str, str] = {}
    for path in sorted(_walk(corpus, excluded)):
        rel = path.relative_to(corpus).as_posix()
        kind = DOCUMENT_KINDS.get(path.suffix.lower())
        if path.name == SIDECAR_NAME:
            continue
        if kind is None:
            ignored[path.suffix.lower()] += 1
            continue
        doc_id = rel[: -len(path.suffix)]
        if doc_id in taken:
            clashes.append(FileReport(rel, doc_id, "failed",
                                      errors=[f"document id {doc_id!r} is already used by {taken[doc_id]}; rename one"]))
            continue
        taken[doc_id] = rel
        sources.append(Source(path, rel, doc_id, kind))
    return sources, clashes, dict(ignored)


def _walk(folder: Path, excluded: list[Path]) -> Iterator[Path]:
    for entry in os.scandir(folder):
        if entry.name.startswith((".", "~$")):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=True):
            if path.resolve() not in excluded:
                yield from _walk(path, excluded)
        elif entry.is_file(follow_symlinks=True):
            yield path


@dataclass
class Outcome:
    """What a worker hands back for one file (picklable)."""

    source: Source
    document: ParsedDocument | None = None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


# -- the worker side ---------------------------------------------------------------------------------

_worker_finder: MetadataFinder | None = None
_worker_settings: ParseSettings | None = None
_worker_identity: IdentityFinder | None = None


def _init_worker(finder: MetadataFinder, settings: ParseSettings, parent: int) -> None:
    global _worker_finder, _worker_settings, _worker_identity
    _worker_finder, _worker_settings = finder, settings
    _worker_identity = IdentityFinder(IdentityRules.load())
    _exit_with_parent(parent)


def _exit_with_parent(parent: int) -> None:
    """Have Linux end this worker when the main process dies (killed -9, it cannot stop its pool)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _work(source: Source) -> Outcome:
    return parse_source(source, _worker_finder, _worker_settings, _worker_identity)


def parse_source(source: Source, finder: MetadataFinder, settings: ParseSettings,
                 identity: IdentityFinder | None = None) -> Outcome:
    """Parse one file into a ParsedDocument; any problem becomes a one-line reason, never an exception."""
    started = time.perf_counter()
    outcome = Outcome(source)
    try:
        problem = check_file(source)
        if problem:
            outcome.errors.append(problem)
        else:
            outcome.document = _parse(source, finder, settings, identity or IdentityFinder(IdentityRules.load()))
    except InputError as exc:
        outcome.errors.append(_without_path(exc, source.path))
    except MemoryError:
        outcome.errors.append("out of memory while parsing")
    except Exception as exc:  # noqa: BLE001 - a parser bug on one file must not stop the others
        outcome.errors.append(_unexpected(exc))
    outcome.seconds = time.perf_counter() - started
    return outcome


def _unexpected(exc: BaseException) -> str:
    """A parser bug in one line: the exception and where in our code it was raised."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(str(_PROJECT))]
    if frames:
        text += f" (at {Path(frames[-1].filename).relative_to(_PROJECT)}:{frames[-1].lineno})"
    return text


def _without_path(error: InputError, path: Path) -> str:
    """The error without the file's own path (the report row names it), keeping a line number."""
    text = str(error)
    if error.path == str(path):
        text = text[len(error.path) + 1:].lstrip()
        if error.line is not None:
            text = text.removeprefix(f"{error.line}:").lstrip()
            return f"line {error.line}: {text}"
    return text


def check_file(source: Source) -> str:
    """Why a file cannot be parsed, found cheaply before parsing ("" when it looks fine).

    The parsers check the rest (not a PDF, encrypted, undecodable text) and
    raise InputError with the reason.
    """
    size = source.path.stat().st_size
    if size == 0:
        return "empty file (0 bytes)"
    if source.kind == "pdf":
        with source.path.open("rb") as fh:
            head = fh.read(1024)
            fh.seek(max(0, size - 2048))
            tail = fh.read()
        if b"%PDF-" in head and b"%%EOF" not in tail:
            return "truncated PDF: the end of the file (%%EOF) is missing; download or copy it again"
    return ""


def _parse(source: Source, finder: MetadataFinder, settings: ParseSettings,
           identity: IdentityFinder) -> ParsedDocument:
    if source.kind == "facts":
        return read_facts_workbook(source.path, source.doc_id)
    parse = {"pdf": parse_pdf, "html": parse_html}.get(source.kind, parse_text)
    return _complete(parse(source.path, finder.find(source.doc_id), settings), finder, identity, source.path)


def _complete(document: ParsedDocument, finder: MetadataFinder, identity: IdentityFinder,
              path: Path) -> ParsedDocument:
    """Fill metadata the cover lacked from the parsed text (an OCR'd cover) and from the identity
    any page gives (parser/identity.py), stamp it on the chunks, add the company-year."""
    meta = document.meta
    if not (meta.company and meta.year and meta.language):
        first = [c.text for c in document.chunks if c.page_start <= 1][:20] or [c.text for c in document.chunks[:5]]
        meta = finder.complete(meta, "\n".join(first))
    found = identity.find(document_pages(path, document.chunks, identity.rules.pages))
    fixed = finder.fixed(meta.doc_id)
    meta = with_identity(meta, found, fixed)
    document.identity = findings_of(meta, found, fixed)
    if meta != document.meta:
        document.meta = meta
        document.chunks = [c if (c.company and c.year and c.period) else
                           dataclasses.replace(c, company=c.company or meta.company, year=c.year or meta.year,
                                               period=c.period or meta.period)
                           for c in document.chunks]
        document.facts = [f if (f.company and f.year) else
                          dataclasses.replace(f, company=f.company or meta.company, year=f.year or meta.year,
                                              short_name=f.short_name or meta.short_name, code=f.code or meta.code)
                          for f in document.facts]
    unplaced = [f for f in document.facts if not (f.company and f.year)]
    if unplaced:
        document.facts = [f for f in document.facts if f.company and f.year]
        document.warnings.append(f"{len(unplaced)} facts without a company or year were left out")
    if meta.company and meta.year and not any(r.company == meta.company and r.year == meta.year
                                              for r in document.reports):
        document.reports.append(ReportYear(meta.company, meta.year, meta.short_name, meta.code, meta.doc_id))
    return document


# -- the main side -----------------------------------------------------------------------------------


class ParserPool:
    """A process pool that parses files, yielding outcomes as they finish.

    Workers are forked when the pool opens, before the caller opens the
    index (whose writer runs threads a fork should not copy). When a worker
    dies, every file it may have been parsing is retried alone in a fresh
    pool; the file that kills its worker again is reported failed.

    >>> with ParserPool(finder, ParseSettings(), workers=2) as pool:
    ...     outcomes = list(pool.run(sources))
    """

    def __init__(self, finder: MetadataFinder, settings: ParseSettings, workers: int):
        if workers < 1:
            raise InputError(f"workers must be at least 1, got {workers}")
        self.finder, self.settings, self.workers = finder, settings, workers
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> "ParserPool":
        self._pool = self._start()
        return self

    def __exit__(self, *_) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _start(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, mp_context=self._context, initializer=_init_worker,
                                   initargs=(self.finder, self.settings, os.getpid()))
        pool.submit(os.getpid).result()  # forks every worker now
        return pool

    def run(self, sources: Iterable[Source]) -> Iterator[Outcome]:
        pending: deque[Source] = deque(sources)
        suspects: deque[Source] = deque()
        running: dict[Future, Source] = {}
        while pending or suspects or running:
            alone = bool(suspects)  # after a crash, suspects run one at a time to find the culprit
            if alone and not running:
                source = suspects.popleft()
                running[self._pool.submit(_work, source)] = source
            while not alone and pending and len(running) < self.workers * 2:
                source = pending.popleft()
                running[self._pool.submit(_work, source)] = source
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            crashed = False
            for future in done:
                source = running.pop(future)
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    crashed = True
                    if alone:
                        yield Outcome(source, errors=["the parser crashed on this file (its worker process died: "
                                                      "a fault in a native library, or out of memory)"])
                    else:
                        suspects.append(source)
                    continue
                yield outcome
            if crashed:
                suspects.extend(running.values())
                running.clear()
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = self._start()


class Ingester:
    """One ingestion run of a corpus into an index directory.

    >>> Ingester(Path("corpus"), IndexSettings(Path(".index")), options=IngestOptions(workers=2)).run()
    """

    def __init__(self, corpus: Path, settings: IndexSettings, parse: ParseSettings = ParseSettings(),
                 options: IngestOptions | None = None):
        corpus = Path(corpus)
        if not corpus.is_dir():
            raise InputError("corpus directory not found", str(corpus))
        self.corpus = corpus
        self.settings = settings
        self.parse = parse
        self.options = options or IngestOptions()

    def run(self) -> IngestSummary:
        started = time.perf_counter()
        settings = self.settings
        sources, reports, ignored = find_sources(self.corpus, exclude=[settings.index_dir])
        finder = MetadataFinder.for_corpus(self.corpus, {s.doc_id: s.path for s in sources})
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        manifest = Manifest.load(settings.manifest_path)
        fingerprint = _settings_fingerprint(self.parse)

        todo: list[_Job] = []
        for source in sources:
            stat = source.path.stat()
            if stat.st_size > self.options.max_bytes:
                reports.append(_failed(source, [f"file is {stat.st_size / 2**20:.3g} MB, over the limit of "
                                                f"{self.options.max_file_mb:g} MB (--max-file-mb)"], manifest))
                continue
            # same size and modification time as when indexed: the recorded hash stands (as git does)
            sha = manifest.known_sha256(source.doc_id, stat.st_size, stat.st_mtime_ns) or file_sha256(source.path)
            key = hashlib.sha256(f"{fingerprint}|{finder.key(source.doc_id)}".encode()).hexdigest()[:24]
            if manifest.is_current(source.doc_id, sha, key):
                entry = manifest.entries[source.doc_id]
                reports.append(FileReport(source.rel, source.doc_id, "unchanged", pages=entry.pages,
                                          tables=entry.tables, chunks=entry.chunks, facts=entry.facts,
                                          ocr_pages=entry.ocr_pages))
            else:
                todo.append(_Job(source, sha, key, stat.st_size, stat.st_mtime_ns))
        present = {s.doc_id for s in sources}
        removed = [entry for doc_id, entry in manifest.entries.items() if doc_id not in present]

        workers = min(self.options.workers, len(todo))
        with ExitStack() as stack:
            # the pool forks before the index opens its writer threads
            pool = stack.enter_context(ParserPool(finder, self.parse, workers)) if todo else None
            writer = stack.enter_context(_BatchWriter(settings, manifest))
            if removed:
                writer.remove(removed)
                reports += [FileReport(e.path, e.doc_id, "removed") for e in removed]
            if pool is not None:
                reports += self._parse_all(todo, pool, writer, manifest)
            if todo or removed:
                writer.attribute()
            for report in reports:
                report.identity = writer.identities.get(report.doc_id).get("findings", report.identity)

        summary = IngestSummary(sorted(reports, key=lambda r: r.path), time.perf_counter() - started,
                                settings.report_path, ignored)
        _write_report(summary, self.corpus, settings, self.options)
        return summary

    def _parse_all(self, todo: list["_Job"], pool: ParserPool, writer: "_BatchWriter",
                   manifest: Manifest) -> list[FileReport]:
        from tqdm import tqdm

        reports: list[FileReport] = []
        jobs = {job.source.doc_id: job for job in todo}
        batch: list[tuple[Outcome, _Job]] = []
        disable = None if self.options.progress is None else not self.options.progress
        with tqdm(total=len(todo), unit="file", desc="ingest", disable=disable, file=sys.stderr) as bar:
            for outcome in pool.run(job.source for job in todo):
                bar.update(1)
                if outcome.document is None:
                    reports.append(_failed(outcome.source, outcome.errors, manifest, outcome.seconds))
                    continue
                batch.append((outcome, jobs[outcome.source.doc_id]))
                if len(batch) >= self.options.batch_size:
                    reports += writer.write(batch)
                    batch = []
                bar.set_postfix(pages=sum(r.pages for r in reports), refresh=False)
            if batch:
                reports += writer.write(batch)
        return reports


@dataclass(frozen=True)
class _Job:
    """A file to parse, with what the manifest will record for it."""

    source: Source
    sha256: str
    inputs_key: str
    size: int
    mtime_ns: int


def _failed(source: Source, errors: list[str], manifest: Manifest, seconds: float = 0.0) -> FileReport:
    errors = list(errors) or ["unknown error"]
    if source.doc_id in manifest.entries:
        errors.append("the previously indexed version is kept")
    return FileReport(source.rel, source.doc_id, "failed", seconds=round(seconds, 3), errors=errors)


class _BatchWriter:
    """Writes parsed documents to the stores in batches: delete old, add new, commit, then the manifest.

    Opening takes the index's writer lock at once, so a locked index fails
    the run before any parsing (InputError).
    """

    def __init__(self, settings: IndexSettings, manifest: Manifest):
        from search.facts import open_fact_store
        from search.open import open_text_index

        self.manifest, self.settings = manifest, settings
        self.identities = IdentityBook.load(settings.identities_path)
        self.index = open_text_index(settings)
        try:
            self.index.delete_documents([])  # deleting nothing takes the writer lock
            self.facts = open_fact_store(settings)
        except BaseException:
            self.index.close()
            raise

    def __enter__(self) -> "_BatchWriter":
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
            self._tables_path(doc_id).unlink(missing_ok=True)
            self.manifest.forget(doc_id)
            self.identities.forget(doc_id)
        self.identities.save()
        self.manifest.save()

    def write(self, batch: list[tuple[Outcome, _Job]]) -> list[FileReport]:
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
            errors += self._write_tables(source.doc_id, document.table_list)
            reports.append(FileReport(source.rel, source.doc_id, "ingested", pages=document.pages,
                                      tables=document.tables, chunks=chunks, facts=facts,
                                      ocr_pages=document.ocr_pages, seconds=round(outcome.seconds, 3),
                                      errors=errors, identity=document.identity))
            self.identities.record(document.meta, document.identity)
            self.manifest.record(ManifestEntry(source.doc_id, source.rel, job.sha256, job.size, job.inputs_key,
                                               mtime_ns=job.mtime_ns, pages=document.pages, chunks=chunks, facts=facts,
                                               tables=document.tables, ocr_pages=document.ocr_pages))
        self.index.commit()
        self.facts.commit()
        self.identities.save()
        self.manifest.save()
        return reports

    def attribute(self) -> None:
        """Companies for the documents whose pages name none, from the corpus's register (parser/attribution.py)."""
        attribute_companies(self.identities, self.index, IdentityRules.load())
        self.identities.save()

    def _tables_path(self, doc_id: str) -> Path:
        return self.settings.tables_dir / f"{doc_id}.xlsx"

    def _write_tables(self, doc_id: str, tables: list) -> list[str]:
        path = self._tables_path(doc_id)
        if not tables:
            path.unlink(missing_ok=True)
            return []
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.tmp.xlsx")
        try:
            write_tables_workbook(tables, temp)
            os.replace(temp, path)
        except Exception as exc:  # noqa: BLE001 - the workbook is a by-product; the index still has the document
            temp.unlink(missing_ok=True)
            return [f"tables workbook not written: {type(exc).__name__}: {exc}"]
        return []


def _settings_fingerprint(parse: ParseSettings) -> str:
    """What every document's parse depends on: the parse settings and the parsers' rule files."""
    digest = hashlib.sha256(repr(parse).encode())
    for name in PARSE_RULES:
        path = RULES_DIR / name
        digest.update(name.encode() + (path.read_bytes() if path.exists() else b""))
    return digest.hexdigest()[:16]


def _write_report(summary: IngestSummary, corpus: Path, settings: IndexSettings, options: IngestOptions) -> None:
    report = {
        "corpus": str(corpus),
        "index_dir": str(settings.index_dir),
        "backend": settings.backend,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(summary.seconds, 3),
        "workers": options.workers,
        "counts": summary.counts,
        "totals": {name: summary.total(name) for name in ("pages", "ocr_pages", "tables", "chunks", "facts")},
        "ignored": summary.ignored,
        "files": [dataclasses.asdict(f) for f in summary.files],
    }
    atomic_write_text(settings.report_path, json.dumps(report, ensure_ascii=False, indent=1))


def ingest(corpus: Path, settings: IndexSettings, parse: ParseSettings = ParseSettings(), workers: int | None = None,
           *, max_file_mb: float = DEFAULT_MAX_FILE_MB, batch_size: int = 20,
           progress: bool | None = None) -> IngestSummary:
    """Ingest `corpus` into the index `settings` names, doing only what changed since the last run.

    >>> ingest(Path("corpus"), IndexSettings(Path(".index"))).exit_code
    0
    """
    options = IngestOptions(workers=workers or default_workers(), max_file_mb=max_file_mb, batch_size=batch_size,
                            progress=progress)
    return Ingester(corpus, settings, parse, options).run()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parser.ingest", description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path, metavar="CORPUS_DIR")
    ap.add_argument("--index", type=Path, required=True, metavar="INDEX_DIR")
    ap.add_argument("--backend", default="embedded", help=f"one of {', '.join(BACKENDS)} (default: embedded)")
    ap.add_argument("--es-url", default="", help="Elasticsearch URL (default: $FINQA_ES_URL or http://127.0.0.1:9200)")
    ap.add_argument("--workers", type=int, default=default_workers(), help="parser processes (default: cores)")
    ap.add_argument("--max-file-mb", type=float, default=DEFAULT_MAX_FILE_MB,
                    help=f"larger files are reported failed (default: {DEFAULT_MAX_FILE_MB:g})")
    ap.add_argument("--batch", type=int, default=20, help="documents per commit (default: 20)")
    args = ap.parse_args(argv)
    try:
        settings = IndexSettings(args.index, backend=args.backend, es_url=args.es_url)
        options = IngestOptions(workers=args.workers, max_file_mb=args.max_file_mb, batch_size=args.batch)
        summary = Ingester(args.corpus, settings, options=options).run()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted: committed batches are kept; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(summary.text())
    return summary.exit_code


if __name__ == "__main__":
    sys.exit(main())
