"""Parse documents in a pool of worker processes, each file within the limits of ParseSettings.

A worker that dies (a segfault in a native library) or runs out of time fails
only its file; a parser bug is a one-line reason in that file's report row.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
import traceback
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from core.budget import time_limit
from core.errors import InputError
from core.identity import IdentityFinder, IdentityRules, findings_of, with_identity
from core.processes import become_worker, interrupts_deferred
from core.records import ParsedDocument, ReportYear
from core.rulebook import activate, cached_per_book
from core.rulefile import PROJECT_ROOT as _PROJECT
from ingestion.sources import Source
from parser.facts import by_fiscal_end
from parser.html import parse_html
from parser.metadata import MetadataFinder
from parser.page_texts import document_pages
from parser.pages_read import share as share_pages_read
from parser.pdf import parse_pdf
from parser.pdfium_document import PdfiumDocument
from parser.settings import ParseSettings
from parser.statutes import looks_like_statute, parse_statute
from parser.text import parse_text
from parser.workbook import read_facts_workbook

# Rules the parsers read: a change to one of them re-parses every document.
PARSE_RULES = (
    "documents.yaml",
    "headings.yaml",
    "fields.yaml",
    "statements.yaml",
)  # fields.yaml: tokenizer words


@dataclass
class Outcome:
    """What a worker hands back for one file (picklable)."""

    source: Source
    document: ParsedDocument | None = None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _init_worker(finder: MetadataFinder, settings: ParseSettings, parent: int, pages_read) -> None:
    global _worker_finder, _worker_settings, _worker_identity
    activate(settings.rules)
    _worker_finder, _worker_settings = finder, settings
    _worker_identity = IdentityFinder(IdentityRules.load())
    share_pages_read(pages_read)
    become_worker(parent)  # Ctrl-C is the parent's: it stops the pool and says what was kept


def _work(source: Source) -> Outcome:
    return parse_source(source, _worker_finder, _worker_settings, _worker_identity)


class FileTimeout(BaseException):
    """Parsing a file ran past ParseSettings.max_file_seconds (a BaseException: see core/budget.py)."""


def parse_source(
    source: Source, finder: MetadataFinder, settings: ParseSettings, identity: IdentityFinder | None = None
) -> Outcome:
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
                outcome.document = _parse(
                    source, finder, settings, identity or IdentityFinder(IdentityRules.load())
                )
    except FileTimeout:
        # Raised at the block's end when the timer went off where it was swallowed (a destructor): the parse may
        # have finished, but the file is over its budget all the same.
        outcome.document = None
        outcome.errors.append(
            f"parsing took longer than {settings.max_file_seconds:g} s, the limit per file "
            f"(--max-file-seconds)"
        )
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
        text = text[len(error.path) + 1 :].lstrip()
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
        pages = page_count(source.path)
        if pages > settings.max_pages:
            return f"{pages} pages, over the limit of {settings.max_pages} pages per file (--max-pages)"
    return ""


def page_count(path: Path) -> int:
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


def _parse(
    source: Source, finder: MetadataFinder, settings: ParseSettings, identity: IdentityFinder
) -> ParsedDocument:
    if source.kind == "facts":
        return read_facts_workbook(
            source.path, source.doc_id, field_names=_canonical_field(), limits=settings.tables
        )
    if source.kind == "statute" or (source.path.suffix.lower() == ".md" and looks_like_statute(source.path)):
        return parse_statute(
            source.path, finder.find(source.doc_id)
        )  # a law has no company or year to complete
    if source.kind == "pdf":
        # the cover's pages, read by pdfium for the metadata, stay loaded for the parser
        with PdfiumDocument(source.path) as pdfium:
            meta = finder.find(source.doc_id, pdfium)
            document = parse_pdf(source.path, meta, settings, pdfium=pdfium)
    else:
        parse = parse_html if source.kind == "html" else parse_text
        document = parse(source.path, finder.find(source.doc_id), settings)
    return _complete(document, finder, identity, source.path)


@cached_per_book()
def _canonical_field():
    """rules/fields.yaml's canonical name of a workbook's field name (the questions' vocabulary)."""
    from core.fields import FieldDictionary  # the one field vocabulary; loaded once per worker process

    return FieldDictionary.load().canonical


def _complete(
    document: ParsedDocument, finder: MetadataFinder, identity: IdentityFinder, path: Path
) -> ParsedDocument:
    """Fill metadata the cover lacked from the parsed text (an OCR'd cover) and from the identity
    any page gives (core/identity.py), stamp it on the chunks, add the company-year."""
    meta = document.meta
    if not (meta.company and meta.year and meta.language):
        first = [c.text for c in document.chunks if c.page_start <= 1][:20] or [
            c.text for c in document.chunks[:5]
        ]
        meta = finder.complete(meta, "\n".join(first))
    found = identity.find(document_pages(path, document.chunks, identity.rules.pages, document.page_texts))
    document.page_texts = []  # read here only: not sent back to the main process
    fixed = finder.fixed(meta.doc_id)
    meta = with_identity(meta, found, fixed)
    document.identity = findings_of(meta, found, fixed)
    if meta != document.meta:
        document.meta = meta
        document.chunks = [
            c
            if (c.company and c.year and c.period)
            else dataclasses.replace(
                c, company=c.company or meta.company, year=c.year or meta.year, period=c.period or meta.period
            )
            for c in document.chunks
        ]
        document.facts = [
            f
            if (f.company and f.year)
            else dataclasses.replace(
                f,
                company=f.company or meta.company,
                year=f.year or meta.year,
                short_name=f.short_name or meta.short_name,
                code=f.code or meta.code,
            )
            for f in document.facts
        ]
    document.facts = by_fiscal_end(document.facts, document.table_list, meta)
    # A fact whose company is unknown stays with its document (its doc_id, period and scope answer questions
    # that name the document); one without a year has no period to be asked by.
    unplaced = [f for f in document.facts if not f.year]
    if unplaced:
        document.facts = [f for f in document.facts if f.year]
        document.warnings.append(f"{len(unplaced)} facts without a year were left out")
    if (
        meta.company
        and meta.year
        and not any(r.company == meta.company and r.year == meta.year for r in document.reports)
    ):
        document.reports.append(ReportYear(meta.company, meta.year, meta.short_name, meta.code, meta.doc_id))
    return document


class ParserPool:
    """A process pool that parses files, yielding outcomes as they finish.

    Workers are forked when the pool opens, before the caller opens the
    index (whose writer runs threads a fork should not copy). When a worker
    dies, every file it may have been parsing is retried alone in a fresh
    pool; the file that kills its worker again is reported failed.

    >>> with ParserPool(finder, ParseSettings(), workers=2) as pool:  # doctest: +SKIP
    ...     outcomes = list(pool.run(sources))  # finder, sources: what Ingester.run has found
    """

    def __init__(self, finder: MetadataFinder, settings: ParseSettings, workers: int):
        if workers < 1:
            raise InputError(f"workers must be at least 1, got {workers}")
        self.finder, self.settings, self.workers = finder, settings, workers
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.pages_read = self._context.Value("q", 0)  # PDF pages the workers read (parser/pages_read.py)
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> ParserPool:
        self._pool = self._start()
        return self

    def __exit__(self, failing, *_) -> None:
        if self._pool is None:
            return
        if failing is not None and issubclass(failing, KeyboardInterrupt):
            # Interrupted: the workers only parse (the main process writes), so they are stopped now rather
            # than after the file each is parsing, which can take minutes.
            for process in list(self._pool._processes.values()):
                process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None

    def _start(self) -> ProcessPoolExecutor:
        with interrupts_deferred():  # a worker forked before its initializer runs must not take Ctrl-C
            pool = ProcessPoolExecutor(
                self.workers,
                mp_context=self._context,
                initializer=_init_worker,
                initargs=(self.finder, self.settings, os.getpid(), self.pages_read),
            )
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
            for future in [
                f for f in running if f in done
            ]:  # those done together, in the order they were given
                source = running.pop(future)
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    crashed = True
                    if alone:
                        yield Outcome(
                            source,
                            errors=[
                                "the parser crashed on this file (its worker process died: "
                                "a fault in a native library, or out of memory)"
                            ],
                        )
                    else:
                        suspects.append(source)
                    continue
                yield outcome
            if crashed:
                suspects.extend(running.values())
                running.clear()
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = self._start()
