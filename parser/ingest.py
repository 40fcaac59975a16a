"""Ingest a corpus into the text index and the facts store, incrementally and in parallel.

    python -m parser.ingest CORPUS_DIR --index INDEX_DIR [--backend embedded|elasticsearch] [--es-url URL]
                            [--es-index NAME] [--workers N] [--max-file-mb MB] [--batch N] [limits per file]
    python -m parser.ingest --delete --index INDEX_DIR [--backend elasticsearch --es-index NAME]

Every file below CORPUS_DIR is a document (.pdf, .html/.htm, .txt/.md, and
facts workbooks .xlsx/.csv); its id is the path relative to CORPUS_DIR
without the extension ("finance/12"). A `metadata.csv` is the user's sidecar
of document metadata (parser/metadata.py), not a document.

How a run goes:
1. walk the corpus (a path that cannot be read fails alone), check the
   stores against the manifest (verify_stores: a lost or emptied store means
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
4. a JSON report (one parser.records.FileReport per file) goes to
   IndexSettings.report_path and a summary to stdout.

Exit status: 0 when every file ingested, 3 when some failed (the rest are
indexed) or a facts workbook had bad rows (its good rows are indexed, each bad
row is reported as file:row: reason), 2 on bad usage or a user error (missing
directory, INDEX_DIR a file or read-only, locked or damaged index, unreachable
server), 130 when interrupted. A traceback is never the message: a parser bug
on one file is a one-line reason in its report row.

>>> summary = ingest(Path("corpus"), IndexSettings(Path(".index")), workers=2)
>>> summary.counts
{'ingested': 12, 'unchanged': 0, 'failed': 1, 'removed': 0}
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
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

from parser.budget import time_limit
from parser.errors import InputError
from parser.html import parse_html
from parser.attribution import attribute_companies
from parser.ingest_lock import ingest_running
from parser.identity import IdentityBook, IdentityFinder, IdentityRules, document_pages, findings_of, with_identity
from parser.manifest import Manifest, ManifestEntry, atomic_write_text, file_sha256
from parser.metadata import SIDECAR_NAME, MetadataFinder
from parser.pdf import parse_pdf
from parser.records import FileReport, ParsedDocument, ReportYear
from parser.rulefile import PROJECT_ROOT as _PROJECT, RULES_DIR
from parser.settings import ParseSettings
from parser.statutes import looks_like_statute, parse_statute
from parser.text import parse_text
from parser.workbook import read_facts_workbook, write_tables_workbook
from search.law_register import LawRegister
from search.settings import BACKENDS, IndexSettings, index_settings

DOCUMENT_KINDS = {".pdf": "pdf", ".html": "html", ".htm": "html", ".txt": "text", ".md": "text",
                  ".xlsx": "facts", ".csv": "facts", ".xml": "statute"}
# Rules the parsers read: a change to one of them re-parses every document.
PARSE_RULES = ("documents.yaml", "headings.yaml", "fields.yaml", "statements.yaml")  # fields.yaml: tokenizer words
DEFAULT_MAX_FILE_MB = 200.0
EXIT_OK, EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 0, 2, 3, 130
LIMIT_OPTIONS = (  # ParseSettings field, type, what it limits
    ("max_pages", int, "a PDF with more pages fails"),
    ("max_ocr_pixels", int, "a page that would render larger for OCR is not OCR'd"),
    ("max_ocr_pages", int, "pages past this many in a file are not OCR'd"),
    ("max_table_cells", int, "an HTML table whose spans expand to more cells is skipped"),
    ("max_file_seconds", float, "parsing a file longer than this fails it (0: no limit)"),
)


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


def parse_shard(text: str) -> tuple[int, int]:
    """"2/4" -> (2, 4); InputError on anything else."""
    part, _, parts = text.partition("/")
    if not (part.strip().isdigit() and parts.strip().isdigit()):
        raise InputError(f"--shard takes I/N, such as 1/2, got {text!r}")
    return int(part), int(parts)


@dataclass(frozen=True)
class Source:
    """One document file of the corpus."""

    path: Path
    rel: str  # path relative to the corpus, "/"-separated
    doc_id: str
    kind: str  # pdf | html | text | facts | statute


@dataclass
class IngestSummary:
    """What a run did, file by file, with totals."""

    files: list[FileReport]
    seconds: float
    report_path: Path
    ignored: dict[str, int] = field(default_factory=dict)  # other file types found, by extension
    warnings: list[str] = field(default_factory=list)  # about the run as a whole (stores rebuilt, index skipped)

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
        lines += [f"warning: {w}" for w in self.warnings]
        partial = [f for f in self.files if f.status == "ingested" and f.errors]
        if partial:
            lines.append(f"{len(partial)} files ingested with warnings (limits hit, pages or tables skipped): "
                         f"see 'errors' in the report")
        lines += [f"failed: {f.path}: {'; '.join(f.errors)}" for f in self.failed]
        lines += [f"rejected row: {row}" for row in self.rejected]
        if self.ignored:
            kinds = ", ".join(f"{n} {ext or '(no extension)'}" for ext, n in sorted(self.ignored.items()))
            lines.append(f"ignored files of other types: {kinds}")
        lines.append(f"report: {self.report_path}")
        return "\n".join(lines)


def find_sources(corpus: Path, exclude: Iterable[Path] = ()) -> tuple[list[Source], list[FileReport], dict[str, int]]:
    """Document files under `corpus` in path order, files that cannot be documents (with the reason), and
    ignored types.

    Hidden files and folders, Office lock files (~$...), the sidecar
    metadata.csv and anything under `exclude` (an index inside the corpus)
    are skipped. A path problem (a symlink loop, a name that is not UTF-8,
    an unreadable folder) fails only that path.
    """
    excluded = [p.resolve() for p in exclude]
    sources: list[Source] = []
    problems: list[FileReport] = []
    ignored: Counter[str] = Counter()
    taken: dict[str, str] = {}
    found = sorted(_walk(corpus, excluded, {corpus.resolve()}), key=lambda item: os.fsencode(item[0]))
    for path, problem in found:
        rel = path.relative_to(corpus).as_posix()
        if problem:
            problems.append(FileReport(_printable(rel), _printable(rel), "failed", errors=[problem]))
            continue
        kind = DOCUMENT_KINDS.get(path.suffix.lower())
        if path.name == SIDECAR_NAME:
            continue
        if kind is None:
            ignored[_printable(path.suffix.lower())] += 1
            continue
        doc_id = rel[: -len(path.suffix)]
        if _printable(rel) != rel:
            problems.append(FileReport(_printable(rel), _printable(doc_id), "failed",
                                       errors=["the file name is not valid UTF-8 (a document id must be text); "
                                               "rename the file"]))
            continue
        if doc_id in taken:
            problems.append(FileReport(rel, doc_id, "failed",
                                       errors=[f"document id {doc_id!r} is already used by {taken[doc_id]}; rename one"]))
            continue
        taken[doc_id] = rel
        sources.append(Source(path, rel, doc_id, kind))
    return sources, problems, dict(ignored)


def _printable(name: str) -> str:
    """A file name that may hold undecodable bytes (surrogate escapes), printable and storable as JSON."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _walk(folder: Path, excluded: list[Path], seen: set[Path]) -> Iterator[tuple[Path, str]]:
    """(path, "") for each file below `folder`, (path, reason) for each path that cannot be read."""
    try:
        entries = list(os.scandir(folder))
    except OSError as exc:
        yield folder, f"cannot list this folder: {exc.strerror}"
        return
    for entry in entries:
        if entry.name.startswith((".", "~$")):
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
            real = path.resolve(strict=True) if is_dir else None
            is_file = not is_dir and entry.is_file(follow_symlinks=True)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python < 3.13
            reason = getattr(exc, "strerror", None) or "symlink loop"
            yield path, f"cannot read this path: {reason}"
            continue
        if is_dir:
            if real in excluded:
                continue
            if real in seen:
                yield path, f"a symlink loop (this folder is inside {real}), skipped"
                continue
            yield from _walk(path, excluded, seen | {real})
        elif is_file:
            yield path, ""
        elif entry.is_symlink():
            yield path, "a symlink to nothing (its target is missing)"


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


