"""`python -m eval.bench retrieval`: AI CUP document retrieval, Precision@1 per category and backend, and q/s.

    python -m eval.bench retrieval [--backend embedded|elasticsearch|both] [--workers N] [--show-errors N]
                                   [--cache DIR]

The benchmark builds its corpus at run time under --cache (default
.cache/bench/aicup, ignored by git): links to the finance and insurance PDFs
of ../shared/data/aicup/reference, and one text document per FAQ id
(faq/<id>.txt: each entry's question, then its answers) from
reference/faq/pid_map_content.json. It ingests that corpus with the real
ingest (incremental: the second run only checks hashes), then answers the
60 dev questions with the Engine in retrieve mode (keyword search only,
candidates restricted to each question's `source` documents).

Variants, all in the same run over the same index:
- baseline: the question text alone as one BM25 match clause, documents by their best chunk
  (about the organisers' jieba + BM25 baseline);
- engine: the engine's query (key-word phrases, boosted titles and statement titles, question
  terms, small chunks only) with each doc_score aggregation of TextSettings: decay (the
  default: best chunks weighted 1, 1/2, 1/4, 1/8), max, top3_sum; the 60 questions asked as
  one batch (Engine.answer_many: one `_msearch` on Elasticsearch), as `qa.run` asks them;
- engine 1-by-1: the default asked one question at a time (a round trip per search).

Elasticsearch is measured when FINQA_ES_URL is set (or --backend elasticsearch).
Figures: P@1 overall and per category, questions per second, and the ratio to the baseline;
with both backends, Elasticsearch's q/s over embedded's for the batch and one by one.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from eval.bench._data import shared_data
from parser.rulefile import PROJECT_ROOT

DEFAULT_CACHE = PROJECT_ROOT / ".cache" / "bench" / "aicup"
CATEGORIES = ("insurance", "finance", "faq")


def build_corpus(aicup: Path, corpus: Path) -> int:
    """Link the reference PDFs and write one text file per FAQ id; returns the number of FAQ documents."""
    corpus.mkdir(parents=True, exist_ok=True)
    for category in ("finance", "insurance"):
        link = corpus / category
        target = aicup / "reference" / category
        if link.is_symlink() and link.resolve() != target.resolve():
            link.unlink()
        if not link.exists():
            link.symlink_to(target.resolve(), target_is_directory=True)
    faq_dir = corpus / "faq"
    faq_dir.mkdir(exist_ok=True)
    entries = json.loads((aicup / "reference" / "faq" / "pid_map_content.json").read_text(encoding="utf-8"))
    for pid, items in entries.items():
        lines = []
        for item in items:
            lines.append(item["question"].strip())
            lines += [a.strip() for a in item.get("answers", []) if a.strip()]
            lines.append("")
        text = "\n".join(lines).strip() + "\n"
        path = faq_dir / f"{pid}.txt"
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged files keep their hash
            path.write_text(text, encoding="utf-8")
    return len(entries)


def gold_documents(aicup: Path) -> dict[str, str]:
    rows = json.loads((aicup / "ground_truths_dev.json").read_text(encoding="utf-8"))["ground_truths"]
    return {str(r["qid"]): f"{r['category']}/{r['retrieve']}" for r in rows}


@dataclasses.dataclass
class Result:
    backend: str
    variant: str
    hits: dict[str, list[bool]]  # category -> correct per question
    seconds: float
    errors: list[str]

    @property
    def questions(self) -> int:
        return sum(len(v) for v in self.hits.values())

    def precision(self, category: str | None = None) -> float:
        flags = self.hits.get(category, []) if category else [f for v in self.hits.values() for f in v]
        return sum(flags) / len(flags) if flags else 0.0

    @property
    def per_second(self) -> float:
        return self.questions / self.seconds if self.seconds else 0.0


def run_variant(engine, questions, gold, backend: str, variant: str, answer) -> Result:
    """`answer(engine, questions)` gives each question's ranked documents; timed over the whole list."""
    hits: dict[str, list[bool]] = defaultdict(list)
    errors = []
    started = time.perf_counter()
    ranked = answer(engine, questions)
    seconds = time.perf_counter() - started
    for question, documents in zip(questions, ranked):
        ok = bool(documents) and documents[0] == gold[question.id]
        hits[question.category].append(ok)
        if not ok:
            errors.append(f"{question.id} [{question.category}] {question.text} -> {documents[:3]} gold {gold[question.id]}")
    return Result(backend, variant, dict(hits), seconds, errors)


