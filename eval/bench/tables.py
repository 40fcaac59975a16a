"""`python -m eval.bench tables [--show N] [--json OUT]`: table fidelity on NTCIR-18 U4.

Parses every securities report in ../shared/data/ntcir18-u4/reports with
parser.html and parser.facts, then asks, for each gold answer of
gold_dev.json, whether a fact carries the gold cell id and the gold value
after the task's official normalisation (eval.normalize.ntcir_value; a
percentage fact is compared with its "%"). The baseline in the same run is
the cell's text as printed, normalised the same way: what copying the cell
would give. Failures are sorted into kinds:

  no table    the gold cell's table was not parsed
  header      the cell is in the table's header rows (no fact is made there)
  no fact     the cell is in the table but not read as a value (label, note or unit column)
  sign        same amount, other sign (the gold follows XBRL sign conventions)
  scale       same digits, other power of ten (a unit missed or misapplied)
  value       anything else

Also reported: year agreement, the share of gold facts whose year equals the
year the question names ("…の2019年時点における…"), with the document years
parser.metadata finds.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from tqdm import tqdm

from core.command_names import command_name
from core.records import Fact
from eval.bench._data import shared_data
from eval.normalize import ntcir_value
from parser.facts import current_year, table_facts
from parser.html import read_html
from parser.metadata import MetadataFinder

TARGET = 0.98
KINDS = ("no table", "header", "no fact", "sign", "scale", "value")


@dataclass
class Parsed:
    """What the parser made of the reports: facts and body cells by cell id, and the tables it read."""

    facts: dict[str, Fact] = field(default_factory=dict)
    cells: dict[str, str] = field(default_factory=dict)  # cell id -> text, for cells inside a table's body
    tables: set[str] = field(default_factory=set)
    fact_count: int = 0
    seconds: float = 0.0


@dataclass
class Fidelity:
    """The gold cells against the facts: right, the baseline's right, the failures by kind, year agreement."""

    total: int
    correct: int = 0
    baseline_correct: int = 0  # gold cells whose printed text, normalised, is the gold value
    kinds: Counter = field(default_factory=Counter)
    failures: list[dict] = field(default_factory=list)
    years_agree: int = 0
    years_asked: int = 0

    @property
    def fidelity(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def baseline(self) -> float:
        return self.baseline_correct / self.total if self.total else 0.0

    @property
    def year_agreement(self) -> float | None:
        return self.years_agree / self.years_asked if self.years_asked else None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} tables", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--show", type=int, default=10, help="failures to list (default 10)")
    parser.add_argument("--json", type=Path, help="write the figures and failures here")
    args = parser.parse_args(argv)
    root = shared_data("ntcir18-u4")
    if root is None:
        return 0
    gold = json.loads((root / "gold_dev.json").read_text(encoding="utf-8"))
    questions = json.loads((root / "questions_dev.json").read_text(encoding="utf-8"))
    paths = {str(p.relative_to(root).with_suffix("")): p for p in sorted((root / "reports").glob("*/*.html"))}
    parsed = parse_reports(root, paths)
    scored = score(gold, questions, parsed)
    print_report(scored, parsed, len(paths), args.show)
    if args.json:
        _write_json(args.json, scored, parsed.seconds)
    return 0


def parse_reports(root: Path, paths: dict[str, Path]) -> Parsed:
    """Every report's tables read by parser.html and parser.facts, timed."""
    finder = MetadataFinder.for_corpus(root, paths)
    parsed = Parsed()
    started = time.perf_counter()
    for doc_id, path in tqdm(paths.items(), desc="reports", unit="file"):
        meta = finder.find(doc_id)
        tables = read_html(path).tables
        year = current_year(tables)
        for table in tables:
            parsed.tables.add(table.table_id)
            table_facts_, _ = table_facts(table, meta, year)
            parsed.fact_count += len(table_facts_)
            parsed.facts.update((f.cell_id, f) for f in table_facts_ if f.cell_id)
            if table.cell_ids is not None:
                for i in range(len(table.frame)):
                    for j in range(len(table.frame.columns)):
                        parsed.cells[str(table.cell_ids.iat[i, j])] = str(table.frame.iat[i, j])
    parsed.seconds = time.perf_counter() - started
    return parsed