class FileTimeout(Exception):
    """Parsing a file ran past ParseSettings.max_file_seconds."""


def parse_source(source: Source, finder: MetadataFinder, settings: ParseSettings,
                 identity: IdentityFinder | None = None) -> Outcome:
    """Parse one file into a ParsedDocument; any problem becomes a one-line reason, never an exception.

    In a worker process (the main thread there) the parse runs under a timer: past
    `settings.max_file_seconds` the file fails, when control is back in Python (a
    native call, such as one OCR page, finishes first).
    """
    started = time.perf_counter()
    outcome = Outcome(source)
    try:
        problem = check_file(source, settings)
        if problem:
            outcome.errors.append(problem)
        else:
            with time_limit(settings.max_file_seconds, FileTimeout):
                outcome.document = _parse(source, finder, settings,
                                          identity or IdentityFinder(IdentityRules.load()))
    except FileTimeout:
        outcome.errors.append(f"parsing took longer than {settings.max_file_seconds:g} s, the limit per file "
                              f"(--max-file-seconds)")
    except RecursionError:
        outcome.errors.append("the document is nested too deeply to read")
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


def check_file(source: Source, settings: ParseSettings = ParseSettings()) -> str:
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
        pages = _page_count(source.path)
        if pages > settings.max_pages:
            return f"{pages} pages, over the limit of {settings.max_pages} pages per file (--max-pages)"
    return ""


