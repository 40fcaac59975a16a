"""`python -m eval.bench annual [--keep DIR] [--json OUT]`: real Chinese annual reports, verified answers.

Ingests the five 年度报告 PDFs of ../shared/data/annual-cn/reports, answers its
55 questions through the Engine (no model) and judges each answer by the kind
of its gold value:

  number     a number of the answer's value or text, rounded as the gold says (ROUND_HALF_UP),
             equals the gold value (a sign-free question compares amounts without sign)
  text       the gold text is within the answer's value or text (spaces and width ignored)
  yesno      是 / 否 as the answer's value says it (相同 / 不相同 count as 是 / 否)
  companies  every gold company (short or full name) is named, in the gold order
  report_text  every key word of the gold is in the answer

It prints accuracy by question type and on two fixed halves of the questions
(sorted ids, alternating), then every answer with the statement, scope and period
of its evidence (what the engine took the number from). Target: >= 0.95 for
every question type. Throughput is shown against the question analysis alone
in the same run.
"""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

from core.command_names import command_name
from eval.bench._data import fixed_halves, ingest_and_answer, json_lines, shared_data, work_dir
from qa.records import Answer, Question

TARGET = 0.95
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_YES = ("是", "相同", "一致")
_NO = ("否", "不相同", "不一致", "不同")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} annual", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--keep", type=Path, help="build the corpus links and the index here (kept, re-used)")
    ap.add_argument("--json", type=Path, help="write the figures and every answer here")
    args = ap.parse_args(argv)
    root = shared_data("annual-cn")
    if root is None:
        return 0
    with work_dir(args.keep, "annual-bench-") as work:
        return run(root, work, args.json)


def judge(gold: dict, answer: Answer) -> bool:
    """Whether the answer gives the gold value (see the module docstring)."""
    text = _flat(answer.answer or "")
    value = _flat(answer.value or "")
    kind = gold.get("value_kind")
    if gold["type"] == "report_text":
        return all(_flat(k) in text for k in gold.get("keywords", ()))
    if kind == "number":  # the key value, or a number the answer states (a change "增加了…元")
        return any(
            _same_number(found.group(), gold)
            for source in (answer.value or "", answer.answer or "")
            for found in _NUMBER.finditer(source.replace("，", ","))
        )
    if kind == "yesno":
        said = value or text
        no = any(w in said for w in _NO)
        return no if gold["value"] == "否" else (not no and any(w in said for w in _YES))
    if kind == "companies":
        names = [
            (c, f)
            for c, f in zip(gold.get("companies", ()), gold.get("full_names", gold.get("companies", ())))
        ]
        spots = [
            min((p for p in (text.find(_flat(c)), text.find(_flat(f))) if p >= 0), default=-1)
            for c, f in names
        ]
        return all(p >= 0 for p in spots) and spots == sorted(spots)
    return _flat(gold["value"]) in value or _flat(gold["value"]) in text


def _same_number(printed: str, gold: dict) -> bool:
    try:
        number, expected = Decimal(printed.replace(",", "")), Decimal(gold["value"])
    except InvalidOperation:
        return False
    if gold.get("sign_free"):
        number, expected = abs(number), abs(expected)
    places = gold.get("decimals")
    if places is None:
        return number == expected
    step = Decimal(1).scaleb(-int(places))
    return number.quantize(step, ROUND_HALF_UP) == expected.quantize(step, ROUND_HALF_UP)


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def run(root: Path, work: Path, json_out: Path | None) -> int:
    gold = {g["id"]: g for g in json_lines(root / "gold_dev.jsonl")}
    questions = [Question(id=r["id"], text=r["question"]) for r in json_lines(root / "questions_dev.jsonl")]
    reports = sorted((root / "reports").glob("*.pdf"))
    done = ingest_and_answer(reports, work, questions)
    results = [(q, a, gold[q.id], judge(gold[q.id], a)) for q, a in zip(questions, done.answers)]
    by_type: dict[str, list[bool]] = defaultdict(list)
    for _, _, expected, ok in results:
        by_type[expected["type"]].append(ok)
    n, right = len(results), sum(ok for *_, ok in results)
    lines = [
        f"annual: {n} questions on {len(reports)} reports, index built in {done.ingest_seconds:.1f}s",
        f"accuracy {right / n:.3f} ({right}/{n})",
        *_type_lines(by_type),
        *_half_lines(results),
        f"throughput: answering {n / done.answer_seconds:.1f} q/s; analysis alone {n / done.analyse_seconds:.1f} q/s",
        "answers (ok | id type | value vs gold | evidence statement / scope / period):",
        *map(_answer_line, results),
    ]
    print("\n".join(lines))
    if json_out:
        _write_json(json_out, results, by_type)
    return 0


def _type_lines(by_type: dict[str, list[bool]]) -> list[str]:
    """Accuracy per question type against the target."""
    lines = []
    for kind, oks in sorted(by_type.items()):
        accuracy = sum(oks) / len(oks)
        lines.append(
            f"  {kind:14} {accuracy:.3f} ({sum(oks)}/{len(oks)})  target >= {TARGET:.2f} "
            f"{'MET' if accuracy >= TARGET else 'NOT MET'}"
        )
    return lines


def _half_lines(results: list) -> list[str]:
    """Accuracy on the two fixed halves of the questions (tune, check)."""
    tune, check = fixed_halves(q.id for q, *_ in results)
    lines = []
    for name, half in (("tune", tune), ("check", check)):
        oks = [ok for q, _, _, ok in results if q.id in half]
        lines.append(f"half {name:5} ({len(oks)} q): accuracy {sum(oks) / len(oks):.3f}")
    return lines


def _answer_line(result: tuple[Question, Answer, dict, bool]) -> str:
    """One answer judged, with the statement, scope, period and page of its first evidence."""
    question, answer, expected, ok = result
    evidence = answer.evidence[0] if answer.evidence else None
    where = (
        f"{evidence.statement or '-'} / {evidence.scope or '-'} / {evidence.period or '-'} p{evidence.page}"
        if evidence
        else "no evidence"
    )
    return (
        f"  {'ok ' if ok else 'BAD'} {question.id} {expected['type']:13} "
        f"{str(answer.value)[:24]:24} vs {str(expected['value'])[:24]:24} | {where}"
    )


def _write_json(json_out: Path, results: list, by_type: dict[str, list[bool]]) -> None:
    n, right = len(results), sum(ok for *_, ok in results)
    json_out.write_text(
        json.dumps(
            {
                "questions": n,
                "accuracy": right / n,
                "by_type": {k: sum(v) / len(v) for k, v in by_type.items()},
                "answers": [
                    {**a.to_json(), "ok": ok, "gold": expected["value"]} for _, a, expected, ok in results
                ],
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