def score(gold: dict, questions: dict, parsed: Parsed) -> Fidelity:
    """Each gold answer against the fact of its cell (and the cell's printed text, the baseline)."""
    scored = Fidelity(total=len(gold))
    for qid, answer in gold.items():
        cell_id, want = answer["cell_id"], answer["value"]
        fact = parsed.facts.get(cell_id)
        scored.baseline_correct += ntcir_value(parsed.cells.get(cell_id, "")) == ntcir_value(want)
        got = _compared(fact) if fact else ""
        if fact and got == ntcir_value(want):
            scored.correct += 1
            asked = re.search(r"((?:19|20)\d{2})年", questions.get(qid, {}).get("question", ""))
            if asked:
                scored.years_asked += 1
                scored.years_agree += int(asked.group(1)) == fact.year
            continue
        kind = _kind(cell_id, fact, want, parsed.tables, parsed.cells)
        scored.kinds[kind] += 1
        scored.failures.append(
            {
                "id": qid,
                "kind": kind,
                "cell_id": cell_id,
                "gold": want,
                "fact": fact.value if fact else None,
                "raw": fact.raw if fact else parsed.cells.get(cell_id),
                "field": fact.field if fact else None,
                "period": fact.period if fact else None,
            }
        )
    return scored


def print_report(scored: Fidelity, parsed: Parsed, files: int, show: int) -> None:
    fidelity, base = scored.fidelity, scored.baseline
    correct, total = scored.correct, scored.total
    years_agree, years_asked, kinds = scored.years_agree, scored.years_asked, scored.kinds
    print(
        f"NTCIR-18 U4 dev: {files} HTML files, {len(parsed.tables)} tables, {parsed.fact_count} facts "
        f"in {parsed.seconds:.1f}s"
    )
    print(
        f"table fidelity  {fidelity:.4f}  ({correct}/{total} gold cells as facts with the gold value; "
        f"target {TARGET})"
    )
    print(
        f"baseline        {base:.4f}  (the cell's printed text, officially normalised)"
        f"  ratio {fidelity / base if base else float('inf'):.2f}x"
    )
    print(
        f"year agreement  {scored.year_agreement or 0:.4f}  "
        f"({years_agree}/{years_asked} correct facts whose year is the question's)"
    )
    print("failure kinds   " + (", ".join(f"{k} {kinds[k]}" for k in KINDS if kinds[k]) or "none"))
    for failure in scored.failures[:show]:
        print(
            f"  [{failure['kind']}] {failure['cell_id']}: gold {failure['gold']!r}, fact {failure['fact']!r} "
            f"(raw {failure['raw']!r}, field {failure['field']!r}, period {failure['period']!r})"
        )


def _write_json(path: Path, scored: Fidelity, seconds: float) -> None:
    path.write_text(
        json.dumps(
            {
                "fidelity": scored.fidelity,
                "baseline": scored.baseline,
                "correct": scored.correct,
                "total": scored.total,
                "year_agreement": scored.year_agreement,
                "kinds": dict(scored.kinds),
                "failures": scored.failures,
                "seconds": seconds,
            },
            ensure_ascii=False,
            indent=1,
        ),
        encoding="utf-8",
    )


def _compared(fact: Fact) -> str:
    """A fact's value as the official normaliser sees it (percentages carry their % sign)."""
    return ntcir_value(fact.value + ("%" if fact.unit == "%" and fact.number is not None else ""))


def _kind(cell_id: str, fact: Fact | None, want: str, tables: set[str], cells: dict[str, str]) -> str:
    if fact is None:
        if cell_id.rsplit("-", 1)[0] not in tables:
            return "no table"
        return "no fact" if cell_id in cells else "header"
    got, wanted = _number(_compared(fact)), _number(ntcir_value(want))
    if got is None or wanted is None or not got or not wanted:
        return "value"
    if got == -wanted:
        return "sign"
    ratio = abs(got / wanted)
    if ratio != 1 and (ratio.log10() == ratio.log10().to_integral_value()):
        return "scale"
    return "value"


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None