def _page_count(path: Path) -> int:
    """The PDF's page count from its page tree (pypdfium2, cheap); 0 when it cannot be read (the parser says why)."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(str(path))
    except Exception:  # noqa: BLE001 - a damaged PDF is reported by the parser with its reason
        return 0
    try:
        return len(document)
    finally:
        document.close()


def _parse(source: Source, finder: MetadataFinder, settings: ParseSettings,
           identity: IdentityFinder) -> ParsedDocument:
    if source.kind == "facts":
        return read_facts_workbook(source.path, source.doc_id, field_names=_canonical_field())
    if source.kind == "statute" or (source.path.suffix.lower() == ".md" and looks_like_statute(source.path)):
        return parse_statute(source.path, finder.find(source.doc_id))  # a law has no company or year to complete
    parse = {"pdf": parse_pdf, "html": parse_html}.get(source.kind, parse_text)
    return _complete(parse(source.path, finder.find(source.doc_id), settings), finder, identity, source.path)


@functools.lru_cache(maxsize=1)
def _canonical_field():
    """rules/fields.yaml's canonical name of a workbook's field name (the questions' vocabulary)."""
    from qa.fields import FieldDictionary  # the one field vocabulary; loaded once per worker process

    return FieldDictionary.load().canonical


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
        check_index_dir(settings.index_dir)
        if options is not None and options.shard[1] > 1 and settings.backend != "elasticsearch":
            raise InputError("--shard needs --backend elasticsearch (the embedded index has one writer)")
        self.corpus = corpus
        self.settings = settings
        self.parse = parse
        self.options = options or IngestOptions()

    def run(self) -> IngestSummary:
        started = time.perf_counter()
        settings = self.settings
        sources, reports, ignored = find_sources(self.corpus, exclude=[settings.index_dir])
        warnings = []
        if settings.index_dir.resolve().is_relative_to(self.corpus.resolve()):
            warnings.append(f"the index directory {settings.index_dir} is inside the corpus: its files are skipped")
        finder = MetadataFinder.for_corpus(self.corpus, {s.doc_id: s.path for s in sources})
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        with ingest_running(settings.index_dir):  # qa.run warns while the stores change
            mirror = open_manifest_mirror(settings)
            try:
                manifest = Manifest.load(settings.manifest_path, mirror)
                manifest.corpus = settings.es_prefix if mirror is not None else ""
                return self._run(started, sources, reports, ignored, warnings, finder, manifest)
            finally:
                if mirror is not None:
                    mirror.close()

    def _run(self, started: float, sources: list[Source], reports: list[FileReport], ignored: dict[str, int],
             warnings: list[str], finder: MetadataFinder, manifest: Manifest) -> IngestSummary:
        settings = self.settings
        fingerprint = _settings_fingerprint(self.parse)
        owns = self.options.owns
        sources = [s for s in sources if owns(s.doc_id)]
        reports = [r for r in reports if owns(r.doc_id)]  # each path problem is reported by one shard
        present = {s.doc_id for s in sources}
        removed = [entry for doc_id, entry in manifest.entries.items() if owns(doc_id) and doc_id not in present]
        lost = verify_stores(settings, manifest)
        if lost:
            warnings.append(f"{'; '.join(lost)}: every document is ingested again")
            manifest.forget_all(owns)

        todo: list[_Job] = []
        for source in sources:
            try:
                stat = source.path.stat()
                if stat.st_size > self.options.max_bytes:
                    reports.append(_failed(source, [f"file is {stat.st_size / 2**20:.3g} MB, over the limit of "
                                                    f"{self.options.max_file_mb:g} MB (--max-file-mb)"], manifest))
                    continue
                # same size and modification time as when indexed: the recorded hash stands (as git does)
                sha = manifest.known_sha256(source.doc_id, stat.st_size, stat.st_mtime_ns) or file_sha256(source.path)
            except OSError as exc:
                reports.append(_failed(source, [f"cannot read the file: {exc.strerror}"], manifest))
                continue
            key = hashlib.sha256(f"{fingerprint}|{finder.key(source.doc_id)}".encode()).hexdigest()[:24]
            if manifest.is_current(source.doc_id, sha, key):
                entry = manifest.entries[source.doc_id]
                reports.append(FileReport(source.rel, source.doc_id, "unchanged", pages=entry.pages,
                                          tables=entry.tables, chunks=entry.chunks, facts=entry.facts,
                                          ocr_pages=entry.ocr_pages))
            else:
                todo.append(_Job(source, sha, key, stat.st_size, stat.st_mtime_ns))

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
            writer.finish()

        summary = IngestSummary(sorted(reports, key=lambda r: r.path), time.perf_counter() - started,
                                settings.report_path, ignored, warnings)
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


def check_index_dir(index_dir: Path) -> None:
    """InputError when INDEX_DIR cannot be an index directory: an existing file, or a read-only folder."""
    if index_dir.exists() and not index_dir.is_dir():
        raise InputError("INDEX_DIR is an existing file, not a directory; name a directory", str(index_dir))
    if index_dir.is_dir() and not os.access(index_dir, os.W_OK):
        raise InputError("INDEX_DIR is read-only: cannot ingest into it (nothing was changed)", str(index_dir))


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
    from search.facts import open_fact_store
    from search.open import open_text_index

    problems = []
    for key, name, unit, opener in (("text", "the text index", "chunks", open_text_index),
                                    ("facts", "the facts store", "facts", open_fact_store)):
        store = opener(settings)
        try:
            recorded, expected = manifest.stores.get(key), manifest.expected(unit)
            if recorded and store.generation() != recorded:
                problems.append(f"{name} is not the one the manifest describes (it was deleted, emptied or made "
                                f"again since the last ingest)")
            elif expected and store.count() == 0:
                problems.append(f"{name} is empty, but the manifest lists {expected} {unit}")
        finally:
            store.close()
        del store  # drop the tantivy reader's threads before the parser pool forks
    return problems


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
            self.laws.remove(doc_id)
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
            self.laws.write(source.doc_id, document.law)
            reports.append(FileReport(source.rel, source.doc_id, "ingested", pages=document.pages,
                                      tables=document.tables, chunks=chunks, facts=facts,
                                      ocr_pages=document.ocr_pages, seconds=round(outcome.seconds, 3),
                                      errors=errors, rejected=list(document.rejected),
                                      identity=document.identity))
            self.identities.record(document.meta, document.identity)
            if document.rejected:  # read again next run, so its bad rows are reported until they are fixed
                continue
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
        return tables_path(self.settings, doc_id)

    def _write_tables(self, doc_id: str, tables: list) -> list[str]:
        path = self._tables_path(doc_id)
        if not tables:
            path.unlink(missing_ok=True)
            return []
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".finqa-{_digest(doc_id)}.tmp.xlsx")  # short, whatever the document's name
        try:
            write_tables_workbook(tables, temp)
            os.replace(temp, path)
        except Exception as exc:  # noqa: BLE001 - the workbook is a by-product; the index still has the document
            temp.unlink(missing_ok=True)
            return [f"tables workbook not written: {type(exc).__name__}: {exc}"]
        return []


