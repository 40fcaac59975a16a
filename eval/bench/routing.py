"""`python -m eval.bench routing`: question understanding on the FinGLM dev list.

Measures, with the full FinGLM reports list (11,588 reports) in the company
register and no language model:

- type accuracy against the gold FinGLM type, with a confusion matrix and the
  rules that decided wrongly most often;
- company accuracy (gold full or short name), year accuracy (the set of years
  asked), key-word recall (gold key words, as canonical fields, found among the
  analysis's fields and key words);
- throughput of classification + extraction in questions per CPU-second,
  against a plain regex-loop baseline (one compiled regex per company, tried
  in a loop) over the same questions in the same run, reported as a ratio.

FinGLM type 1-2 questions in the dev list are all "X和Y分别是多少": several
fields of one company-year, which the rules route as `lookup` with two or more
fields. So types are compared as FinGLM types: lookup with one field = 1,
lookup with several fields or ranking = 1-2, formula = 2-1, compare_years =
2-2, report_text = 3-1, open = 3-2. The literal mapping (1-2 -> ranking) is
printed as well.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.command_names import command_name
from eval.bench._data import json_lines, shared_data
from qa.records import Analysis, Question
from qa.understand.analyse import AnalyzerConfig, QuestionAnalyzer
from qa.understand.companies import CompanyRegister, read_reports_list

FINGLM_TYPES = ("1", "1-2", "2-1", "2-2", "3-1", "3-2")
LITERAL = {
    "1": "lookup",
    "1-2": "ranking",
    "2-1": "formula",
    "2-2": "compare_years",
    "3-1": "report_text",
    "3-2": "open",
}
TARGETS = {"type": 0.98, "company": 0.99, "year": 0.995, "keywords": 0.95, "throughput": 7000.0}
_YEAR_KEY = re.compile(r"^((?:19|20)\d{2})年")


def finglm_type(analysis: Analysis) -> str:
    if analysis.type == "ranking" or (analysis.type == "lookup" and len(analysis.fields) >= 2):
        return "1-2"
    return {"lookup": "1", "formula": "2-1", "compare_years": "2-2", "report_text": "3-1"}.get(
        analysis.type, "3-2"
    )


def gold_years(row: dict) -> set[int]:
    prompt = row["prompt"]
    years = {int(prompt["year"])} if prompt.get("year") else set()
    years |= {int(m.group(1)) for key in prompt for m in [_YEAR_KEY.match(key)] if m}
    return years


def gold_keywords(row: dict) -> list[str]:
    words = row["prompt"].get("key_word") or ""
    if "|" in words:  # the negative-answer words, not words of the question
        return []
    return [w for w in (_YEAR_KEY.sub("", w).removeprefix("上年") for w in words.split("、")) if w]


def regex_loop_companies(register: CompanyRegister) -> list[tuple[re.Pattern, str]]:
    """The baseline: one regex per company (its names, longest first), tried one after another."""
    loop = []
    for company in register.companies:
        names = sorted({n for n in (company.name, company.short_name) if n}, key=len, reverse=True)
        loop.append((re.compile("|".join(map(re.escape, names))), company.name))
    return loop


def baseline_run(analyzer: QuestionAnalyzer, loop, question: Question) -> tuple[str, str]:
    """Company by the regex loop (longest match wins), the rest as the analyzer does it."""
    best, name = 0, ""
    for pattern, company in loop:
        m = pattern.search(question.text)
        if m and m.end() - m.start() > best:
            best, name = m.end() - m.start(), company
    return name, analyzer.run(question).type


@dataclass
class Scores:
    """The routing of the dev list against its gold: types, rules, companies, years and key words."""

    confusion: collections.Counter = field(default_factory=collections.Counter)  # (gold, routed) -> questions
    by_rule: dict[str, list[int]] = field(default_factory=lambda: collections.defaultdict(lambda: [0, 0]))
    wrong_by_rule: dict[str, list[str]] = field(default_factory=lambda: collections.defaultdict(list))
    right: collections.Counter = field(default_factory=collections.Counter)
    keyword_total: int = 0
    keyword_found: int = 0
    unregistered: int = 0  # questions naming a company the register does not hold


@dataclass(frozen=True)
class Throughput:
    """Questions per CPU-second: the analyzer (best of its passes) and the regex-loop baseline."""

    best: float
    baseline: float
    loop_regexes: int
    sample: int


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    finglm = shared_data("finglm")
    if finglm is None:
        return 0
    rows = json_lines(finglm / "A-list-answer.jsonl")
    questions = [Question(str(r["id"]), r["question"]) for r in rows]
    register, analyzer = _analyzer(finglm)
    scores = score(rows, [analyzer.run(q) for q in questions], analyzer)
    n = len(rows)
    figures = {
        "type": scores.right["type"] / n,
        "company": scores.right["company"] / n,
        "year": scores.right["year"] / n,
        "keywords": scores.keyword_found / max(scores.keyword_total, 1),
    }
    speed = measure_throughput(analyzer, register, questions, args.repeat, args.baseline_questions)
    figures["throughput"] = speed.best
    print(f"\nFinGLM dev: {n} questions, {scores.keyword_total} gold key words, no language model\n")
    print_confusion(scores)
    print_rules(scores, args.show)
    print_figures(figures, scores, n, speed, args.repeat)
    return 0 if targets_met(figures) else 1


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} routing", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed passes over the questions (best is kept)"
    )
    parser.add_argument(
        "--baseline-questions", type=int, default=300, help="questions timed for the slow baseline"
    )
    parser.add_argument("--show", type=int, default=3, help="wrong questions shown per worst rule")
    return parser.parse_args(argv)


def _analyzer(finglm: Path) -> tuple[CompanyRegister, QuestionAnalyzer]:
    """The analyzer over the full FinGLM reports list plus the A-list, with the register it reads."""
    started = time.perf_counter()
    entries = read_reports_list(finglm / "reports_list.csv") + read_reports_list(
        finglm / "A-list-txt-name.txt"
    )
    register = CompanyRegister(entries)
    analyzer = QuestionAnalyzer(AnalyzerConfig(register=register))
    print(
        f"register: {len(register)} companies from {sum(1 for _ in open(finglm / 'reports_list.csv', encoding='utf-8')) - 1} "
        f"reports + the A-list; analyzer ready in {time.perf_counter() - started:.2f}s"
    )
    gc.freeze()  # the register is long-lived: keep the cyclic collector from re-walking it
    return register, analyzer


def score(rows: list[dict], analyses: list[Analysis], analyzer: QuestionAnalyzer) -> Scores:
    scores = Scores()
    fields = analyzer.fields
    for row, analysis in zip(rows, analyses):
        gold_type, got_type = row["type"], finglm_type(analysis)
        scores.confusion[(gold_type, got_type)] += 1
        scores.by_rule[analysis.rule_id][0] += 1
        if gold_type == got_type:
            scores.right["type"] += 1
        else:
            scores.by_rule[analysis.rule_id][1] += 1
            scores.wrong_by_rule[analysis.rule_id].append(f"{gold_type}->{got_type} {row['question']}")
        scores.right["literal"] += LITERAL[gold_type] == analysis.type

        prompt = row["prompt"]
        gold_names = {prompt.get("ent_name"), prompt.get("ent_short_name")} - {None, ""}
        got = analysis.company
        if (not gold_names and got is None and not analysis.candidates) or (
            got and gold_names & {got.name, got.short_name}
        ):
            scores.right["company"] += 1
        scores.unregistered += any(t.startswith("company: unregistered") for t in analysis.trace)
        scores.right["year"] += set(analysis.years) == gold_years(row)

        found = set(analysis.fields) | {fields.canonical(k) or k for k in analysis.keywords}
        for word in gold_keywords(row):
            scores.keyword_total += 1
            scores.keyword_found += (fields.canonical(word) or word) in found
    return scores


def measure_throughput(
    analyzer: QuestionAnalyzer,
    register: CompanyRegister,
    questions: list[Question],
    repeat: int,
    baseline_questions: int,
) -> Throughput:
    """The analyzer against the regex loop, questions per CPU-second (the machine is shared)."""
    best = 0.0
    for _ in range(max(repeat, 1)):
        t0 = time.process_time()
        for q in questions:
            analyzer.run(q)
        best = max(best, len(questions) / max(time.process_time() - t0, 1e-9))
    loop = regex_loop_companies(register)
    sample = questions[:baseline_questions]
    t0 = time.process_time()
    for q in sample:
        baseline_run(analyzer, loop, q)
    baseline = len(sample) / max(time.process_time() - t0, 1e-9)
    return Throughput(best, baseline, len(loop), len(sample))


def print_confusion(scores: Scores) -> None:
    print("confusion (rows: gold FinGLM type, columns: routed as)")
    print("gold  " + "".join(f"{t:>7}" for t in FINGLM_TYPES) + "   total")
    for g in FINGLM_TYPES:
        cells = [scores.confusion[(g, t)] for t in FINGLM_TYPES]
        print(f"{g:<6}" + "".join(f"{c:>7}" for c in cells) + f"{sum(cells):>8}")


def print_rules(scores: Scores, show: int) -> None:
    """The rules that decided, worst first, each with up to `show` of its wrong questions."""
    print("\nrules that decided (questions, wrong), worst first")
    for rule_id, (count, wrong) in sorted(scores.by_rule.items(), key=lambda kv: (-kv[1][1], -kv[1][0])):
        print(f"  {rule_id:<28}{count:>6}{wrong:>6}")
        for example in scores.wrong_by_rule[rule_id][:show]:
            print(f"      {example}")


def print_figures(figures: dict[str, float], scores: Scores, n: int, speed: Throughput, repeat: int) -> None:
    print(f"\ntype accuracy (FinGLM types)          {figures['type']:.4f}   target >= {TARGETS['type']}")
    print(
        f"type accuracy (literal 1-2 -> ranking)  {scores.right['literal'] / n:.4f}   (no 1-2 dev question is a ranking)"
    )
    print(
        f"company accuracy                        {figures['company']:.4f}   target >= {TARGETS['company']}"
        f"   ({scores.unregistered} named companies missing from the register, taken as written)"
    )
    print(f"year accuracy                           {figures['year']:.4f}   target >= {TARGETS['year']}")
    print(
        f"key-word recall                         {figures['keywords']:.4f}   target >= {TARGETS['keywords']}"
    )
    print(
        f"throughput (classification + extraction, CPU time, best of {repeat}): {speed.best:,.0f} q/s   "
        f"target >= {TARGETS['throughput']:,.0f}"
    )
    print(f"machine load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"regex-loop baseline ({speed.loop_regexes} per-company regexes, {speed.sample} questions): "
        f"{speed.baseline:,.0f} q/s   ratio {speed.best / speed.baseline:.1f}x"
    )


def targets_met(figures: dict[str, float]) -> bool:
    """Prints whether every figure meets its target, naming those that do not."""
    met = all(figures[k] >= v for k, v in TARGETS.items())
    print(
        "all targets met"
        if met
        else "targets NOT met: " + ", ".join(k for k, v in TARGETS.items() if figures[k] < v)
    )
    return met
