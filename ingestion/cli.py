"""The ingest command line (also `python -m parser.ingest`); the pipeline is ingestion/pipeline.py.

    python -m parser.ingest CORPUS_DIR --index INDEX_DIR [--backend embedded|elasticsearch] [--es-url URL]
                            [--es-index NAME] [--workers N] [--max-file-mb MB] [--batch N] [limits per file]
    python -m parser.ingest --delete --index INDEX_DIR [--backend elasticsearch --es-index NAME]

Exit status: 0 when every file ingested, 3 when some failed (the rest are
indexed) or a facts workbook had bad rows (its good rows are indexed, each bad
row is reported as file:row: reason), 2 on bad usage or a user error (missing
directory, INDEX_DIR a file or read-only, locked or damaged index, unreachable
server), 130 when interrupted. A traceback is never the message: a parser bug
on one file is a one-line reason in its report row.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.command_names import command_name
from core.errors import InputError, disk_error
from core.logs import add_verbosity, configure
from core.processes import EXIT_INTERRUPTED, INTERRUPTED_AT_START
from ingestion.pipeline import (
    DEFAULT_MAX_FILE_MB,
    EXIT_OK,
    EXIT_USAGE,
    Ingester,
    IngestInterrupted,
    IngestOptions,
    default_workers,
)
from parser.settings import ParseSettings, TableLimits
from search.settings import IndexSettings, add_index_options, index_settings

LIMIT_OPTIONS = (  # ParseSettings field, type, what it limits
    ("max_pages", int, "a PDF with more pages fails"),
    ("max_ocr_pixels", int, "a page that would render larger for OCR is not OCR'd"),
    ("max_ocr_pages", int, "pages past this many in a file are not OCR'd"),
    ("max_file_seconds", float, "parsing a file longer than this fails it (0: no limit)"),
)
TABLE_LIMIT_OPTIONS = (  # option, TableLimits field, what it limits (the same for PDF, HTML and facts workbooks)
    ("max_table_cells", "cells", "a table whose spans expand to more cells is skipped"),
    ("max_table_columns", "columns", "a table with more columns is skipped (a facts workbook fails)"),
    ("max_cell_chars", "cell_chars", "a longer table cell is cut (a facts workbook's row is rejected)"),
    (
        "max_row_chars",
        "row_chars",
        "a table with a longer row is skipped (a facts workbook's row is rejected)",
    ),
    (
        "max_expanded_bytes",
        "expanded_bytes",
        "a file's tables past this much text are skipped; an .xlsx that unzips to more fails",
    ),
)


def parse_shard(text: str) -> tuple[int, int]:
    """ "2/4" -> (2, 4); InputError on anything else."""
    part, _, parts = text.partition("/")
    if not (part.strip().isdigit() and parts.strip().isdigit()):
        raise InputError(f"--shard takes I/N, such as 1/2, got {text!r}")
    return int(part), int(parts)


DESCRIPTION = (
    "Read a folder of documents into an index: each document's text for search, its tables as "
    "an Excel workbook under INDEX_DIR/tables/, and every figure as a fact. Run it again after "
    "changes: only what changed is redone. Exit 0 all ingested, 3 some files failed (the rest are "
    "kept), 2 bad usage."
)


def main(argv: list[str] | None = None) -> int:
    try:  # from the start: Ctrl-C while the options are read is one line too
        ap = _parser()
        args = ap.parse_args(argv)
        configure(args)
        if args.corpus is None and not args.delete:
            ap.error("CORPUS_DIR is required (except with --delete)")
        return _ingest(args)
    except KeyboardInterrupt as exc:  # one line; the workers ignore Ctrl-C (core/processes.py)
        print(exc if isinstance(exc, IngestInterrupted) else INTERRUPTED_AT_START, file=sys.stderr)
        return EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=command_name("parser.ingest"), description=DESCRIPTION)
    ap.add_argument(
        "corpus",
        type=Path,
        metavar="CORPUS_DIR",
        nargs="?",
        help="the folder of your documents (PDF, HTML, text, facts .xlsx/.csv, law XML), read recursively",
    )
    ap.add_argument(
        "--index",
        type=Path,
        required=True,
        metavar="INDEX_DIR",
        help="where the index goes (made if absent; only what changed is redone on the next run)",
    )
    add_index_options(ap, "the name recorded in INDEX_DIR, else CORPUS_DIR's folder name")
    ap.add_argument(
        "--delete",
        action="store_true",
        help="delete the corpus instead: its data and manifest on the server and INDEX_DIR's files",
    )
    ap.add_argument(
        "--workers", type=int, default=default_workers(), help="parser processes (default: cores)"
    )
    ap.add_argument(
        "--max-file-mb",
        type=float,
        default=DEFAULT_MAX_FILE_MB,
        help=f"larger files are reported failed (default: {DEFAULT_MAX_FILE_MB:g})",
    )
    ap.add_argument("--batch", type=int, default=20, help="documents per commit (default: 20)")
    ap.add_argument(
        "--shard",
        default="1/1",
        metavar="I/N",
        help="ingest only the I-th of N disjoint parts of the corpus (N processes or machines, one "
        "Elasticsearch corpus; default 1/1)",
    )
    _add_limit_options(ap)
    add_verbosity(ap)
    return ap


def _add_limit_options(ap: argparse.ArgumentParser) -> None:
    """The limits a file must keep within (ParseSettings, TableLimits), with their defaults."""
    limits = ap.add_argument_group("limits per file (each hit is reported on its file)")
    for name, kind, help_ in LIMIT_OPTIONS:
        limits.add_argument(
            f"--{name.replace('_', '-')}",
            type=kind,
            default=getattr(ParseSettings, name),
            help=f"{help_} (default: {getattr(ParseSettings, name)})",
        )
    for name, field, help_ in TABLE_LIMIT_OPTIONS:
        default = getattr(TableLimits, field)
        limits.add_argument(
            f"--{name.replace('_', '-')}", type=int, default=default, help=f"{help_} (default: {default:,})"
        )


def _ingest(args: argparse.Namespace) -> int:
    try:
        settings = index_settings(args.index, args.backend, args.es_url, args.es_index, args.corpus)
        if args.delete:
            print(delete_index(settings))
            return EXIT_OK
        options = IngestOptions(
            workers=args.workers,
            max_file_mb=args.max_file_mb,
            batch_size=args.batch,
            shard=parse_shard(args.shard),
            progress=False if args.quiet else None,
        )
        parse = ParseSettings(
            **{name: getattr(args, name) for name, _, _ in LIMIT_OPTIONS},
            tables=TableLimits(**{field: getattr(args, name) for name, field, _ in TABLE_LIMIT_OPTIONS}),
        )
        summary = Ingester(args.corpus, settings, parse, options=options).run()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a full disk or a read-only file system, met where no store explained it
        if disk_error(exc) is None:
            raise
        print(f"error: {disk_error(exc)} (committed batches are kept)", file=sys.stderr)
        return EXIT_USAGE
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
            raise InputError(
                "not an index directory (no manifest.json): left as it is", str(settings.index_dir)
            )
        for path in (settings.text_dir, settings.tables_dir):
            shutil.rmtree(path, ignore_errors=True)
        for path in (settings.facts_path, settings.manifest_path, settings.report_path):
            for extra in ("", "-wal", "-shm"):
                Path(f"{path}{extra}").unlink(missing_ok=True)
        done.append(f"removed the index files in {settings.index_dir}")
    return "; ".join(done)


if __name__ == "__main__":
    sys.exit(main())