def tables_path(settings: IndexSettings, doc_id: str) -> Path:
    """Where a document's tables workbook goes: its id + .xlsx, or a shortened name with a hash when that is
    longer than a file name may be (255 bytes)."""
    path = settings.tables_dir / f"{doc_id}.xlsx"
    if len(os.fsencode(path.name)) > 255:
        path = path.with_name(f"{path.name.encode()[:180].decode(errors='ignore')}-{_digest(doc_id)}.xlsx")
    return path


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
        "shard": "/".join(map(str, options.shard)),
        "counts": summary.counts,
        "totals": {name: summary.total(name) for name in ("pages", "ocr_pages", "tables", "chunks", "facts")},
        "ignored": summary.ignored,
        "warnings": summary.warnings,
        "files": [dataclasses.asdict(f) for f in summary.files],
    }
    atomic_write_text(settings.report_path, json.dumps(report, ensure_ascii=False, indent=1))


def ingest(corpus: Path, settings: IndexSettings, parse: ParseSettings = ParseSettings(), workers: int | None = None,
           *, max_file_mb: float = DEFAULT_MAX_FILE_MB, batch_size: int = 20,
           progress: bool | None = None, shard: tuple[int, int] = (1, 1)) -> IngestSummary:
    """Ingest `corpus` into the index `settings` names, doing only what changed since the last run.

    >>> ingest(Path("corpus"), IndexSettings(Path(".index"))).exit_code
    0
    """
    options = IngestOptions(workers=workers or default_workers(), max_file_mb=max_file_mb, batch_size=batch_size,
                            progress=progress, shard=shard)
    return Ingester(corpus, settings, parse, options).run()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parser.ingest", description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path, metavar="CORPUS_DIR", nargs="?")
    ap.add_argument("--index", type=Path, required=True, metavar="INDEX_DIR")
    ap.add_argument("--backend", default="embedded", help=f"one of {', '.join(BACKENDS)} (default: embedded)")
    ap.add_argument("--es-url", default="", help="Elasticsearch URL (default: $FINQA_ES_URL or http://127.0.0.1:9200)")
    ap.add_argument("--es-index", metavar="NAME", default="",
                    help="the corpus's name on the server: indices finqa-NAME-chunks/-facts/-manifest "
                         "(default: the name recorded in INDEX_DIR, else CORPUS_DIR's folder name)")
    ap.add_argument("--delete", action="store_true",
                    help="delete the corpus instead: its data and manifest on the server and INDEX_DIR's files")
    ap.add_argument("--workers", type=int, default=default_workers(), help="parser processes (default: cores)")
    ap.add_argument("--max-file-mb", type=float, default=DEFAULT_MAX_FILE_MB,
                    help=f"larger files are reported failed (default: {DEFAULT_MAX_FILE_MB:g})")
    ap.add_argument("--batch", type=int, default=20, help="documents per commit (default: 20)")
    ap.add_argument("--shard", default="1/1", metavar="I/N",
                    help="ingest only the I-th of N disjoint parts of the corpus (N processes or machines, one "
                         "Elasticsearch corpus; default 1/1)")
    limits = ap.add_argument_group("limits per file (each hit is reported on its file)")
    for name, kind, help_ in LIMIT_OPTIONS:
        limits.add_argument(f"--{name.replace('_', '-')}", type=kind, default=getattr(ParseSettings, name),
                            help=f"{help_} (default: {getattr(ParseSettings, name)})")
    args = ap.parse_args(argv)
    if args.corpus is None and not args.delete:
        ap.error("CORPUS_DIR is required (except with --delete)")
    try:
        settings = index_settings(args.index, args.backend, args.es_url, args.es_index, args.corpus)
        if args.delete:
            print(delete_index(settings))
            return EXIT_OK
        options = IngestOptions(workers=args.workers, max_file_mb=args.max_file_mb, batch_size=args.batch,
                                shard=parse_shard(args.shard))
        parse = ParseSettings(**{name: getattr(args, name) for name, _, _ in LIMIT_OPTIONS})
        summary = Ingester(args.corpus, settings, parse, options=options).run()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted: committed batches are kept; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(summary.text())
    return summary.exit_code


def delete_index(settings: IndexSettings) -> str:
    """Delete a corpus: its data and manifest on the server (Elasticsearch) and INDEX_DIR's files; what was done."""
    import shutil

    done = []
    if settings.backend == "elasticsearch":
        from search.elastic_manifest import delete_corpus

        done.append(f"deleted {', '.join(delete_corpus(settings)) or 'nothing'} on {settings.es_url}")
    if settings.index_dir.is_dir():
        if not settings.manifest_path.exists():
            raise InputError("not an index directory (no manifest.json): left as it is", str(settings.index_dir))
        for path in (settings.text_dir, settings.tables_dir):
            shutil.rmtree(path, ignore_errors=True)
        for path in (settings.facts_path, settings.manifest_path, settings.report_path):
            for extra in ("", "-wal", "-shm"):
                Path(f"{path}{extra}").unlink(missing_ok=True)
        done.append(f"removed the index files in {settings.index_dir}")
    return "; ".join(done)


if __name__ == "__main__":
    sys.exit(main())
