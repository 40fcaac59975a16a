"""lawqa_jp: four-choice questions on Japanese statutes, answered over the law corpus.

    python -m eval.bench lawqa [--work DIR] [--llm PATH [--model-weight W]] [--only-ties] [--show N] [--census FILE]

Ingests ../shared/data/lawqa_jp/corpus with `ingestion.pipeline` (kept in --work
for re-use), answers questions_dev.json with the engine (`qa.run`'s path) and
reports, in one run:
- accuracy overall, by question form (正しい, 誤り, 該当しない, which article,
  other; and, overlapping them, questions whose options state numbers or periods) and on two fixed halves (ids in order, alternating:
  half A = 1st, 3rd, ...; half B = 2nd, 4th, ...);
- the baseline: BM25 over the articles with the question, then the option
  whose words the top 5 articles cover most (least, for 誤り/該当しない forms);
- seconds per question for both;
- retrieval: the share of questions whose cited article (the gold context's
  law and article, used only here to score) is among the engine's first 5
  evidence articles.
- the rule census (eval/bench/_choice.py): each judging path, the questions it
  fires on and how many of those are right; with --census FILE, over every
  source written to FILE (the gyosei bench writes there too).
With --llm the small model breaks the ties the rules leave (its judgement of each
statement, by the log-probabilities of the labels 正 / 誤, is off unless
--model-weight is set: measured, it lost questions);
--only-ties runs it only on the questions the rules tied on (the rest keep the
rules' answer) to save time on a CPU.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict

from core.articles import article_key
from core.command_names import command_name
from eval.bench._choice import (
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
from qa.statutes.law_refs import LawBook
from search.settings import IndexSettings

_GOLD_LAW = re.compile(r"^## (.+)$", re.M)
_GOLD_ARTICLE = re.compile(r"^### (第.+?条(?:の[0-9]+)*)", re.M)
_NUMERIC = re.compile(
    r"[0-9０-９]+\s*(?:年|日|月|か月|割|%|人)|[一二三四五六七八九十百]+(?:年|日|か月|箇月|割)|百分の"
)


def question_form(question: Question, gold: dict) -> str:
    if "根拠条文" in gold.get("file", ""):
        return "which article"
    text = question.text
    if "誤っ" in text or "誤り" in text:
        return "誤り"
    if "該当しない" in text:
        return "該当しない"
    if "正し" in text or "適切な" in text:
        return "正しい"
    return "other"


def halves(ids: list[str]) -> dict[str, set[str]]:
    ordered = sorted(ids)
    return {"half A": set(ordered[0::2]), "half B": set(ordered[1::2])}


def cited_articles(gold: dict, laws: LawBook) -> set[tuple[str, str]]:
    """(doc_id, article key) of the gold context's articles: the scoring key for retrieval only."""
    out = set()
    for block in re.split(r"(?=^## )", gold.get("context", ""), flags=re.M):
        law = _GOLD_LAW.search(block)
        if not law:
            continue
        named = laws.laws_named(law.group(1))
        for article in _GOLD_ARTICLE.findall(block):
            if named:
                out.add((named[0], article_key(article)))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} lawqa", description=__doc__.split("\n\n")[0]
    )
    add_arguments(ap)
    ap.add_argument(
        "--only-ties", action="store_true", help="with --llm: ask the model only on tied questions"
    )
    args = ap.parse_args(argv)
    root = shared_data("lawqa_jp")
    if root is None:
        return 0
    questions = load_questions(root / "questions_dev.json")
    gold = json.loads((root / "gold_dev.json").read_text(encoding="utf-8"))
    with corpus_index(args.work, root, "lawqa-") as settings:
        return _measure(settings, questions, gold, args)


def _measure(settings: IndexSettings, questions: list[Question], gold: dict, args) -> int:
    results: dict[str, dict] = {}
    with Engine(EngineSettings(settings)) as engine:
        laws = engine.choice.laws
        answered, engine_seconds = answer_all(engine, questions)
        started = time.perf_counter()
        base = {q.id: baseline(engine, q) for q in questions}
        base_seconds = (time.perf_counter() - started) / len(questions)
        for q in questions:
            answer = answered[q.id].answer
            top = {
                (e.doc, article_key(e.text.split(": ", 1)[0].split(" ", 1)[-1])) for e in answer.evidence[:5]
            }
            cited = cited_articles(gold[q.id], laws)
            results[q.id] = {
                "form": question_form(q, gold[q.id]),
                "gold": gold[q.id]["answer"],
                "numeric": bool(_NUMERIC.search(" ".join(t for _, t in q.choices))),
                "engine": answer.value,
                "baseline": base[q.id],
                "route": answer.route,
                "cited": bool(cited),
                "found": bool(cited & top),
                "trace": answer.answer,
            }
    model_seconds = 0.0
    if args.llm != "none":
        tied = (
            [q for q in questions if ":rules:tie" in results[q.id]["route"]] if args.only_ties else questions
        )
        started = time.perf_counter()
        with Engine(model_settings(settings, args)) as engine:
            for q in tied:
                answer = engine.answer(q)
                results[q.id]["model"] = answer.value
                results[q.id]["model_route"] = answer.route
        model_seconds = (time.perf_counter() - started) / max(len(tied), 1)
        print(
            f"model on {len(tied)} questions ({'tied only' if args.only_ties else 'all'}), "
            f"{model_seconds:.1f} s per question (load included)"
        )
    _report(results, engine_seconds, base_seconds, args)
    print_census("lawqa", census_rows(answered, {q.id: gold[q.id]["answer"] for q in questions}), args.census)
    return 0


def _report(results: dict[str, dict], engine_s: float, base_s: float, args) -> None:
    groups: dict[str, set[str]] = defaultdict(set)
    for qid, r in results.items():
        groups[r["form"]].add(qid)
        if r["numeric"]:  # overlaps the forms: options that state numbers or periods
            groups["numeric options"].add(qid)
    systems = ["engine", "baseline"] + (["model"] if any("model" in r for r in results.values()) else [])

    def acc(system: str, ids: set[str]) -> str:
        right = sum((results[i].get(system) or results[i]["engine"]) == results[i]["gold"] for i in ids)
        return f"{right / len(ids):.3f} ({right}/{len(ids)})"

    rows = [("overall", set(results))] + list(halves(list(results)).items()) + sorted(groups.items())
    print(f"{'':16}" + "".join(f"{s:>18}" for s in systems))
    for name, ids in rows:
        print(f"{name:16}" + "".join(f"{acc(s, ids):>18}" for s in systems))
    cited = [r for r in results.values() if r["cited"]]
    print(
        f"retrieval: cited article in the top 5 for {sum(r['found'] for r in cited)}/{len(cited)} "
        f"= {sum(r['found'] for r in cited) / max(len(cited), 1):.3f} (questions whose gold cites articles)"
    )
    routes = defaultdict(int)
    for r in results.values():
        routes[":".join(r["route"].split(":")[1:2] + r["route"].split(":")[3:4])] += 1
    print(f"routes: {dict(routes)}")
    print(
        f"seconds per question: engine {engine_s:.3f}, baseline {base_s:.3f} "
        f"(ratio {engine_s / max(base_s, 1e-9):.1f}x)"
    )
    shown = 0
    for qid, r in sorted(results.items()):
        if r["engine"] != r["gold"] and shown < args.show:
            print(f"- {qid} [{r['form']}] gold {r['gold']} engine {r['engine']} {r['route']}\n  {r['trace']}")
            shown += 1