def one_by_one(engine, questions) -> list[list[str]]:
    """The engine asked one question at a time (a search round trip per question)."""
    return [engine.answer(q).documents for q in questions]


def as_batch(engine, questions) -> list[list[str]]:
    """The engine asked the whole list at once (Engine.answer_many: the searches in one batch)."""
    return [a.documents for a in engine.answer_many(questions)]


def baseline_documents(engine, questions) -> list[list[str]]:
    """Each question as one BM25 clause over its candidates, one at a time; documents by their best chunk."""
    from search.backend import SearchQuery

    ranked = []
    for question in questions:
        hits = engine.index.search(SearchQuery(text=question.text, doc_ids=question.sources, limit=40))
        best: dict[str, float] = {}
        for hit in hits:
            best.setdefault(hit.chunk.doc_id, hit.score)
        ranked.append(sorted(best, key=lambda d: -best[d]))
    return ranked


def measure(backend: str, corpus: Path, cache: Path, questions, gold, workers: int) -> list[Result]:
    from parser.ingest import ingest
    from qa.engine import Engine, EngineSettings
    from qa.text_answer import DOC_SCORES, TextSettings
    from search.settings import IndexSettings

    index = IndexSettings(cache / f"index-{backend}", backend=backend, es_prefix="finqa-bench-aicup")
    summary = ingest(corpus, index, workers=workers)
    print(f"[{backend}] {summary.text().splitlines()[0]}", file=sys.stderr)
    results = []
    with Engine(EngineSettings(index=index, mode="retrieve")) as engine:
        results.append(run_variant(engine, questions, gold, backend, "baseline", baseline_documents))
        as_batch(engine, questions)  # warm the server's caches and the tokenizer before timing
        for doc_score in DOC_SCORES:
            engine.text.settings = dataclasses.replace(engine.text.settings, doc_score=doc_score)
            results.append(run_variant(engine, questions, gold, backend, f"engine/{doc_score}", as_batch))
        engine.text.settings = dataclasses.replace(engine.text.settings, doc_score=TextSettings().doc_score)
        results.append(run_variant(engine, questions, gold, backend, f"engine/{TextSettings().doc_score} 1-by-1",
                                   one_by_one))
    return results


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.bench retrieval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=("embedded", "elasticsearch", "both"),
                    default="both" if os.environ.get("FINQA_ES_URL") else "embedded")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show-errors", type=int, default=0, metavar="N", help="list N misses of the default variant")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    aicup = shared_data("aicup")
    if aicup is None:
        return 0
    from qa.questions import load_questions
    from qa.text_answer import TextSettings

    corpus = args.cache / "corpus"
    faq = build_corpus(aicup, corpus)
    print(f"corpus: {corpus} (PDFs linked, {faq} FAQ documents written)", file=sys.stderr)
    questions = load_questions(aicup / "questions_dev.json")
    gold = gold_documents(aicup)
    backends = ("embedded", "elasticsearch") if args.backend == "both" else (args.backend,)
    results = [r for backend in backends for r in measure(backend, corpus, args.cache, questions, gold, args.workers)]

    default = f"engine/{TextSettings().doc_score}"
    print(f"AI CUP dev, {len(questions)} questions, Precision@1 (keyword search only; default doc_score={TextSettings().doc_score})")
    print(f"{'backend':<14}{'variant':<22}{'all':>7}" + "".join(f"{c:>11}" for c in CATEGORIES) + f"{'q/s':>9}{'vs base':>9}")
    for backend in backends:
        base = next(r for r in results if r.backend == backend and r.variant == "baseline")
        for r in (r for r in results if r.backend == backend):
            ratio = r.precision() / base.precision() if base.precision() else 0.0
            print(f"{backend:<14}{r.variant:<22}{r.precision():>7.4f}" + "".join(f"{r.precision(c):>11.4f}" for c in CATEGORIES)
                  + f"{r.per_second:>9.1f}{ratio:>8.2f}x")
    if len(backends) == 2:
        for variant in (default, f"{default} 1-by-1"):
            rate = {r.backend: r.per_second for r in results if r.variant == variant}
            print(f"embedded / elasticsearch q/s, {variant}: {rate['embedded'] / rate['elasticsearch']:.2f}x")
    if args.show_errors:
        for r in results:
            if r.variant == default:
                print(f"\nmisses of {r.backend} {r.variant}:")
                for line in r.errors[: args.show_errors]:
                    print(f"  {line}")
    return 0
