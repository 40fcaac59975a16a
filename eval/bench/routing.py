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
import json
import os
import re
import time

from core.command_names import command_name
from eval.bench._data import shared_data
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


def main(argv: list[str]) -> int:
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
    args = parser.parse_args(argv)
    finglm = shared_data("finglm")
    if finglm is None:
        return 0
    rows = [
        json.loads(line)
        for line in (finglm / "A-list-answer.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    questions = [Question(str(r["id"]), r["question"]) for r in rows]

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

    analyses = [analyzer.run(q) for q in questions]
    confusion: dict[tuple[str, str], int] = collections.Counter()
    by_rule: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    wrong_by_rule: dict[str, list[str]] = collections.defaultdict(list)
    right = collections.Counter()
    keyword_total = keyword_found = 0
    unregistered = 0
    fields = analyzer.fields
    for row, analysis in zip(rows, analyses):
        gold_type, got_type = row["type"], finglm_type(analysis)
        confusion[(gold_type, got_type)] += 1
        by_rule[analysis.rule_id][0] += 1
        if gold_type == got_type:
            right["type"] += 1
        else:
            by_rule[analysis.rule_id][1] += 1
            wrong_by_rule[analysis.rule_id].append(f"{gold_type}->{got_type} {row['question']}")
        right["literal"] += LITERAL[gold_type] == analysis.type

        prompt = row["prompt"]
        gold_names = {prompt.get("ent_name"), prompt.get("ent_short_name")} - {None, ""}
        got = analysis.company
        if (not gold_names and got is None and not analysis.candidates) or (
            got and gold_names & {got.name, got.short_name}
        ):
            right["company"] += 1
        unregistered += any(t.startswith("company: unregistered") for t in analysis.trace)
        right["year"] += set(analysis.years) == gold_years(row)

        found = set(analysis.fields) | {fields.canonical(k) or k for k in analysis.keywords}
        for word in gold_keywords(row):
            keyword_total += 1
            keyword_found += (fields.canonical(word) or word) in found

    n = len(rows)
    figures = {
        "type": right["type"] / n,
        "company": right["company"] / n,
        "year": right["year"] / n,
        "keywords": keyword_found / max(keyword_total, 1),
    }

    # Throughput: the analyzer against the regex loop, questions per CPU-second (the machine is shared).
    best = 0.0
    for _ in range(max(args.repeat, 1)):
        t0 = time.process_time()
        for q in questions:
            analyzer.run(q)
        best = max(best, len(questions) / max(time.process_time() - t0, 1e-9))
    loop = regex_loop_companies(register)
    sample = questions[: args.baseline_questions]
    t0 = time.process_time()
    for q in sample:
        baseline_run(analyzer, loop, q)
    baseline = len(sample) / max(time.process_time() - t0, 1e-9)
    figures["throughput"] = best

    print(f"\nFinGLM dev: {n} questions, {keyword_total} gold key words, no language model\n")
    print("confusion (rows: gold FinGLM type, columns: routed as)")
    print("gold  " + "".join(f"{t:>7}" for t in FINGLM_TYPES) + "   total")
    for g in FINGLM_TYPES:
        cells = [confusion[(g, t)] for t in FINGLM_TYPES]
        print(f"{g:<6}" + "".join(f"{c:>7}" for c in cells) + f"{sum(cells):>8}")
    print("\nrules that decided (questions, wrong), worst first")
    for rule_id, (count, wrong) in sorted(by_rule.items(), key=lambda kv: (-kv[1][1], -kv[1][0])):
        print(f"  {rule_id:<28}{count:>6}{wrong:>6}")
        for example in wrong_by_rule[rule_id][: args.show]:
            print(f"      {example}")
    print(f"\ntype accuracy (FinGLM types)          {figures['type']:.4f}   target >= {TARGETS['type']}")
    print(
        f"type accuracy (literal 1-2 -> ranking)  {right['literal'] / n:.4f}   (no 1-2 dev question is a ranking)"
    )
    print(
        f"company accuracy                        {figures['company']:.4f}   target >= {TARGETS['company']}"
        f"   ({unregistered} named companies missing from the register, taken as written)"
    )
    print(f"year accuracy                           {figures['year']:.4f}   target >= {TARGETS['year']}")
    print(
        f"key-word recall                         {figures['keywords']:.4f}   target >= {TARGETS['keywords']}"
    )
    print(
        f"throughput (classification + extraction, CPU time, best of {args.repeat}): {best:,.0f} q/s   "
        f"target >= {TARGETS['throughput']:,.0f}"
    )
    print(f"machine load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"regex-loop baseline ({len(loop)} per-company regexes, {len(sample)} questions): {baseline:,.0f} q/s   "
        f"ratio {best / baseline:.1f}x"
    )
    met = all(figures[k] >= v for k, v in TARGETS.items())
    print(
        "all targets met"
        if met
        else "targets NOT met: " + ", ".join(k for k, v in TARGETS.items() if figures[k] < v)
    )
    return 0 if met else 1
