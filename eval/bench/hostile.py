"""`python -m eval.bench hostile`: a big question file and a nested-table HTML bomb, against small baselines.

1. qa.run over a generated JSON-lines file of --questions-mb MB (the example
   questions repeated) against the 14 example questions, both over the
   example index: peak memory of each (VmHWM) and seconds to the first
   answer. The big run is stopped (SIGINT) after --seconds.
2. ingestion.pipeline of a nested-table HTML file of --html-mb MB, with
   --max-file-seconds as the limit per file, against a 0.1 MB file of the
   same shape: seconds, and the file's status and message.

Needs no development data: everything is generated from examples/.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from core.command_names import command_name
from core.rulefile import PROJECT_ROOT, data_dir
from eval.bench._data import work_dir

EXAMPLES = data_dir("examples")
_NESTED = (
    "<table><tr><td>营业收入</td><td>1,234</td></tr><tr><td><table><tr><td>净利润</td><td>567</td></tr><tr><td>"
    "<table><tr><td>资产总计</td><td>89</td></tr></table></td><td>x</td></tr></table></td><td>y</td></tr></table>\n"
)


def _python(*args: str) -> list[str]:
    return [sys.executable, *args]


def _peak_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)


def run_questions(questions: Path, index: Path, out: Path, seconds: float) -> tuple[float, float | None, int]:
    """(peak MB, seconds to the first answer or None, answers written) of one qa.run, stopped after `seconds`."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    started = time.monotonic()
    # SIGINT is ignored in a background job's children: qa.run gets it back, as in a terminal, to be stoppable.
    process = subprocess.Popen(
        _python("-m", "qa.run", str(questions), "--index", str(index), "-o", str(out)),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    peak, first = 0, None
    while process.poll() is None:
        peak = max(peak, _peak_kb(process.pid))
        if first is None and out.exists() and out.stat().st_size:
            first = time.monotonic() - started
        if time.monotonic() - started > seconds:
            process.send_signal(signal.SIGINT)
            process.wait()
            break
        time.sleep(0.2)
    answers = sum(1 for _ in out.open(encoding="utf-8")) if out.exists() else 0
    return peak / 1024, first, answers


def big_questions(path: Path, megabytes: float) -> int:
    examples = json.loads((EXAMPLES / "questions.json").read_text(encoding="utf-8"))
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        while fh.tell() < megabytes * 2**20:
            question = examples[count % len(examples)]
            fh.write(json.dumps({**question, "id": f"q{count}"}, ensure_ascii=False) + "\n")
            count += 1
    return count


def ingest_html(folder: Path, megabytes: float, budget: float) -> tuple[float, dict]:
    corpus = folder / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    (corpus / "nested.html").write_text(
        f"<html><body><h1>报告</h1>{_NESTED * int(megabytes * 2**20 // len(_NESTED.encode()))}</body></html>",
        encoding="utf-8",
    )
    started = time.monotonic()
    subprocess.run(
        _python(
            "-m",
            "parser.ingest",
            str(corpus),
            "--index",
            str(folder / "index"),
            "--workers",
            "1",
            "--max-file-seconds",
            str(budget),
        ),
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        check=False,
    )
    report = json.loads((folder / "index" / "ingest_report.json").read_text(encoding="utf-8"))
    return time.monotonic() - started, report["files"][0]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} hostile", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--questions-mb", type=float, default=200)
    ap.add_argument("--seconds", type=float, default=90, help="stop the big question run after this long")
    ap.add_argument("--html-mb", type=float, default=10)
    ap.add_argument("--max-file-seconds", type=float, default=60)
    ap.add_argument("--work", type=Path, help="keep the generated files here (default: a temporary folder)")
    args = ap.parse_args(argv)
    with work_dir(args.work, "finqa-hostile-") as work:
        index = work / "index"
        subprocess.run(
            _python("-m", "parser.ingest", str(EXAMPLES / "corpus"), "--index", str(index), "--workers", "1"),
            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
            capture_output=True,
            check=True,
        )
        count = big_questions(work / "big.jsonl", args.questions_mb)
        small = run_questions(EXAMPLES / "questions.json", index, work / "small.out", args.seconds)
        big = run_questions(work / "big.jsonl", index, work / "big.out", args.seconds)
        print(
            f"questions: {len(json.loads((EXAMPLES / 'questions.json').read_text()))} example questions: peak "
            f"{small[0]:.0f} MB, first answer {small[1] or 0:.1f} s"
        )
        print(
            f"questions: {args.questions_mb:g} MB of JSON lines ({count} questions, stopped after {args.seconds:g} s, "
            f"{big[2]} answered): peak {big[0]:.0f} MB ({big[0] / max(small[0], 1):.2f}x the small run), "
            f"first answer {big[1] or float('nan'):.1f} s"
        )
        base_seconds, base = ingest_html(work / "html-small", 0.1, args.max_file_seconds)
        bomb_seconds, bomb = ingest_html(work / "html-big", args.html_mb, args.max_file_seconds)
        print(f"html: 0.1 MB nested tables: {base_seconds:.1f} s, {base['status']}, {base['tables']} tables")
        print(
            f"html: {args.html_mb:g} MB nested tables: {bomb_seconds:.1f} s, {bomb['status']}: "
            f"{'; '.join(bomb['errors']) or 'no limit hit'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
