"""`python -m eval.bench search`: both text backends on the AI CUP reference documents.

Chunks come from the real PDF parser (parser/pdf.py) when it is importable,
else from pdfplumber page text cut into ~400-character pieces; FAQ entries
are one chunk each. For each backend (tantivy always; Elasticsearch when
FINQA_ES_URL is set) it measures:

- indexing throughput (chunks/s, add + commit, tokenizing included), also as
  a ratio to tokenizing alone (the baseline, same run);
- query latency p50/p95 and throughput over the 60 dev questions, each
  filtered to its candidate documents (`source`), one by one and as one batch
  (`search_many`: a single `_msearch` on Elasticsearch), timed after `--warmup`
  batch passes: a server is a long-running process, and a fresh JVM runs its
  first few thousand queries at a third of its warm speed. The first batch pass,
  before the warm-up, is also shown ("cold batch q/s");
- Precision@1 per category, ranking documents by their best chunk: a sanity
  figure for the tokenizer and BM25, not the engine's retrieval score.

`--generated N` adds N chunks made of the real chunks' sentences recombined at random, in documents of
their own (`generated/…`), so the same questions run against an index N chunks larger (the scale a full
corpus reaches). The questions still filter to their candidate documents, but BM25's word weights come
from the whole index, so Precision@1 may move: the recombined sentences make finance words commoner.

    bash docker/elasticsearch.sh run python -m eval.bench search
    python -m eval.bench search --chunks pdfplumber --repeat 5
    python -m eval.bench search --chunks-cache /tmp/aicup-chunks.pickle   # parse once, reuse
    bash docker/elasticsearch.sh run python -m eval.bench search --chunks-cache FILE --generated 200000
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import re
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from core.command_names import command_name
from core.errors import InputError
from core.records import Chunk, DocumentMeta
from core.sentences import SENTENCE_END
from eval.bench._data import shared_data
from search.backend import SearchQuery, TextIndex
from search.settings import IndexSettings
from search.tokenize import Tokenizer

CATEGORIES = ("insurance", "finance", "faq")
PIECE_CHARS = 400
HITS_PER_QUESTION = 50  # chunks fetched per question before taking each document's best


@dataclass
class BackendRun:
    name: str
    chunks: int = 0
    index_seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    query_seconds: float = 0.0
    batch_seconds: float = 0.0  # the same passes, each as one search_many (one _msearch on Elasticsearch)
    batches: int = 0
    cold_batch_seconds: float = 0.0  # the first batch pass, before the warm-up
    questions: int = 0
    correct: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.index_seconds if self.index_seconds else 0.0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 if ordered else 0.0

    @property
    def queries_per_second(self) -> float:
        return len(self.latencies) / self.query_seconds if self.query_seconds else 0.0

    @property
    def batch_queries_per_second(self) -> float:
        return self.batches * self.questions / self.batch_seconds if self.batch_seconds else 0.0

    @property
    def cold_batch_queries_per_second(self) -> float:
        return self.questions / self.cold_batch_seconds if self.cold_batch_seconds else 0.0

    def precision(self, category: str | None = None) -> float:
        marks = [m for c, ms in self.correct.items() if category in (None, c) for m in ms]
        return sum(marks) / len(marks) if marks else 0.0


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    root = shared_data("aicup")
    if root is None:
        return 0
    questions = json.loads((root / "questions_dev.json").read_text(encoding="utf-8"))["questions"]
    gold = {
        g["qid"]: g["retrieve"]
        for g in json.loads((root / "ground_truths_dev.json").read_text(encoding="utf-8"))["ground_truths"]
    }
    chunks, source = cached_chunks(root / "reference", args)
    real = len(chunks)
    chunks = chunks + generated_chunks(chunks, args.generated)
    print(f"chunks: {real} from {source} + {args.generated} generated; questions: {len(questions)}")

    tokenizer = Tokenizer()
    rate = tokenize_rate(tokenizer, chunks)
    runs = []
    with tempfile.TemporaryDirectory(prefix="finqa-bench-") as tmp:
        from search.embedded import EmbeddedIndex

        with EmbeddedIndex(IndexSettings(Path(tmp)), tokenizer) as index:
            runs.append(run_backend("embedded", index, chunks, questions, gold, args.repeat, args.warmup))
        runs += elastic_run(Path(tmp), tokenizer, chunks, questions, gold, args)
    print_table(runs, rate)
    return 0


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} search", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--chunks",
        choices=("auto", "parser", "pdfplumber"),
        default="auto",
        help="where chunks come from (auto: the parser when importable)",
    )
    parser.add_argument(
        "--no-ocr", action="store_true", help="parser: skip OCR of pages without a text layer"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed passes over the questions (default 3)")
    parser.add_argument(
        "--warmup",
        type=int,
        default=50,
        metavar="N",
        help="untimed batch passes before the timed ones (default 50: 3,000 queries)",
    )
    parser.add_argument(
        "--chunks-cache",
        type=Path,
        metavar="FILE",
        help="read chunks from FILE when it exists, else parse and save them there (parsing takes minutes)",
    )
    parser.add_argument(
        "--generated",
        type=int,
        default=0,
        metavar="N",
        help="add N generated chunks (real sentences recombined) to grow the index",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be at least 1 and --warmup not negative")
    return args


def cached_chunks(reference: Path, args: argparse.Namespace) -> tuple[list[Chunk], str]:
    """The chunks from --chunks-cache when that file exists, else parsed (and saved there when it is given)."""
    if args.chunks_cache and args.chunks_cache.is_file():
        with args.chunks_cache.open("rb") as cache:
            chunks, source = pickle.load(cache)  # a file this benchmark wrote itself
        return chunks, source + f", cached in {args.chunks_cache}"
    chunks, source = load_chunks(reference, args.chunks, ocr=not args.no_ocr)
    if args.chunks_cache:
        with args.chunks_cache.open("wb") as cache:
            pickle.dump((chunks, source), cache)
    return chunks, source


def tokenize_rate(tokenizer: Tokenizer, chunks: list[Chunk]) -> float:
    """Chunks/s of tokenizing alone (the indexing baseline), after loading jieba's and Sudachi's dictionaries."""
    for chunk in chunks[:: max(1, len(chunks) // 50)]:
        tokenizer.tokens(chunk.text)
    start = time.perf_counter()
    for chunk in chunks:
        tokenizer.tokens(chunk.text)
    return len(chunks) / (time.perf_counter() - start)


def elastic_run(
    tmp: Path,
    tokenizer: Tokenizer,
    chunks: list[Chunk],
    questions: list[dict],
    gold: dict,
    args: argparse.Namespace,
) -> list[BackendRun]:
    """The Elasticsearch run, in an index of its own deleted afterwards; none (said why) without a server."""
    es_url = os.environ.get("FINQA_ES_URL")
    if not es_url:
        print(
            "elasticsearch: skipped, FINQA_ES_URL is not set "
            "(run `bash docker/elasticsearch.sh run python -m eval.bench search`)"
        )
        return []
    from search.elastic import ElasticIndex

    settings = IndexSettings(
        tmp,
        backend="elasticsearch",
        es_url=es_url,
        es_prefix=f"finqa-bench-{uuid.uuid4().hex[:8]}",
    )
    try:
        index = ElasticIndex(settings, tokenizer)
    except InputError as exc:
        print(f"elasticsearch: skipped, {exc}")
        return []
    try:
        return [run_backend("elasticsearch", index, chunks, questions, gold, args.repeat, args.warmup)]
    finally:
        index.client.options(ignore_status=404).indices.delete(index=index.name)
        index.close()


def load_chunks(reference: Path, mode: str, ocr: bool) -> tuple[list[Chunk], str]:
    """Chunks of every PDF under reference/{insurance,finance} plus one per FAQ entry."""
    parse = None
    if mode in ("auto", "parser"):
        try:
            from parser.pdf import parse_pdf
            from parser.settings import ParseSettings

            settings = ParseSettings(ocr=ocr)
            parse = lambda path, meta: parse_pdf(path, meta, settings).chunks  # noqa: E731
        except ImportError as exc:
            if mode == "parser":
                raise SystemExit(f"the parser is not importable: {exc}") from None
    source = (
        f"parser/pdf.py (ocr {'on' if ocr else 'off'})"
        if parse
        else f"pdfplumber page text cut into {PIECE_CHARS}-char pieces"
    )
    chunks: list[Chunk] = []
    failed = []
    pdfs = [p for category in ("insurance", "finance") for p in sorted((reference / category).glob("*.pdf"))]
    for path in tqdm(pdfs, desc="reading PDFs", unit="pdf", file=sys.stderr):
        meta = DocumentMeta(f"{path.parent.name}/{path.stem}")
        try:
            chunks.extend(parse(path, meta) if parse else _pieces(path, meta))
        except InputError as exc:  # one unreadable file must not stop the benchmark
            failed.append(str(exc))
    faq = json.loads((reference / "faq" / "pid_map_content.json").read_text(encoding="utf-8"))
    for pid, entries in faq.items():
        text = "\n".join(f"{e['question']}\n{' '.join(e['answers'])}" for e in entries)
        chunks.append(Chunk(f"faq/{pid}#t0", f"faq/{pid}", text))
    if failed:
        print(f"{len(failed)} PDFs unreadable, first: {failed[0]}")
    return chunks, source


def generated_chunks(chunks: list[Chunk], count: int, seed: int = 7, per_document: int = 50) -> list[Chunk]:
    """`count` chunks of four real sentences each, drawn at random, in documents of their own."""
    if count < 1:
        return []
    rng = random.Random(seed)
    ends = re.compile(rf"(?<=[{re.escape(SENTENCE_END.value())}])")
    sentences = [s for chunk in chunks for s in ends.split(chunk.text) if s.strip()]
    out = []
    for i in range(count):
        doc = f"generated/{i // per_document}"
        out.append(Chunk(f"{doc}#g{i % per_document}", doc, "".join(rng.choice(sentences) for _ in range(4))))
    return out


def _pieces(path: Path, meta: DocumentMeta) -> list[Chunk]:
    import pdfplumber

    out = []
    try:
        with pdfplumber.open(path) as pdf:
            for number, page in enumerate(pdf.pages, 1):
                text = page.extract_text() or ""
                for i in range(0, len(text), PIECE_CHARS):
                    out.append(
                        Chunk(
                            f"{meta.doc_id}#p{number}c{i // PIECE_CHARS}",
                            meta.doc_id,
                            text[i : i + PIECE_CHARS],
                            page_start=number,
                            page_end=number,
                        )
                    )
    except Exception as exc:  # pdfminer raises many types on damaged files
        raise InputError(f"cannot read ({type(exc).__name__})", str(path)) from None
    return out


def run_backend(
    name: str,
    index: TextIndex,
    chunks: list[Chunk],
    questions: list[dict],
    gold: dict,
    repeat: int,
    warmup: int,
) -> BackendRun:
    run = BackendRun(name, chunks=len(chunks), questions=len(questions), batches=repeat)
    start = time.perf_counter()
    index.add(tqdm(chunks, desc=f"{name}: indexing", unit="chunk", file=sys.stderr, leave=False))
    index.commit()
    run.index_seconds = time.perf_counter() - start
    queries = [
        (
            q,
            SearchQuery(
                text=q["query"],
                doc_ids=tuple(f"{q['category']}/{s}" for s in q["source"]),
                limit=HITS_PER_QUESTION,
            ),
        )
        for q in questions
    ]
    for q, query in queries:  # untimed pass: scores Precision@1
        run.correct[q["category"]].append(
            best_document(index.search(query)) == f"{q['category']}/{gold.get(q['qid'])}"
        )
    batch = [query for _, query in queries]
    start = time.perf_counter()
    index.search_many(batch)
    run.cold_batch_seconds = time.perf_counter() - start
    for _ in tqdm(range(warmup), desc=f"{name}: warm-up", unit="batch", file=sys.stderr, leave=False):
        index.search_many(batch)
    start = time.perf_counter()
    for _ in range(repeat):
        for _, query in queries:
            t = time.perf_counter()
            index.search(query)
            run.latencies.append(time.perf_counter() - t)
    run.query_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(repeat):
        index.search_many(batch)
    run.batch_seconds = time.perf_counter() - start
    return run


def best_document(hits) -> str | None:
    """The document of the best-scoring chunk (its max chunk score is the highest)."""
    best: dict[str, float] = {}
    for hit in hits:
        best[hit.chunk.doc_id] = max(best.get(hit.chunk.doc_id, float("-inf")), hit.score)
    return max(best, key=best.get) if best else None


def print_table(runs: list[BackendRun], tokenize_rate: float) -> None:
    print(f"baseline: tokenizing alone {tokenize_rate:,.0f} chunks/s")
    header = (
        "backend",
        "chunks",
        "index s",
        "chunks/s",
        "x tokenize",
        "p50 ms",
        "p95 ms",
        "queries/s",
        "batch q/s",
        "cold batch q/s",
        *(f"P@1 {c}" for c in CATEGORIES),
        "P@1 all",
    )
    rows = [
        (
            r.name,
            f"{r.chunks}",
            f"{r.index_seconds:.1f}",
            f"{r.chunks_per_second:,.0f}",
            f"{r.chunks_per_second / tokenize_rate:.2f}",
            f"{r.percentile(0.5):.1f}",
            f"{r.percentile(0.95):.1f}",
            f"{r.queries_per_second:,.0f}",
            f"{r.batch_queries_per_second:,.0f}",
            f"{r.cold_batch_queries_per_second:,.0f}",
            *(f"{r.precision(c):.3f}" for c in CATEGORIES),
            f"{r.precision():.3f}",
        )
        for r in runs
    ]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).rjust(w) for x, w in zip(row, widths)))
    if len(runs) == 2:
        embedded, elastic = runs
        print(
            f"elasticsearch / embedded: indexing {elastic.chunks_per_second / embedded.chunks_per_second:.2f}x, "
            f"queries {elastic.queries_per_second / embedded.queries_per_second:.2f}x one by one, "
            f"{elastic.batch_queries_per_second / embedded.batch_queries_per_second:.2f}x as a batch "
            f"({elastic.cold_batch_queries_per_second / embedded.cold_batch_queries_per_second:.2f}x cold), "
            f"same Precision@1: {elastic.correct == embedded.correct}"
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
