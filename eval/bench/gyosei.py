"""gyosei: five-choice 行政書士 exam questions on Japanese law, answered over the exam's law corpus.

    python -m eval.bench gyosei [--work DIR] [--llm PATH [--model-weight W]] [--show N] [--census FILE]

Ingests ../shared/data/gyosei/corpus with `ingestion.pipeline` (kept in --work
for re-use), answers questions_dev.json with the engine's multiple-choice
answerer and reports, in one run:
- accuracy overall and apart by tags_dev.json: statute questions (the question
  names no 判例) and precedent questions (what no statute states), combination
  questions (options combining statements ア～オ), by layout and by subject;
  the statute figures are the ones the method is judged by;
- the baseline: BM25 over the articles with the question, then the option
  whose words the top 5 articles cover most (least for negative forms; the
  mean over its statements for a combination);
- seconds per question for both;
- the rule census (eval/bench/_choice.py), over every source written to
  --census FILE when given (the lawqa bench writes there too).
With --llm the small model breaks the ties the rules leave (its judgement of each
statement, by the log-probabilities of the labels 正 / 誤, is off unless
--model-weight is set: measured, it lost questions);
its accuracy and time are reported next to the rules'.
"""

from __future__ import annotations

import argparse
import json
import time

from core.command_names import command_name
from eval.bench._choice import (
    accuracy,
    add_arguments,
    answer_all,
    baseline,
    census_rows,
    corpus_index,
    model_settings,
    print_census,
)
from eval.bench._data import shared_data
from qa.engine import Engine, EngineSettings
from qa.io.questions import load_questions
from qa.records import Question
from search.settings import IndexSettings


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} gyosei", description=__doc__.split("\n\n")[0]
    )
    add_arguments(ap)
    args = ap.parse_args(argv)
    root = shared_data("gyosei")
    if root is None:
        return 0
    questions = load_questions(root / "questions_dev.json")
    gold = json.loads((root / "gold_dev.json").read_text(encoding="utf-8"))
    tags = json.loads((root / "tags_dev.json").read_text(encoding="utf-8"))
    with corpus_index(args.work, root, "gyosei-") as settings:
        return _measure(settings, questions, gold, tags, args)


def groups(questions: list[Question], tags: dict[str, dict], layouts: dict[str, str]) -> dict[str, set[str]]:
    """The question sets reported: overall, statute / precedent, combination, layout, subject."""
    ids = {q.id for q in questions}
    statute = {i for i in ids if not tags[i]["precedent"]}
    out = {
        "overall": ids,
        "statute (no 判例)": statute,
        "precedent (判例)": ids - statute,
        "combination": {i for i in ids if tags[i]["combination"]},
        "statute combination": {i for i in statute if tags[i]["combination"]},
    }
    for kind in sorted(set(layouts.values())):
        out[f"layout {kind}"] = {i for i in ids if layouts[i] == kind}
    for subject in sorted({t["subject"] for t in tags.values()}):
        out[f"statute {subject}"] = {i for i in statute if tags[i]["subject"] == subject}
    return out


def _measure(
    settings: IndexSettings, questions: list[Question], gold: dict[str, str], tags: dict[str, dict], args
) -> int:
    with Engine(EngineSettings(settings)) as engine:
        answered, engine_s = answer_all(engine, questions)
        started = time.perf_counter()
        systems = {
            "engine": {i: a.answer.value for i, a in answered.items()},
            "baseline": {q.id: baseline(engine, q) for q in questions},
        }
        base_s = (time.perf_counter() - started) / len(questions)
    model_s = 0.0
    if args.llm != "none":
        with Engine(model_settings(settings, args)) as engine:
            modelled, model_s = answer_all(engine, questions)
        systems["model"] = {i: a.answer.value for i, a in modelled.items()}
    layouts = {i: a.decision.layout.kind for i, a in answered.items()}
    print(f"{'':24}" + "".join(f"{s:>18}" for s in systems))
    for name, ids in groups(questions, tags, layouts).items():
        if ids:
            print(f"{name:24}" + "".join(f"{accuracy(picks, gold, ids):>18}" for picks in systems.values()))
    print(
        f"seconds per question: engine {engine_s:.3f}, baseline {base_s:.3f}"
        + (f", with the model {model_s:.2f} (load included)" if model_s else "")
    )
    print_census("gyosei", census_rows(answered, gold), args.census)
    shown = 0
    for qid, a in sorted(answered.items()):
        if a.answer.value != gold[qid] and not tags[qid]["precedent"] and shown < args.show:
            print(f"- {qid} gold {gold[qid]} engine {a.answer.value} {a.answer.route}\n  {a.answer.answer}")
            shown += 1
    return 0
