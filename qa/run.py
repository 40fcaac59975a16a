"""`python -m qa.run QUESTIONS`: answer a file of questions, one JSON line per question.

    python -m qa.run QUESTIONS [--index INDEX_DIR] [--docs CORPUS_DIR] [-o OUT]
                     [--backend embedded|elasticsearch] [--es-url URL] [--es-index NAME]
                     [--llm PATH|none] [--mode answer|retrieve] [--workers N] [--question-seconds S]
                     [--examples] [--resume | --overwrite]

Which corpus (choose_corpus): --docs ingests CORPUS_DIR incrementally into --index (default .index) before
answering, and is the only way qa.run writes a corpus; --index (or, on Elasticsearch, --es-index) answers over
an ingested corpus, which must exist whole (a store that vanished is damage, never an empty corpus); with
neither, the bundled examples/ corpus is answered (ingested on first use into the user's cache, see
examples_index) only for the bundled questions or with --examples; any other questions file is refused.
A non-empty -o OUT is refused unless --resume or --overwrite says what to do with it (qa/answer_file.py).

JSON lines are streamed (memory bounded by a line) and every answer is
written as it is made, in input order, so a failure keeps the answers before it.
A file of more than one batch is answered in worker processes (--workers). While an
ingest is writing INDEX_DIR (on this machine) a one-line warning says the
answers may be incomplete.

Exit codes: 0 all answered; 1 some questions failed or ran past their time
budget (their lines carry route "error" and the reason in `error`); 2 bad usage or unusable
input, such as a folder that is not an index (one line on stderr, the
answers before it kept); 130 interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from core.cache import user_cache
from core.command_names import command_name
from core.errors import InputError, disk_error
from core.logs import add_verbosity, configure, summary
from core.manifest import Manifest
from core.progress import Progress
from core.rulefile import data_dir
from qa.engine import EngineSettings
from qa.io.answer_file import AnswerFile, answer_line
from qa.io.batch import DEFAULT_QUESTION_SECONDS, BatchAnswerer, BatchSettings
from qa.io.question_stream import iter_questions
from qa.records import Question
from search.embedded import FORMAT as TEXT_INDEX_FORMAT
from search.ingest_lock import ingest_in_progress
from search.settings import IndexSettings, add_index_options, index_settings
from search.stores import require_stores

log = logging.getLogger(__name__)

EXAMPLES_CORPUS = data_dir("examples") / "corpus"
EXAMPLES_QUESTIONS = data_dir("examples") / "questions.json"
BATCH = 64  # questions read together: their searches go to the index in one batch
ANSWER_WORKERS = 4  # answering processes by default (at most): each holds its own dictionaries (~300 MB)


def examples_index(corpus: Path = EXAMPLES_CORPUS) -> Path:
    """Where the bundled examples are indexed: the user's cache, one folder per copy of finqa and layout of
    the text index.

    An installed finqa's own folder may be read-only, and two checkouts (or a checkout and an
    install) must not share an index their different code wrote; an upgrade that stores chunks otherwise
    builds a new one rather than refusing the old.
    """
    copy = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]
    return user_cache() / f"examples-{copy}-{TEXT_INDEX_FORMAT}"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=command_name("qa.run"),
        description="Answer a file of questions over an index, one JSON line per answer "
        "(the formats: docs/cli.md). Exit 0 all answered, 1 some failed, "
        "2 bad input.",
    )
    ap.add_argument(
        "questions",
        type=Path,
        help="JSON list / JSON lines of {id, question[, source]}, or the AI CUP / NTCIR forms",
    )
    ap.add_argument(
        "--index",
        type=Path,
        help="index directory (default: .index, or the user's cache for the bundled examples)",
    )
    ap.add_argument("--docs", type=Path, help="corpus directory to ingest (incrementally) into --index first")
    ap.add_argument(
        "--examples",
        action="store_true",
        help="answer over the bundled examples corpus (the default for the bundled questions file only)",
    )
    _add_output_options(ap)
    add_engine_options(ap, "the one INDEX_DIR records, else --docs's folder name")
    _add_answering_options(ap)
    add_verbosity(ap)
    return ap


def _add_output_options(ap: argparse.ArgumentParser) -> None:
    """Where the answers go, and what happens to answers already there."""
    ap.add_argument(
        "-o",
        "--output",
        type=Path,
        help="write JSON lines here (default: stdout); a file holding answers needs --resume or --overwrite",
    )
    again = ap.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="keep the answers OUT holds and answer only the question ids it lacks, appending",
    )
    again.add_argument("--overwrite", action="store_true", help="replace the answers OUT holds")


def _add_answering_options(ap: argparse.ArgumentParser) -> None:
    """What is asked of each question, its time budget and the processes answering."""
    ap.add_argument(
        "--mode",
        choices=("answer", "retrieve"),
        default="answer",
        help="answer the questions (default), or only rank the documents that would answer them",
    )
    ap.add_argument(
        "--question-seconds",
        type=float,
        default=DEFAULT_QUESTION_SECONDS,
        help=f"time budget per question; past it the question gets an error line (0: none; "
        f"default {DEFAULT_QUESTION_SECONDS:g})",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"processes ingesting --docs and answering (default: the CPU count ingesting, up to "
        f"{ANSWER_WORKERS} answering, and one answering when a model phrases the answers; a file of "
        f"one batch, {BATCH} questions, is always answered by one)",
    )
    ap.add_argument(
        "--trace",
        action="store_true",
        help="put the question's analysis (rule, years, company, fields, output) before each answer's trace",
    )


def add_engine_options(ap: argparse.ArgumentParser, corpus_name_default: str) -> None:
    """The options every answering command shares (qa.run, serve): where the index is, and the model."""
    add_index_options(ap, corpus_name_default)
    ap.add_argument(
        "--llm",
        default=os.environ.get("FINQA_LLM", "none"),
        help="model folder or .gguf file for phrasing answers, or 'none' (default: $FINQA_LLM or none)",
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure(args)
    try:
        return run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the answers so far are written", file=sys.stderr)
        return 130
    except OSError as exc:  # a full disk or a read-only file system, met where nothing explained it
        if disk_error(exc) is None:
            raise
        print(f"error: {disk_error(exc)}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    batching = BatchSettings(
        question_seconds=args.question_seconds, trace=args.trace
    )  # checked before any work
    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    questions = iter_questions(args.questions)
    first = next(questions, None)  # a file that cannot be read fails now, before any work
    if first is None:
        raise InputError("no questions in the file", str(args.questions))
    docs, index_dir = choose_corpus(args)
    output = AnswerFile(args.output, resume=args.resume, overwrite=args.overwrite)
    with output:  # refused before any work: another run writing it, answers in it, an unwritable path
        return answer_all(args, itertools.chain([first], questions), docs, index_dir, batching, output)


def choose_corpus(args: argparse.Namespace) -> tuple[Path | None, Path]:
    """(the corpus to ingest first, or None; the index folder). Only --docs, or the bundled examples, write an
    index: answering over a named corpus never changes it."""
    if args.examples:
        if args.docs or args.index or args.es_index or args.backend != "embedded":
            raise InputError(
                "--examples answers over the bundled examples alone: drop --docs, --index, --es-index "
                "and --backend"
            )
        return EXAMPLES_CORPUS, examples_index()
    if args.docs is not None or args.index is not None:
        return args.docs, args.index or Path(".index")
    if args.backend == "elasticsearch" and args.es_index:
        return None, Path(".index")  # the corpus is on the server; the folder only caches its manifest
    if _same_file(args.questions, EXAMPLES_QUESTIONS) and args.backend == "embedded":
        return EXAMPLES_CORPUS, examples_index()
    raise InputError(
        "which corpus? pass --index INDEX_DIR (an ingested corpus), --docs CORPUS_DIR (to ingest one)"
        f"{' or --es-index NAME' if args.backend == 'elasticsearch' else ''}; --examples answers over "
        "the bundled examples",
        str(args.questions),
    )


def _same_file(path: Path, other: Path) -> bool:
    try:
        return path.samefile(other)
    except OSError:
        return False


def answer_all(
    args: argparse.Namespace,
    questions: Iterator[Question],
    docs: Path | None,
    index_dir: Path,
    batching: BatchSettings,
    out: AnswerFile,
) -> int:
    index = index_settings(index_dir, args.backend, args.es_url, args.es_index, docs)
    _open_corpus(args, docs, index)
    started = time.perf_counter()
    failed = total = 0
    types: Counter[str] = Counter()
    if out.answered:
        questions = (q for q in questions if q.id not in out.answered)
    batches = _batches(questions, BATCH)
    head = next(batches, None)
    if head is None:
        summary(args, f"every question is answered in {args.output} already")
        return 0
    batching = dataclasses.replace(batching, workers=_answering_workers(args, len(head)))
    engine = EngineSettings(index=index, mode=args.mode, llm=args.llm)
    shown = Progress(
        "answer",
        "question",
        show=False if args.quiet else None,
        figures=lambda: {"failed": failed} if failed else {},
    )
    with BatchAnswerer(engine, batching) as answerer, shown as bar:
        try:
            for question, answer, steps in answerer.run(itertools.chain([head], batches)):
                log.info("%s: %s -> %s", question.id, answer.type, answer.route)
                out.write_line(answer_line(answer, steps))
                total += 1  # written: the count an error reports as kept
                failed += bool(answer.error)
                types[answer.type] += 1
                bar.update()
        except InputError as exc:
            raise InputError(f"{exc} (the {total} answers before it are written)") from None
    seconds = time.perf_counter() - started
    counts = ", ".join(f"{t} {n}" for t, n in sorted(types.items()))
    resumed = f" ({len(out.answered)} answered before kept)" if out.answered else ""
    summary(
        args,
        f"answered {total - failed}/{total} questions{resumed} in {seconds:.1f}s "
        f"({total / max(seconds, 1e-9):.1f} q/s, {batching.workers} answering process"
        f"{'es' if batching.workers > 1 else ''}): {counts}",
    )
    return 1 if failed else 0


def _open_corpus(args: argparse.Namespace, docs: Path | None, index: IndexSettings) -> None:
    """Ingest `docs` into the index first when given; else check that the index is one, and warn when an
    ingest is still writing it."""
    if docs is not None:
        from ingestion.pipeline import (
            default_workers,
            ingest,
        )  # the parsers load only when a corpus is ingested

        if not docs.is_dir():
            raise InputError("corpus directory not found", str(docs))
        progress = False if args.quiet else None
        summary(
            args, ingest(docs, index, workers=args.workers or default_workers(), progress=progress).text()
        )
        return
    check_is_index(index)
    if ingest_in_progress(index.index_dir):
        log.warning(
            f"an ingest is writing {index.index_dir} now: answers may miss documents it has not "
            "committed yet (ask again when it is done)"
        )


def default_answer_workers() -> int:
    """Answering processes when --workers is not given and no model phrases the answers."""
    return min(os.cpu_count() or 1, ANSWER_WORKERS)


def _answering_workers(args: argparse.Namespace, first_batch: int) -> int:
    """Processes to answer with: --workers, else one when a model phrases the answers (its own threads take the
    cores), else the default; always one for a file of one batch (a worker's start-up would outweigh it)."""
    if first_batch < BATCH:
        return 1
    if args.workers is not None:
        return args.workers
    return 1 if args.llm != "none" else default_answer_workers()


def _batches(stream: Iterator[Question], size: int) -> Iterator[list[Question]]:
    """The stream in lists of `size`; a broken line ends its batch early, and is raised once those are answered."""
    while True:
        batch: list[Question] = []
        try:
            for question in stream:
                batch.append(question)
                if len(batch) == size:
                    break
        except InputError:
            if batch:
                yield batch
            raise
        if batch:
            yield batch
        if len(batch) < size:
            return


def check_is_index(index: IndexSettings) -> None:
    """InputError unless the index is one an ingest made, whole: a corpus folder, say, is refused (nothing is
    created), and so is an index whose text index or facts store vanished or was made again since."""
    if index.backend == "elasticsearch":
        from search.elastic_manifest import ElasticManifest  # the manifest on the server is the index's own

        mirror = ElasticManifest(index)
        try:
            header = mirror.header()
        finally:
            mirror.close()
        if header is None:
            raise InputError(
                f"no corpus {index.es_prefix} on the server (ingest it first: {command_name('parser.ingest')} "
                f"CORPUS --index DIR --backend elasticsearch --es-index NAME)",
                index.es_url,
            )
        require_stores(index, header.get("stores", {}))
        return
    if not index.index_dir.is_dir():
        raise InputError(
            f"index directory not found (ingest first: {command_name('parser.ingest')} CORPUS --index DIR)",
            str(index.index_dir),
        )
    if not index.manifest_path.is_file():
        raise InputError(
            "not an index directory (no manifest.json; ingest first: "
            f"{command_name('parser.ingest')} CORPUS --index DIR)",
            str(index.index_dir),
        )
    require_stores(index, Manifest.read_cache(index.manifest_path).get("stores", {}))


if __name__ == "__main__":
    sys.exit(main())
