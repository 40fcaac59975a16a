"""`python -m eval.bench highlight [--keep DIR] [--show N]`: how often `finqa serve` boxes the evidence.

Ingests the five real annual reports of ../shared/data/annual-cn (the page
layouts are kept at ingest), answers its questions through the Engine and, for
every evidence item on a PDF page, asks serve/highlight.py what the evidence
quotes on that page:

  cell    the value's table cell (an amount and its row label; the named column when several print it)
  lines   the text lines a sentence spans
  none    nothing matched: the page is shown without a box

It reports the shares per route and on two fixed halves of the questions
(sorted ids, alternating). The rules were written on the bundled examples
only; both halves are held out. A data answer's item should get exactly one
cell: it is counted as `one cell` or `cells` (several, when the evidence
quotes several or the same amount, label and column are printed twice). As a
baseline in the same run, a plain search of the page for the evidence's
value as printed (the boxes holding it) is counted the same way. Target: a
box for >= 0.9 of the evidence items of data answers.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter, defaultdict
from pathlib import Path

from core.command_names import command_name
from core.layout import read_layout
from eval.bench._data import fixed_halves, ingest_and_answer, shared_data, work_dir
from qa.records import Question
from serve.highlight import locate, normalize

TARGET = 0.9
_VALUE = re.compile(r"[：:]\s*(\S+)$")  # the amount a fact's evidence ends with


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} highlight", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--keep", type=Path, help="build the corpus links and the index here (kept, re-used)")
    ap.add_argument("--show", type=int, default=10, help="evidence items without a box to list (default 10)")
    args = ap.parse_args(argv)
    root = shared_data("annual-cn")
    if root is None:
        return 0
    with work_dir(args.keep, "highlight-bench-") as work:
        return run(root, work, args.show)


def run(root: Path, work: Path, show: int) -> int:
    import json

    lines = (root / "questions_dev.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    questions = [Question(id=r["id"], text=r["question"]) for r in rows]
    done = ingest_and_answer(sorted((root / "reports").glob("*.pdf")), work, questions)
    halves = dict(zip(("A", "B"), fixed_halves(q.id for q in questions)))
    layouts: dict[str, list] = {}
    by_route: dict[str, Counter] = defaultdict(Counter)
    by_half: dict[str, Counter] = defaultdict(Counter)
    baseline = Counter()
    missed = []
    for question, answer in zip(questions, done.answers):
        route = answer.route.split(":")[0]
        for item in answer.evidence:
            if not item.page:
                continue
            layout = layouts.setdefault(item.doc, read_layout(done.settings.layout_path(item.doc)))
            found = locate(layout, item.page, item.text)
            kind = _kind(found)
            by_route[route][kind] += 1
            by_half[next(h for h, ids in halves.items() if question.id in ids)][kind] += 1
            baseline[_plain_search(layout, item.page, item.text)] += 1
            if not found:
                missed.append(f"  {question.id} {route} p{item.page}: {item.text[:90]}")
    print(f"evidence items on PDF pages, {len(questions)} questions")
    for name, counts in [*sorted(by_route.items()), *((f"half {h}", c) for h, c in sorted(by_half.items()))]:
        print(f"  {name:14} {_shares(counts)}")
    total = sum(by_route.values(), Counter())
    print(f"  {'all':14} {_shares(total)}")
    print(f"  baseline (the boxes holding the value or sentence as printed): {_shares(baseline)}")
    print(f"evidence without a box ({len(missed)}):", *missed[:show], sep="\n")
    data = sum((c for r, c in by_route.items() if r not in ("report_text", "open")), Counter())
    share = 1 - data["none"] / max(sum(data.values()), 1)
    print(f"data answers boxed: {share:.3f} (target >= {TARGET})")
    return 0 if share >= TARGET else 1


def _kind(found: list) -> str:
    if not found:
        return "none"
    if found[0].kind == "line":
        return "lines"
    return "one cell" if len(found) == 1 else "cells"


def _plain_search(layout: list, page: int, text: str) -> str:
    """The baseline: the boxes on the page whose text holds the evidence's value (a fact) or its sentence."""
    value = _VALUE.search(text)
    wanted = normalize(value.group(1) if value else text)
    return _kind([b for b in layout if b.page == page and wanted and wanted in normalize(b.text)])


def _shares(counts: Counter) -> str:
    n = sum(counts.values())
    kinds = ("one cell", "cells", "lines", "none")
    return f"n={n}: " + ", ".join(f"{k} {counts[k] / max(n, 1):.3f}" for k in kinds)
