"""`python -m qa.run QUESTIONS`: answer a file of questions, one JSON line per question.

    python -m qa.run QUESTIONS [--index INDEX_DIR] [--docs CORPUS_DIR] [-o OUT]
                     [--backend embedded|elasticsearch] [--es-url URL] [--es-index NAME]
                     [--llm PATH|none] [--mode answer|retrieve] [--workers N] [--question-seconds S]

With neither --index nor --docs it answers over the bundled examples/ corpus
(ingested on first use into the user's cache, see examples_index). --docs
ingests CORPUS_DIR incrementally into --index (default .index) before answering.

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
import json
import logging
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Iterator


from core.command_names import command_name
from core.errors import InputError
from core.logs import add_verbosity, configure, summary
from core.progress import Progress
from core.rulefile import data_dir
from qa.io.batch import DEFAULT_QUESTION_SECONDS, BatchAnswerer, BatchSettings
from qa.engine import EngineSettings
from qa.io.question_stream import clean_text, iter_questions
from qa.records import Question
from search.ingest_lock import ingest_in_progress
from search.settings import BACKENDS, IndexSettings, index_settings

log = logging.getLogger(__name__)

EXAMPLES_CORPUS = data_dir("examples") / "corpus"
BATCH = 64  # questions read together: their searches go to the index in one batch
ANSWER_WORKERS = 4  # answering processes by default (at most): each holds its own dictionaries (~300 MB)


def examples_index(corpus: Path = EXAMPLES_CORPUS) -> Path:
    """Where the bundled examples are indexed: the user's cache, one folder per copy of finqa.

    An installed finqa's own folder may be read-only, and two checkouts (or a checkout and an
    install) must not share an index their different code wrote.
    """
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    copy = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]
    return cache / "finqa" / f"examples-{copy}"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=command_name("qa.run"),
                                 description="Answer a file of questions over an index, one JSON line per answer "
                                             "(the formats: docs/cli.md). Exit 0 all answered, 1 some failed, "
                                             "2 bad input.")
    ap.add_argument("questions", type=Path, help="JSON list / JSON lines of {id, question[, source]}, or the AI CUP / NTCIR forms")
    ap.add_argument("--index", type=Path, help="index directory (default: .index, or the user's cache for the bundled examples)")
    ap.add_argument("--docs", type=Path, help="corpus directory to ingest (incrementally) into --index first")
    ap.add_argument("-o", "--output", type=Path, help="write JSON lines here (default: stdout)")
    add_engine_options(ap, "the one INDEX_DIR records, else --docs's folder name")
    ap.add_argument("--mode", choices=("answer", "retrieve"), default="answer",
                    help="answer the questions (default), or only rank the documents that would answer them")
    ap.add_argument("--question-seconds", type=float, default=DEFAULT_QUESTION_SECONDS,
                    help=f"time budget per question; past it the question gets an error line (0: none; "
                         f"default {DEFAULT_QUESTION_SECONDS:g})")
    ap.add_argument("--workers", type=int, default=None,
                    help=f"processes ingesting --docs and answering (default: the CPU count ingesting, up to "
                         f"{ANSWER_WORKERS} answering, and one answering when a model phrases the answers; a file of "
                         f"one batch, {BATCH} questions, is always answered by one)")
    ap.add_argument("--trace", action="store_true",
                    help="put the question's analysis (rule, years, company, fields, output) before each answer's trace")
    add_verbosity(ap)
    return ap


def add_engine_options(ap: argparse.ArgumentParser, corpus_name_default: str) -> None:
    """The options every answering command shares (qa.run, serve): backend, server, corpus name, model."""
    ap.add_argument("--backend", choices=BACKENDS, default="embedded",
                    help="where the index is: embedded (files under --index, the default) or an "
                         "Elasticsearch server")
    ap.add_argument("--es-url", default="",
                    help="Elasticsearch URL (default: $FINQA_ES_URL or http://127.0.0.1:9200)")
    ap.add_argument("--es-index", metavar="NAME", default="",
                    help=f"the corpus's name on the server (default: {corpus_name_default})")
    ap.add_argument("--llm", default=os.environ.get("FINQA_LLM", "none"),
                    help="model folder or .gguf file for phrasing answers, or 'none' "
                         "(default: $FINQA_LLM or none)")


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


def run(args: argparse.Namespace) -> int:
    batching = BatchSettings(question_seconds=args.question_seconds, trace=args.trace)  # checked before any work
    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    questions = iter_questions(args.questions)
    first = next(questions, None)  # a file that cannot be read fails now, before any work
    if first is None:
        raise InputError("no questions in the file", str(args.questions))
    docs, index_dir = args.docs, args.index
    if docs is None and index_dir is None:
        docs, index_dir = EXAMPLES_CORPUS, examples_index()
    index = index_settings(index_dir or Path(".index"), args.backend, args.es_url, args.es_index, docs)
    if docs is not None:
        from ingestion.pipeline import default_workers, ingest  # the parsers load only when a corpus is ingested

        if not docs.is_dir():
            raise InputError("corpus directory not found", str(docs))
        summary(args, ingest(docs, index, workers=args.workers or default_workers(),
                             progress=False if args.quiet else None).text())
    else:
        check_is_index(index)
        if ingest_in_progress(index.index_dir):
            log.warning(f"an ingest is writing {index.index_dir} now: answers may miss documents it has not "
                        "committed yet (ask again when it is done)")

    started = time.perf_counter()
    failed = total = 0
    types: Counter[str] = Counter()
    batches = _batches(itertools.chain([first], questions), BATCH)
    head = next(batches)
    batching = dataclasses.replace(batching, workers=_answering_workers(args, len(head)))
    engine = EngineSettings(index=index, mode=args.mode, llm=args.llm)
    shown = Progress("answer", "question", show=False if args.quiet else None,
                     figures=lambda: {"failed": failed} if failed else {})
    with BatchAnswerer(engine, batching) as answerer, _Output(args.output) as out, shown as bar:
        try:
            for question, answer, steps in answerer.run(itertools.chain([head], batches)):
                total += 1
                failed += bool(answer.error)
                log.info("%s: %s -> %s", question.id, answer.type, answer.route)
                types[answer.type] += 1
                out.write(clean_text(json.dumps(answer.to_json(steps), ensure_ascii=False)) + "\n")
                out.flush()  # written as made: a later failure never loses earlier answers
                bar.update()
        except InputError as exc:
            raise InputError(f"{exc} (the {total} answers before it are written)") from None
    seconds = time.perf_counter() - started
    counts = ", ".join(f"{t} {n}" for t, n in sorted(types.items()))
    summary(args, f"answered {total - failed}/{total} questions in {seconds:.1f}s "
                  f"({total / max(seconds, 1e-9):.1f} q/s, {batching.workers} answering process"
                  f"{'es' if batching.workers > 1 else ''}): {counts}")
    return 1 if failed else 0


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
    """InputError unless INDEX_DIR is an index an ingest made (a corpus folder, say, is not: nothing is created)."""
    if index.backend == "elasticsearch" and not index.manifest_path.is_file():
        from search.elastic_manifest import ElasticManifest  # the manifest on the server is the index's own

        mirror = ElasticManifest(index)
        try:
            if not mirror.exists():
                raise InputError(f"no corpus {index.es_prefix} on the server (ingest first)", index.es_url)
        finally:
            mirror.close()
        return
    if not index.index_dir.is_dir():
        raise InputError(f"index directory not found (ingest first: {command_name('parser.ingest')} CORPUS "
                         "--index DIR)", str(index.index_dir))
    if not index.manifest_path.is_file():
        raise InputError("not an index directory (no manifest.json; ingest first: "
                         f"{command_name('parser.ingest')} CORPUS --index DIR)", str(index.index_dir))


class _Output:
    """stdout, or the file OUT (mode from the umask), written line by line as answers are made."""

    def __init__(self, path: Path | None):
        self.path = path

    def __enter__(self):
        if self.path is None:
            self.stream = sys.stdout
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.stream = self.path.open("w", encoding="utf-8")
        return self.stream

    def __exit__(self, *_):
        if self.path is None:
            self.stream.flush()
        else:
            self.stream.close()


if __name__ == "__main__":
    sys.exit(main())
