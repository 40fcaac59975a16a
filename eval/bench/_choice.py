"""What the multiple-choice benches on statutes share (lawqa, gyosei): answering, baseline, rule census.

The census counts, for each judging path of qa/statutes/choice.py (each kind of change an alignment finds, and the
paths that judge or decide otherwise: a restated proviso read against the whole sentence, a value asked for,
the model), the questions it fires on and how many of those are answered right.
With `--census FILE` a bench adds its rows to FILE (JSON, one entry per source) and prints the census over
every source in it, so that lawqa and gyosei runs count together.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from core.articles import ARTICLE_KIND
from eval.bench._data import work_dir
from qa.engine import Engine, EngineSettings
from qa.records import Answer, Question
from qa.statutes.choice import ChoiceSettings, Decision
from qa.statutes.layouts import read_layout
from search.backend import SearchQuery
from search.settings import IndexSettings


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The options both benches take: --work, --llm, --model-weight, --show, --census."""
    ap.add_argument("--work", type=Path, help="keep the index here (re-used when the corpus is unchanged)")
    ap.add_argument(
        "--llm", default="none", help="model judging statements and breaking ties (default: none)"
    )
    ap.add_argument(
        "--model-weight",
        type=float,
        default=ChoiceSettings().model_weight,
        help="with --llm: goodness per nat of the model's log-odds that a statement is right "
        "(default %(default)s: the model only breaks ties)",
    )
    ap.add_argument("--show", type=int, default=0, help="print the first N wrong answers with their trace")
    ap.add_argument(
        "--census", type=Path, help="add this run's rule census to FILE and print it over all sources"
    )


def model_settings(settings: IndexSettings, args: argparse.Namespace) -> EngineSettings:
    """The engine with the model of --llm, judging statements with --model-weight."""
    return EngineSettings(settings, llm=args.llm, choice=ChoiceSettings(model_weight=args.model_weight))


@contextmanager
def corpus_index(work: Path | None, root: Path, prefix: str) -> Iterator[IndexSettings]:
    """The source's law corpus (root/corpus) ingested into an index, kept in `work` for re-use."""
    from ingestion.pipeline import ingest

    with work_dir(work, prefix) as where:
        settings = IndexSettings(where / "index")
        started = time.perf_counter()
        summary = ingest(root / "corpus", settings)
        print(f"ingest: {summary.counts} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        yield settings


@dataclass(frozen=True)
class Answered:
    answer: Answer
    decision: Decision


def answer_all(engine: Engine, questions: list[Question]) -> tuple[dict[str, Answered], float]:
    """Each question decided and answered by the engine's multiple-choice answerer; seconds per question."""
    started = time.perf_counter()
    out = {}
    for question in questions:
        decision = engine.choice.decide(question)
        out[question.id] = Answered(engine.choice.answer(question, decision), decision)
    return out, (time.perf_counter() - started) / max(len(questions), 1)


def baseline(engine: Engine, question: Question) -> str:
    """BM25 top-5 articles for the question, then option-word coverage (least covered for negative forms); the
    statements of a combination (or the sentences an option's words fill in) are scored alike and each option gets
    the mean of its statements'."""
    layout = read_layout(question.text, dict(question.choices))
    hits = engine.index.search(SearchQuery(text=layout.stem, kinds=(ARTICLE_KIND,), limit=5))
    words = set()
    for hit in hits:
        words.update(engine.tokenizer.tokens(hit.chunk.text))
    scores = {}
    for mark, text in layout.statements.items():
        tokens = engine.tokenizer.tokens(text)
        scores[mark] = sum(t in words for t in tokens) / max(len(tokens), 1)
    negative = engine.choice.laws.form(layout.stem) == "negative"
    if layout.kind in ("combination", "blanks"):
        scores = {
            letter: sum(scores[m] for m in marks) / len(marks) for letter, marks in layout.options.items()
        }
    elif layout.kind == "counting":
        return min(layout.counts, key=lambda letter: abs(layout.counts[letter] - len(scores) / 2))
    return (min if negative else max)(scores, key=scores.get)


def census_rows(answered: dict[str, Answered], gold: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    """path -> {"fired": question ids, "right": those answered right}."""
    rows: dict[str, dict[str, list[str]]] = defaultdict(lambda: {"fired": [], "right": []})
    for qid, a in sorted(answered.items()):
        for path in sorted(a.decision.paths):
            rows[path]["fired"].append(qid)
            if a.answer.value == gold[qid]:
                rows[path]["right"].append(qid)
    return dict(rows)


def print_census(source: str, rows: dict[str, dict[str, list[str]]], shared: Path | None) -> None:
    """The census of this run, and over every source in `shared` (this one's rows are written there first)."""
    sources = {source: rows}
    if shared is not None:
        known = json.loads(shared.read_text(encoding="utf-8")) if shared.exists() else {}
        known[source] = rows
        shared.write_text(json.dumps(known, ensure_ascii=False, indent=1), encoding="utf-8")
        sources = known
    names = sorted({p for r in sources.values() for p in r})
    print(f"rule census (questions a judging path fires on / of those answered right): {', '.join(sources)}")
    print(f"{'path':16}" + "".join(f"{s:>16}" for s in sources) + f"{'all':>16}")
    for path in names:
        cells = [
            (len(r.get(path, {}).get("fired", [])), len(r.get(path, {}).get("right", [])))
            for r in sources.values()
        ]
        fired, right = sum(c[0] for c in cells), sum(c[1] for c in cells)
        print(
            f"{path:16}"
            + "".join(f"{f'{r}/{f}':>16}" for f, r in cells)
            + f"{f'{right}/{fired}':>16}"
            + ("   (fewer than 3)" if fired < 3 else "")
        )


def accuracy(picks: dict[str, str], gold: dict[str, str], ids: set[str]) -> str:
    right = sum(picks[i] == gold[i] for i in ids)
    return f"{right / max(len(ids), 1):.3f} ({right}/{len(ids)})"
