"""`python -m eval.bench text [--keep DIR] [--llm PATH] [--json OUT]`: text questions over real annual reports.

Our own labelled questions (eval/bench/text_questions.jsonl) over the five 年度报告 PDFs of
../shared/data/annual-cn: each written from a standard section heading of a report (利润分配预案,
会计师事务所, 控股股东情况, 实际控制人情况, 主要业务, 核心竞争力分析, 重大风险提示 / 可能面对的风险,
审计意见, 关键审计事项, 经营计划, 签字会计师), with the short key words a right answer must contain
("a|b": either). An answer is right when every key word is in its text (width and spaces ignored).

Figures: accuracy overall and on two fixed halves (sorted ids, alternating: the first tuned, the
second only checked), the routes taken and seconds per question. With --llm (a .gguf file or model
folder) the same questions are answered again with the model writing the sentence: its accuracy,
seconds per question (as a ratio to the run without it, measured in the same process), and the
share of the model's sentences that the check rejected (a number or name that is not the extract's,
or most of the extract's words left out: the extract stands). Target: >= 0.90 on each half without a model; with it no lower.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from core.command_names import command_name
from eval.bench._data import fixed_halves, ingest_and_answer, shared_data, work_dir
from eval.normalize import flat_text
from qa.records import Answer, Question

TARGET = 0.90
QUESTIONS = Path(__file__).with_name("text_questions.jsonl")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} text", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--keep", type=Path, help="build the corpus links and the index here (kept, re-used)")
    ap.add_argument("--llm", default="none", help="also answer with this model (.gguf file or folder)")
    ap.add_argument("--json", type=Path, help="write the figures and every answer here")
    args = ap.parse_args(argv)
    root = shared_data("annual-cn")
    if root is None:
        return 0
    with work_dir(args.keep, "text-bench-") as work:
        return run(root, work, args.llm, args.json)


def load_questions(path: Path = QUESTIONS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def judge(keywords: list[str], answer: Answer) -> bool:
    """Every key word (any of its |-separated forms) is in the answer's text (width, spaces and commas ignored)."""
    text = flat_text(answer.answer or "")
    return all(any(flat_text(form) in text for form in keyword.split("|")) for keyword in keywords)


def rejected(answer: Answer) -> bool | None:
    """Whether the model's sentence was rejected by the evidence check (None: the model wrote none)."""
    if answer.route.endswith(":llm"):
        return False
    return True if "model sentence rejected" in answer.route else None


def run(root: Path, work: Path, llm: str, json_out: Path | None) -> int:
    rows = load_questions()
    questions = [Question(id=r["id"], text=r["question"]) for r in rows]
    reports = sorted((root / "reports").glob("*.pdf"))
    runs = {"without a model": ingest_and_answer(reports, work, questions)}
    if llm != "none":
        runs["with the model"] = ingest_and_answer(reports, work, questions, llm=llm)
    tune, check = fixed_halves(q.id for q in questions)
    lines = [
        f"text: {len(rows)} questions on {len(reports)} reports ({QUESTIONS.name}); "
        f"halves: tune {len(tune)}, check {len(check)}"
    ]
    figures, base_seconds = {}, None
    for name, done in runs.items():
        oks = {r["id"]: judge(r["keywords"], a) for r, a in zip(rows, done.answers)}
        seconds = done.answer_seconds / len(rows)
        base_seconds = base_seconds or seconds
        halves = {h: sum(oks[i] for i in ids) / len(ids) for h, ids in (("tune", tune), ("check", check))}
        said = [rejected(a) for a in done.answers]
        written = [s for s in said if s is not None]
        share = sum(written) / len(written) if written else 0.0
        figures[name] = {
            "accuracy": sum(oks.values()) / len(oks),
            **halves,
            "seconds_per_question": seconds,
            "model_sentences": len(written),
            "rejected_share": share,
        }
        met = all(v >= TARGET for v in halves.values())
        lines.append(
            f"{name}: accuracy {figures[name]['accuracy']:.3f} ({sum(oks.values())}/{len(oks)}); "
            f"tune {halves['tune']:.3f}, check {halves['check']:.3f} (target >= {TARGET:.2f} each: "
            f"{'MET' if met else 'NOT MET'}); {seconds:.2f} s/question ({seconds / base_seconds:.1f}x)"
            + (
                f"; model sentences {len(written)}, rejected by the check {share:.3f}"
                if name != "without a model"
                else ""
            )
        )
        routes = Counter(a.route.split(" (")[0] for a in done.answers)
        lines.append("  routes: " + ", ".join(f"{route} {n}" for route, n in routes.most_common()))
        for row, answer in zip(rows, done.answers):
            mark = "ok " if oks[row["id"]] else "BAD"
            half = "tune" if row["id"] in tune else "check"
            lines.append(
                f"  {mark} {row['id']} {half:5} {answer.route:38} {row['question']} "
                f"[{' + '.join(row['keywords'])}] -> {' '.join((answer.answer or '').split())[:160]}"
            )
        figures[name]["answers"] = [
            {**a.to_json(), "ok": oks[r["id"]], "keywords": r["keywords"]} for r, a in zip(rows, done.answers)
        ]
    print("\n".join(lines))
    if json_out:
        json_out.write_text(json.dumps(figures, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0
