"""`python -m eval.bench startup`: seconds for one question from a cold start, against an earlier version.

    python -m eval.bench startup [--baseline-ref REF] [--repeat N]

Each run is a new process, `python -m qa.run QUESTION --index INDEX`, over the
bundled examples corpus (ingested first by each version into its own index),
timed from start to exit. Two questions: a lookup (answered from the facts)
and a report_text question (keyword search, so the tokenizer's dictionaries
load). The baseline is the code at --baseline-ref (default: the commit before
the start-up work: eager dictionaries, pure-Python YAML), extracted with
`git archive` and run the same way in the same run, alternating with this
checkout, so the ratio holds on a busy machine. Bytecode is cached in a
temporary PYCACHEPREFIX and warmed by one untimed run, as an installed
package would have it. Figures: median and best seconds per version and
question, and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from core.command_names import command_name
from core.rulefile import PROJECT_ROOT

DEFAULT_BASELINE = "d658be6"
QUESTIONS = {
    "lookup": "2022年示例科技的电子信箱是什么?",
    "report_text": "请简要介绍示例科技2022年年报中公司的核心竞争力。",
}


def extract(ref: str, target: Path) -> Path:
    """The tree of `ref` written under `target` (git archive)."""
    archive = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "archive", ref], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def run(code: Path, args: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args],
        cwd=code,
        env={**env, "PYTHONPATH": str(code)},
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{code}: {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return seconds


@dataclass(frozen=True)
class Version:
    """A version of the code ready to time: its tree, the index it ingested, and its environment."""

    code: Path
    index: Path
    env: dict


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    with tempfile.TemporaryDirectory(prefix="finqa-bench-startup-") as temp:
        temp = Path(temp)
        try:
            baseline = extract(args.baseline_ref, temp / "baseline")
        except subprocess.CalledProcessError as exc:
            print(
                f"skipped: cannot extract {args.baseline_ref} with git archive ({exc.stderr.decode().strip()})"
            )
            return 0
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "FINQA_LLM")}
        files = question_files(temp)
        versions = {
            name: prepare(name, code, temp, files, env)
            for name, code in ((f"baseline {args.baseline_ref}", baseline), ("this checkout", PROJECT_ROOT))
        }
        print_times(time_questions(versions, files, args.repeat), list(versions), args.repeat)
    return 0


def _arguments(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} startup", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--baseline-ref",
        default=DEFAULT_BASELINE,
        help=f"git ref of the baseline (default {DEFAULT_BASELINE})",
    )
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per version and question (default 5)")
    return ap.parse_args(argv)


def question_files(temp: Path) -> dict[str, Path]:
    """Each question of QUESTIONS in a questions file of its own, by kind."""
    files = {}
    for kind, text in QUESTIONS.items():
        files[kind] = temp / f"{kind}.json"
        files[kind].write_text(
            json.dumps([{"id": kind, "question": text}], ensure_ascii=False), encoding="utf-8"
        )
    return files


def prepare(name: str, code: Path, temp: Path, files: dict[str, Path], env: dict) -> Version:
    """`code` with its own bytecode cache and its own index of the examples corpus, warmed by one untimed
    run of each question (which writes the bytecode cache)."""
    env = {**env, "PYTHONPYCACHEPREFIX": str(temp / "pycache" / name.replace(" ", "-"))}
    index = temp / "index" / name.replace(" ", "-")
    run(
        code,
        ["-m", "parser.ingest", str(code / "examples" / "corpus"), "--index", str(index), "--workers", "1"],
        env,
    )
    for kind in QUESTIONS:
        run(code, ["-m", "qa.run", str(files[kind]), "--index", str(index)], env)
    return Version(code, index, env)


def time_questions(
    versions: dict[str, Version], files: dict[str, Path], repeat: int
) -> dict[tuple[str, str], list[float]]:
    """Seconds of each run by (version, question kind), the versions alternating so the load hits both alike."""
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeat):
        for kind in QUESTIONS:
            for name, version in versions.items():
                seconds = run(
                    version.code,
                    ["-m", "qa.run", str(files[kind]), "--index", str(version.index)],
                    version.env,
                )
                times.setdefault((name, kind), []).append(seconds)
    return times


def print_times(times: dict[tuple[str, str], list[float]], names: list[str], repeat: int) -> None:
    print(
        f"one question from a cold start (new process, `python -m qa.run Q --index INDEX`), {repeat} runs each:"
    )
    for kind in QUESTIONS:
        for name in names:
            t = times[(name, kind)]
            print(f"  {kind:<12} {name:<22} median {statistics.median(t):.2f} s, best {min(t):.2f} s")
        before, after = (statistics.median(times[(n, kind)]) for n in names)
        print(f"  {kind:<12} baseline / this checkout: {before / after:.2f}x")
