"""`python -m eval.bench ntcir [--set ntcir|ufo|all] [--keep DIR] [--show N] [--json OUT]`: securities-report
table QA, table not given.

Two development sets of the same kind of question over Japanese securities reports (有価証券報告書):

  ntcir   ../shared/data/ntcir18-u4: 19 reports (FY2019-20) as converted HTML, named <doc_id>-<file>.html
  ufo     ../shared/data/ufo-2024: 24 reports (FY2023-24) in EDINET's XHTML (XML declaration, inline-XBRL html
          element, the cover's fields in two-cell table rows), a folder per report with plain file names

Rules are tuned on NTCIR and UFO is reported as the set not tuned on (and the other way round: run both).
For each set, ingests its reports into a temporary index, answers all dev questions through the Engine
(question and doc_id only: the engine finds the table and the cell itself) and scores

  value accuracy   the answer's value equals the gold value after the task's
                   official normalisation (eval.normalize.ntcir_value)
  cell accuracy    evidence[0].cell_id is the gold cell

Wrong answers are sorted into kinds:

  no answer        no value (the engine found no cell)
  other document   the cell is in another section file than the gold cell
  other table      same file, other table
  other row        same table, other row
  other column     same row, other column
  value            the gold cell, but its value differs after normalisation

Value accuracy is shown overall, per report and on two fixed halves of the
reports (sorted ids, alternating: "tune" holds the 1st, 3rd, … report, "check"
the others): rules are tuned on one half and checked on the other.

Ingest speed is the reports' megabytes over the ingest's seconds, against a plain lxml parse of the same
files in the same run (the baseline: reading the markup alone); only a fresh index measures it (with --keep,
a second run re-uses the index and ingests nothing).

Throughput (q/s) is measured for answering alone, one question after another
in this process, and, as the baseline in the same run, for the question
analysis step alone; then for answering as qa.run does by default on this
machine (batches of 64 in up to 4 worker processes), whose answers must be the
same. That run starts from a fresh interpreter in the state qa.run opens its
answerer in (its imports loaded, the questions read, nothing answered: no rule
file read, no dictionary or pandas loaded), its workers forked from there, and
is timed from opening the answerer to the last answer written, the workers'
start-up included (eval/bench/_data.py answer_in_workers). Targets: value accuracy >= 0.88 overall, >= 0.85
on each half, no report below 0.75 (UFO: >= 0.90 overall, >= 0.88 on each half); table-cell questions at
>= 300 q/s.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import lxml.html

from core.command_names import command_name
from eval.bench._data import answer_in_workers, fixed_halves, ingest_and_answer, shared_data, work_dir
from eval.normalize import ntcir_value
from qa.io.answer_file import answer_line
from qa.io.questions import load_questions
from qa.run import default_answer_workers

REPORT_TARGET, QPS_TARGET = 0.75, 300.0


@dataclass(frozen=True)
class DevSet:
    """A development set of securities-report table questions, with its value-accuracy targets."""

    name: str
    folder: str  # under ../shared/data: reports/, questions_dev.json, gold_dev.json
    target: float
    half_target: float


SETS = {"ntcir": DevSet("ntcir", "ntcir18-u4", 0.88, 0.85), "ufo": DevSet("ufo", "ufo-2024", 0.90, 0.88)}
KINDS = ("no answer", "other document", "other table", "other row", "other column", "value")
_CELL = re.compile(r"^(?P<file>.+?-\d{7})-(?P<table>tab\d+)-r(?P<row>\d+)c(?P<col>\d+)$")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} ntcir", description=__doc__.splitlines()[0]
    )
    ap.add_argument(
        "--set",
        choices=(*SETS, "all"),
        default="ntcir",
        help="the development set (default ntcir; all: each in turn)",
    )
    ap.add_argument(
        "--keep",
        type=Path,
        help="build the corpus links and the index here (kept, re-used; one "
        "folder per set below it) instead of a temp dir",
    )
    ap.add_argument("--show", type=int, default=10, help="wrong answers to list per kind (default 10)")
    ap.add_argument(
        "--json",
        type=Path,
        help="write the figures and the wrong answers here (with --set all: "
        "one file per set, the set's name before the suffix)",
    )
    args = ap.parse_args(argv)
    names = list(SETS) if args.set == "all" else [args.set]
    for name in names:
        dev = SETS[name]
        root = shared_data(dev.folder)
        if root is None:
            continue
        json_out = args.json
        if json_out is not None and len(names) > 1:
            json_out = json_out.with_name(f"{json_out.stem}-{name}{json_out.suffix}")
        with work_dir(args.keep / name if args.keep else None, f"{name}-bench-") as work:
            run(root, work, args.show, json_out, dev)
    return 0


def error_kind(gold_cell: str, cell: str, value_ok: bool, answered: bool) -> str | None:
    """Which kind of mistake an answer is (None: right value)."""
    if value_ok:
        return None
    if not answered:
        return "no answer"
    g, p = _CELL.match(gold_cell or ""), _CELL.match(cell or "")
    if g is None or p is None or g["file"] != p["file"]:
        return "other document"
    if g["table"] != p["table"]:
        return "other table"
    if g["row"] != p["row"]:
        return "other row"
    if g["col"] != p["col"]:
        return "other column"
    return "value"


def lxml_seconds(files: list[Path]) -> float:
    """Seconds a plain lxml parse of these files takes (bytes in, as the ingest's parser reads them)."""
    started = time.perf_counter()
    for path in files:
        lxml.html.document_fromstring(path.read_bytes())
    return time.perf_counter() - started


@dataclass
class Tally:
    """The answers of a set scored against the gold cells: right values and cells, routes, mistakes by kind."""

    questions: int = 0
    value_right: int = 0
    cell_right: int = 0
    kinds: Counter = field(default_factory=Counter)
    routes: Counter = field(default_factory=Counter)
    wrong: dict[str, list[dict]] = field(default_factory=lambda: {k: [] for k in KINDS})
    by_report: dict[str, list[int]] = field(default_factory=dict)

    @property
    def value_accuracy(self) -> float:
        return self.value_right / self.questions if self.questions else 0.0

    @property
    def cell_accuracy(self) -> float:
        return self.cell_right / self.questions if self.questions else 0.0

    def add(self, question, answer, expected: dict) -> None:
        """Score one answer against its gold cell and value."""
        self.questions += 1
        cell = answer.evidence[0].cell_id if answer.evidence else ""
        answered = answer.value is not None
        value_ok = answered and ntcir_value(answer.value) == ntcir_value(expected["value"])
        self.value_right += value_ok
        self.by_report.setdefault(_report_of(question), []).append(int(value_ok))
        self.cell_right += cell == expected["cell_id"]
        route = answer.route
        self.routes[route.split(":")[0] + ":" + route.split(":")[-1] if ":" in route else route] += 1
        kind = error_kind(expected["cell_id"], cell, value_ok, answered)
        if kind:
            self.kinds[kind] += 1
            self.wrong[kind].append(
                {
                    "id": question.id,
                    "question": question.text,
                    "gold": expected,
                    "value": answer.value,
                    "cell_id": cell,
                    "route": route,
                }
            )


@dataclass
class Timings:
    """What the run measured besides accuracy: the reports' size, and the seconds each step took."""

    megabytes: float
    files: int
    reports: int
    ingest: float
    parse: float  # the baseline: a plain lxml parse of the same files
    analyse: float  # the baseline: question analysis alone
    answer: float  # one process, one question after another
    pooled: float  # as qa.run answers, from a fresh process, its workers' start-up included
    workers: int
    same: int  # answers the pooled run gave alike


def run(root: Path, work: Path, show: int, json_out: Path | None, dev: DevSet = SETS["ntcir"]) -> int:
    questions = load_questions(root / "questions_dev.json")
    gold = json.loads((root / "gold_dev.json").read_text(encoding="utf-8"))
    reports = sorted((root / "reports").iterdir())
    files = sorted(p for report in reports for p in report.rglob("*.htm*"))
    done = ingest_and_answer(reports, work, questions)
    parse_seconds = lxml_seconds(files)
    workers = default_answer_workers()
    pooled_seconds, pooled = answer_in_workers(done.settings, root / "questions_dev.json", workers)
    timings = Timings(
        megabytes=sum(p.stat().st_size for p in files) / 2**20,
        files=len(files),
        reports=len(reports),
        ingest=done.ingest_seconds,
        parse=parse_seconds,
        analyse=done.analyse_seconds,
        answer=done.answer_seconds,
        pooled=pooled_seconds,
        workers=workers,
        same=sum(answer_line(a) == line for a, line in zip(done.answers, pooled)),
    )
    tally = Tally()
    for question, answer in zip(questions, done.answers):
        tally.add(question, answer, gold[question.id])
    print("\n".join(summary_lines(dev, tally, timings, show)))
    if json_out:
        json_out.write_text(
            json.dumps(_figures(dev, tally, timings), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return 0


def summary_lines(dev: DevSet, tally: Tally, timings: Timings, show: int) -> list[str]:
    """The run's figures against the targets, per half and report, and up to `show` wrong answers of each kind."""
    n, t = tally.questions, timings
    pooled_qps = n / t.pooled
    lines = [
        f"{dev.name}: {n} dev questions, {t.reports} reports, index built in {t.ingest:.1f}s",
        f"ingest {t.megabytes / t.ingest:.2f} MB/s ({t.megabytes:.1f} MB of {t.files} files); "
        f"a plain lxml parse of the same files {t.megabytes / t.parse:.1f} MB/s (the ingest takes "
        f"{t.ingest / t.parse:.1f}x its time)",
        f"value accuracy {tally.value_accuracy:.3f} ({tally.value_right}/{n})  target >= {dev.target:.2f}  "
        f"{'MET' if tally.value_accuracy >= dev.target else 'NOT MET'}",
        f"cell accuracy  {tally.cell_accuracy:.3f} ({tally.cell_right}/{n})",
        f"throughput: answering {n / t.answer:.1f} q/s; analysis alone {n / t.analyse:.1f} q/s "
        f"(answering takes {t.answer / t.analyse:.1f}x the analysis time)",
        f"throughput as qa.run answers, {t.workers} answering process{'es' if t.workers > 1 else ''}: "
        f"{pooled_qps:.1f} q/s ({t.answer / t.pooled:.2f}x one process)  target >= "
        f"{QPS_TARGET:.0f}  {'MET' if pooled_qps >= QPS_TARGET else 'NOT MET'}; the same answers: {t.same}/{n}",
        *report_lines(tally.by_report, dev.half_target),
        "routes: " + ", ".join(f"{r} {c}" for r, c in tally.routes.most_common()),
        "wrong by kind: " + (", ".join(f"{k} {tally.kinds[k]}" for k in KINDS if tally.kinds[k]) or "none"),
    ]
    for kind in KINDS:
        for row in tally.wrong[kind][:show]:
            lines.append(
                f"  [{kind}] {row['question']}\n      gold {row['gold']['value'][:40]} "
                f"{row['gold']['cell_id']} | got {str(row['value'])[:40]} {row['cell_id']}"
            )
    return lines


def _figures(dev: DevSet, tally: Tally, timings: Timings) -> dict:
    """The run's figures and wrong answers as the --json file holds them."""
    n, t = tally.questions, timings
    return {
        "set": dev.name,
        "questions": n,
        "value_accuracy": tally.value_accuracy,
        "cell_accuracy": tally.cell_accuracy,
        "ingest_mb_per_s": t.megabytes / t.ingest,
        "lxml_mb_per_s": t.megabytes / t.parse,
        "answer_qps": n / t.answer,
        "analysis_qps": n / t.analyse,
        "qa_run_qps": n / t.pooled,
        "qa_run_workers": t.workers,
        "qa_run_same_answers": t.same,
        "per_report": {r: sum(v) / len(v) for r, v in sorted(tally.by_report.items())},
        "wrong_by_kind": dict(tally.kinds),
        "wrong": tally.wrong,
    }


def _report_of(question) -> str:
    """The report a question is about: its doc_id source (the NTCIR form gives exactly one)."""
    return question.sources[0] if question.sources else ""


def report_lines(
    by_report: dict[str, list[int]], half_target: float = SETS["ntcir"].half_target
) -> list[str]:
    """Value accuracy of each half of the reports and of each report, against the targets."""
    tune, check = fixed_halves(by_report)
    lines = []
    for name, half in (("tune", tune), ("check", check)):
        right = [ok for report in half for ok in by_report[report]]
        accuracy = sum(right) / len(right) if right else 0.0
        lines.append(
            f"half {name:5} ({len(half)} reports, {len(right)} q): value accuracy {accuracy:.3f}  "
            f"target >= {half_target:.2f} {'MET' if accuracy >= half_target else 'NOT MET'}"
        )
    for report, right in sorted(by_report.items()):
        accuracy = sum(right) / len(right)
        flag = "" if accuracy >= REPORT_TARGET else f"  below {REPORT_TARGET:.2f}"
        lines.append(
            f"  {report} ({'tune' if report in tune else 'check'}) {accuracy:.3f} ({sum(right)}/{len(right)}){flag}"
        )
    return lines
