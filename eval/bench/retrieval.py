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

Variants, all in the same run:
- organisers: the AI CUP organisers' baseline as they published it: each candidate's whole
  pdfplumber text (the FAQ entry's JSON), jieba `cut_for_search`, rank_bm25's BM25Okapi over the
  question's candidates (texts extracted once and cached under --cache);
- baseline: the question text alone as one BM25 match clause over the engine's index, documents
  by their best chunk;
- engine: the engine's query (key-word phrases, boosted titles and statement titles, question
  terms, small chunks only) with each doc_score aggregation of TextSettings: decay (the
  default: best chunks weighted 1, 1/2, 1/4, 1/8), max, top3_sum.

Elasticsearch is measured when FINQA_ES_URL is set (or --backend elasticsearch).
Figures: P@1 overall, per category and on two fixed halves of the questions (qid order,
alternating: A = 1st, 3rd, ...; B = 2nd, 4th, ...; tune on A, check on B), questions per second,
and the engine's speed as a ratio to the index baseline's.
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

from core.command_names import command_name
from core.rulefile import PROJECT_ROOT
from eval.bench._data import shared_data

DEFAULT_CACHE = PROJECT_ROOT / ".cache" / "bench" / "aicup"
CATEGORIES = ("insurance", "finance", "faq")
HALVES = ("A", "B")


def halves(questions) -> dict[str, str]:
    """Question id -> "A" or "B": qid order (numeric), alternating."""
    order = sorted(questions, key=lambda q: (len(q.id), q.id))
    return {q.id: HALVES[i % 2] for i, q in enumerate(order)}


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
    hits: dict[str, list[bool]]  # category and half ("A", "B") -> correct per question
    seconds: float
    errors: list[str]

    @property
    def questions(self) -> int:
        return sum(len(self.hits.get(c, [])) for c in CATEGORIES)

    def precision(self, group: str | None = None) -> float:
        flags = self.hits.get(group, []) if group else [f for c in CATEGORIES for f in self.hits.get(c, [])]
        return sum(flags) / len(flags) if flags else 0.0

    @property
    def per_second(self) -> float:
        return self.questions / self.seconds if self.seconds else 0.0


def run_variant(engine, questions, gold, backend: str, variant: str, answer) -> Result:
    half = halves(questions)
    hits: dict[str, list[bool]] = defaultdict(list)
    errors = []
    started = time.perf_counter()
    for question in questions:
        documents = answer(engine, question)
        ok = bool(documents) and documents[0] == gold[question.id]
        hits[question.category].append(ok)
        hits[half[question.id]].append(ok)
        if not ok:
            errors.append(
                f"{question.id} [{question.category} {half[question.id]}] {question.text} -> "
                f"{documents[:3]} gold {gold[question.id]}"
            )
    return Result(backend, variant, dict(hits), time.perf_counter() - started, errors)


class OrganisersBaseline:
    """The organisers' published baseline: pdfplumber text, jieba cut_for_search, BM25Okapi per question."""

    def __init__(self, corpus: Path, cache: Path):
        self.corpus = corpus
        self.cache = cache / "organisers_text.json"
        self.texts: dict[str, str] = {}

    def load(self, doc_ids: set[str]) -> None:
        """Extract (once, cached) the text of every candidate document."""
        cached = json.loads(self.cache.read_text(encoding="utf-8")) if self.cache.exists() else {}
        missing = sorted(d for d in doc_ids if d not in cached)
        if missing:
            from tqdm import tqdm

            for doc_id in tqdm(
                missing, desc="organisers' baseline: pdfplumber text", unit="file", file=sys.stderr
            ):
                cached[doc_id] = self._extract(doc_id)
            self.cache.write_text(json.dumps(cached, ensure_ascii=False), encoding="utf-8")
        self.texts = cached

    def _extract(self, doc_id: str) -> str:
        pdf = self.corpus / f"{doc_id}.pdf"
        if pdf.exists():
            import pdfplumber

            with pdfplumber.open(pdf) as document:
                return "".join(page.extract_text() or "" for page in document.pages)
        return (self.corpus / f"{doc_id}.txt").read_text(encoding="utf-8")

    def documents(self, _engine, question) -> list[str]:
        import jieba
        from rank_bm25 import BM25Okapi

        candidates = list(question.sources)
        tokenized = [list(jieba.cut_for_search(self.texts.get(d, ""))) or [""] for d in candidates]
        scores = BM25Okapi(tokenized).get_scores(list(jieba.cut_for_search(question.text)))
        return [d for _, d in sorted(zip(scores, candidates), key=lambda p: -p[0])]


