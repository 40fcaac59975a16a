"""`python -m eval.bench precision [--keep DIR] [--json OUT] [--show N]`: questions the corpus cannot answer.

A wrong number is worse than "not found". Over the five real annual reports of
../shared/data/annual-cn, this benchmark asks questions made from the development
questions there (each lookup's company, year and field) with one part changed to
something the corpus does not hold, and counts every answer that is neither
refused nor correct:

  absent_company   the company replaced by a company of the FinGLM reports list the corpus lacks:
                   near misses first (starting like a corpus company's name, with its province or brand:
                   贵州, 四方, 平安, 金宇, 生物), then others
  absent_year      a year the corpus has no report of for that company
  fifth_quarter    第五季度 after the year: no year has it
  quarter          第三季度 after the year: an annual report holds a quarter's figure only in its table
                   of quarters, so the answer is correct only when its evidence is that quarter's column
  absent_field     a field the company's report has no fact for (an insurer's 保费收入, 已赚保费 or
                   赔付支出 in reports of a distiller, a vaccine maker, a freezer maker and a bank)
  mixed            the company and an absent one (甲和乙): the answer must give the gold value for the one
                   present and name the absent one

Refused: the answer's value is null. Correct: for `mixed`, the gold value and the absent name in the
answer; for `quarter`, a value whose evidence column is the third quarter's. Everything else is
counted as invented and listed. Figures per kind and on two fixed halves of the probes.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from core.command_names import command_name
from core.statements import shared_statement_rules
from eval.bench._data import fixed_halves, ingest_and_answer, shared_data, work_dir
from qa.records import Answer, Question

KINDS = ("absent_company", "absent_year", "fifth_quarter", "quarter", "absent_field", "mixed")
ABSENT_FIELDS = ("保费收入", "已赚保费", "赔付支出")
ABSENT_YEARS = (2008, 2012, 2016)
PER_QUESTION = 2  # absent companies asked in place of each development question's


@dataclass(frozen=True)
class Probe:
    question: Question
    kind: str
    asked: str  # what the question asks that the corpus lacks (a company, year, period or field)
    gold: dict  # the development question's gold row it was made from


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} precision", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--keep", type=Path, help="build the corpus links and the index here (kept, re-used)")
    ap.add_argument("--json", type=Path, help="write every probe and its answer here")
    ap.add_argument("--show", type=int, default=20, help="invented answers listed")
    args = ap.parse_args(argv)
    root, finglm = shared_data("annual-cn"), shared_data("finglm")
    if root is None or finglm is None:
        return 0
    with work_dir(args.keep, "precision-bench-") as work:
        return run(root, finglm / "reports_list.csv", work, args.json, args.show)


def absent_companies(reports_list: Path, present: list[dict]) -> tuple[list[str], list[str]]:
    """Short names of companies the corpus lacks: near misses (their short or full name starts with the first
    two characters of a present company's, its province or brand: 贵州, 四方, 平安, 金宇, 生物) and others,
    each in the list's order."""
    names = {g[key] for g in present for key in ("company", "full_name") if g.get(key)}
    pairs = {name[:2] for name in names}
    near, other = [], []
    with reports_list.open(encoding="utf-8") as handle:
        for row in csv.reader(handle):
            parts = row[0].split("__") if row else []
            if (
                len(parts) < 5
                or parts[1] in names
                or parts[3] in names
                or not re.fullmatch(r"[\u4e00-\u9fff]{4}", parts[3])
            ):
                continue
            short = parts[3]
            if any(short in n or n in short for n in names):
                continue
            (near if short[:2] in pairs or parts[1][:2] in pairs else other).append(short)
    return list(dict.fromkeys(near)), list(dict.fromkeys(other))


def probes(gold: list[dict], near: list[str], other: list[str]) -> list[Probe]:
    """The probes made from the development lookups (see the module docstring)."""
    made: list[Probe] = []
    lookups = [g for g in gold if g["type"] == "lookup" and g.get("value_kind") == "number"]
    spare_near, spare_other = iter(near), iter(other)
    for g in lookups:
        text = g["question"]
        written = g["full_name"] if g["full_name"] in text else g["company"]
        year = f"{g['year']}年"
        if written not in text or year not in text:
            continue
        for absent in (next(spare_near, None), next(spare_other, None))[:PER_QUESTION]:
            if absent:
                made.append(
                    Probe(
                        Question(f"{g['id']}-co-{absent}", text.replace(written, absent)),
                        "absent_company",
                        absent,
                        g,
                    )
                )
        lacking = next(y for y in ABSENT_YEARS if y != g["year"])
        made.append(
            Probe(
                Question(f"{g['id']}-year", text.replace(year, f"{lacking}年")),
                "absent_year",
                str(lacking),
                g,
            )
        )
        made.append(
            Probe(
                Question(f"{g['id']}-q5", text.replace(year, f"{year}第五季度")),
                "fifth_quarter",
                "第五季度",
                g,
            )
        )
        made.append(
            Probe(Question(f"{g['id']}-q3", text.replace(year, f"{year}第三季度")), "quarter", "第三季度", g)
        )
        if g.get("field") and g["field"] in text:
            field = ABSENT_FIELDS[len(made) % len(ABSENT_FIELDS)]
            made.append(
                Probe(Question(f"{g['id']}-field", text.replace(g["field"], field)), "absent_field", field, g)
            )
        absent = next(spare_other, None)
        if absent:
            made.append(
                Probe(
                    Question(
                        f"{g['id']}-mixed",
                        text.replace(written, f"{written}和{absent}").replace("是多少", "分别是多少"),
                    ),
                    "mixed",
                    absent,
                    g,
                )
            )
    return made


def judge(probe: Probe, answer: Answer) -> str:
    """ "refused", "correct" or "invented"."""
    if probe.kind == "mixed":
        value = (answer.value or "").replace(",", "")
        right = value and _same(value, probe.gold["value"])
        if probe.asked in answer.answer and (right or answer.value is None):
            return "correct" if right else "refused"
        return "invented"
    if answer.value is None:
        return "refused"
    if probe.kind == "quarter":
        rules = shared_statement_rules()
        if answer.evidence and all(
            rules.period_kind(e.period) == "quarter" and rules.quarter_end(e.period) == 3
            for e in answer.evidence
        ):
            return "correct"
    return "invented"


def _same(value: str, gold: str) -> bool:
    try:
        return abs(float(value) - float(gold)) < 0.005
    except ValueError:
        return value == gold


def run(root: Path, reports_list: Path, work: Path, json_out: Path | None, show: int) -> int:
    gold = [
        json.loads(line)
        for line in (root / "gold_dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    near, other = absent_companies(reports_list, gold)
    made = probes(gold, near, other)
    reports = sorted((root / "reports").glob("*.pdf"))
    done = ingest_and_answer(reports, work, [p.question for p in made])
    results = [(p, a, judge(p, a)) for p, a in zip(made, done.answers)]
    by_kind: dict[str, list[str]] = defaultdict(list)
    for probe, _, verdict in results:
        by_kind[probe.kind].append(verdict)
    invented = [(p, a) for p, a, v in results if v == "invented"]
    lines = [
        f"precision: {len(results)} probes from {len(gold)} development questions over "
        f"{len(reports)} reports "
        f"({len(near)} near-miss and {len(other)} other absent companies in the reports list)",
        f"refused or correct: {1 - len(invented) / len(results):.3f} "
        f"({len(results) - len(invented)}/{len(results)}); invented {len(invented)}",
    ]
    for kind in KINDS:
        verdicts = by_kind.get(kind, [])
        if verdicts:
            lines.append(
                f"  {kind:15} {len(verdicts):3} probes: refused {verdicts.count('refused'):3}, "
                f"correct {verdicts.count('correct'):3}, invented {verdicts.count('invented'):3}"
            )
    first, second = fixed_halves(p.question.id for p in made)
    for name, half in (("A", first), ("B", second)):
        verdicts = [v for p, _, v in results if p.question.id in half]
        lines.append(f"half {name}: {len(verdicts)} probes, invented {verdicts.count('invented')}")
    for probe, answer in invented[:show]:
        lines.append(
            f"  INVENTED {probe.kind} {probe.question.text} -> {answer.value} ({answer.route}) "
            f"{answer.answer[:80]}"
        )
    print("\n".join(lines))
    if json_out:
        json_out.write_text(
            json.dumps(
                [{**a.to_json(), "kind": p.kind, "asked": p.asked, "verdict": v} for p, a, v in results],
                ensure_ascii=False,
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0 if not invented else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
