"""`python -m qa.run QUESTIONS`: answer a file of questions, one JSON line per question.

    python -m qa.run QUESTIONS [--index INDEX_DIR] [--docs CORPUS_DIR] [-o OUT]
                     [--backend embedded|elasticsearch] [--es-url URL]
                     [--llm PATH|none] [--mode answer|retrieve] [--workers N]

With neither --index nor --docs it answers over the bundled examples/ corpus
(ingested into .index/examples on first use). --docs ingests CORPUS_DIR
incrementally into --index (default .index) before answering.

Exit codes: 0 all answered; 1 some questions failed (their lines carry the
error in `route`); 2 bad usage or unusable input (one line on stderr).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from parser.errors import InputError
from parser.rulefile import PROJECT_ROOT
from qa.engine import Engine, EngineSettings
from qa.questions import load_questions
from search.settings import BACKENDS, IndexSettings

EXAMPLES_CORPUS = PROJECT_ROOT / "examples" / "corpus"
EXAMPLES_INDEX = PROJECT_ROOT / ".index" / "examples"
BATCH = 64  # questions answered together: their searches go to the index in one batch


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m qa.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", type=Path, help="JSON list / JSON lines of {id, question[, source]}, or the AI CUP / NTCIR forms")
    ap.add_argument("--index", type=Path, help="index directory (default: .index, or .index/examples for the bundled examples)")
    ap.add_argument("--docs", type=Path, help="corpus directory to ingest (incrementally) into --index first")
    ap.add_argument("-o", "--output", type=Path, help="write JSON lines here (default: stdout)")
    ap.add_argument("--backend", choices=BACKENDS, default="embedded")
    ap.add_argument("--es-url", default="", help="Elasticsearch URL (default: $FINQA_ES_URL or http://127.0.0.1:9200)")
    ap.add_argument("--llm", default=os.environ.get("FINQA_LLM", "none"),
                    help="model folder or .gguf file for phrasing answers, or 'none' (default: $FINQA_LLM or none)")
    ap.add_argument("--mode", choices=("answer", "retrieve"), default="answer")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="ingestion processes for --docs")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    questions = load_questions(args.questions)
    docs, index_dir = args.docs, args.index
    if docs is None and index_dir is None:
        docs, index_dir = EXAMPLES_CORPUS, EXAMPLES_INDEX
    index = IndexSettings(index_dir or Path(".index"), backend=args.backend, es_url=args.es_url)
    if docs is not None:
        from parser.ingest import ingest  # the parsers load only when a corpus is ingested first

        if not docs.is_dir():
            raise InputError("corpus directory not found", str(docs))
        print(ingest(docs, index, workers=args.workers).text(), file=sys.stderr)
    elif not index.index_dir.is_dir():
        raise InputError("index directory not found (ingest first: python -m parser.ingest CORPUS --index DIR)",
                         str(index.index_dir))

    started = time.perf_counter()
    failed = 0
    types, routes = Counter(), Counter()
    with Engine(EngineSettings(index=index, mode=args.mode, llm=args.llm)) as engine, _Output(args.output) as out:
        with tqdm(total=len(questions), desc="questions", unit="q", file=sys.stderr, disable=len(questions) < 2) as bar:
            for start in range(0, len(questions), BATCH):
                for answer in engine.answer_many(questions[start:start + BATCH]):
                    failed += answer.route.startswith("error")
                    types[answer.type] += 1
                    routes[answer.route.split(":")[0]] += 1
                    out.write(json.dumps(answer.to_json(), ensure_ascii=False) + "\n")
                    bar.update()
    seconds = time.perf_counter() - started
    summary = ", ".join(f"{t} {n}" for t, n in sorted(types.items()))
    print(f"answered {len(questions) - failed}/{len(questions)} questions in {seconds:.1f}s "
          f"({len(questions) / max(seconds, 1e-9):.1f} q/s): {summary}", file=sys.stderr)
    return 1 if failed else 0


class _Output:
    """stdout, or a file that appears whole only when every answer is written (no half-written output)."""

    def __init__(self, path: Path | None):
        self.path = path

    def __enter__(self):
        if self.path is None:
            self.stream = sys.stdout
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, self.tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            self.stream = os.fdopen(fd, "w", encoding="utf-8")
        return self.stream

    def __exit__(self, exc_type, *_):
        if self.path is None:
            self.stream.flush()
            return
        self.stream.close()
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)


if __name__ == "__main__":
    sys.exit(main())