def baseline_documents(engine, question) -> list[str]:
    """The question as one BM25 clause over the candidates; documents by their best chunk."""
    from search.backend import SearchQuery

    hits = engine.index.search(SearchQuery(text=question.text, doc_ids=question.sources, limit=40))
    best: dict[str, float] = {}
    for hit in hits:
        best.setdefault(hit.chunk.doc_id, hit.score)
    return sorted(best, key=lambda d: -best[d])


def measure(backend: str, corpus: Path, cache: Path, questions, gold, workers: int) -> list[Result]:
    from ingestion.pipeline import ingest
    from qa.engine import Engine, EngineSettings
    from qa.text.answer import DOC_SCORES
    from search.settings import IndexSettings

    index = IndexSettings(cache / f"index-{backend}", backend=backend, es_prefix="finqa-bench-aicup")
    summary = ingest(corpus, index, workers=workers)
    print(f"[{backend}] {summary.text().splitlines()[0]}", file=sys.stderr)
    results = []
    with Engine(EngineSettings(index=index, mode="retrieve")) as engine:
        if backend == "embedded":
            organisers = OrganisersBaseline(corpus, cache)
            organisers.load({d for q in questions for d in q.sources})
            results.append(run_variant(engine, questions, gold, backend, "organisers", organisers.documents))
        results.append(run_variant(engine, questions, gold, backend, "baseline", baseline_documents))
        for doc_score in DOC_SCORES:
            engine.text.settings = dataclasses.replace(engine.text.settings, doc_score=doc_score)
            results.append(
                run_variant(
                    engine,
                    questions,
                    gold,
                    backend,
                    f"engine/{doc_score}",
                    lambda e, q: e.answer(q).documents,
                )
            )
    return results


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} retrieval", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--backend",
        choices=("embedded", "elasticsearch", "both"),
        default="both" if os.environ.get("FINQA_ES_URL") else "embedded",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--show-errors", type=int, default=0, metavar="N", help="list N misses of the default variant"
    )
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    aicup = shared_data("aicup")
    if aicup is None:
        return 0
    from qa.io.questions import load_questions
    from qa.text.answer import TextSettings

    corpus = args.cache / "corpus"
    faq = build_corpus(aicup, corpus)
    print(f"corpus: {corpus} (PDFs linked, {faq} FAQ documents written)", file=sys.stderr)
    questions = load_questions(aicup / "questions_dev.json")
    gold = gold_documents(aicup)
    backends = ("embedded", "elasticsearch") if args.backend == "both" else (args.backend,)
    results = [
        r for backend in backends for r in measure(backend, corpus, args.cache, questions, gold, args.workers)
    ]

    default = f"engine/{TextSettings().doc_score}"
    print(
        f"AI CUP dev, {len(questions)} questions, Precision@1 (keyword search only; default doc_score={TextSettings().doc_score})"
    )
    groups = CATEGORIES + HALVES
    print(
        f"{'backend':<14}{'variant':<22}{'all':>7}"
        + "".join(f"{g:>11}" for g in groups)
        + f"{'q/s':>9}{'speed vs base':>15}"
    )
    for backend in backends:
        base = next(r for r in results if r.backend == backend and r.variant == "baseline")
        for r in (r for r in results if r.backend == backend):
            ratio = r.per_second / base.per_second if base.per_second else 0.0
            print(
                f"{backend:<14}{r.variant:<22}{r.precision():>7.4f}"
                + "".join(f"{r.precision(g):>11.4f}" for g in groups)
                + f"{r.per_second:>9.1f}{ratio:>14.2f}x"
            )
    if args.show_errors:
        for r in results:
            if r.variant == default:
                print(f"\nmisses of {r.backend} {r.variant}:")
                for line in r.errors[: args.show_errors]:
                    print(f"  {line}")
    return 0
