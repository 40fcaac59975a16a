"""Where benchmarks find the shared development data, and how they skip without it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from core.rulefile import PROJECT_ROOT
from search.settings import IndexSettings

SHARED_DATA = Path(os.environ.get("FINQA_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data"))


# the development data sets, by their folder under SHARED_DATA
DATA_SETS = {
    "annual-cn": "five real Chinese annual reports with verified questions",
    "finglm": "the FinGLM competition's 2,000 dev questions, answers and company list",
    "aicup": "AI CUP 2024's 60 dev questions and their 191 finance and insurance PDFs",
    "ntcir18-u4": "NTCIR-18 U4's 19 Japanese securities reports and 2,919 table questions",
    "lawqa_jp": "lawqa_jp's four-choice questions and the Japanese laws they cite",
}


def shared_data(*parts: str) -> Path | None:
    """The path under the development data, or None (after printing which data and where) when absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        what = DATA_SETS.get(parts[0], "development data") if parts else "development data"
        print(
            f"skipped: this bench needs {what}, expected at {path}; set FINQA_SHARED_DATA to the folder "
            f"holding {parts[0] if parts else 'the data sets'}/ (a checkout looks in ../shared/data)"
        )
        return None
    return path


def json_lines(path: Path) -> list[dict]:
    """The records of a JSON-lines file of the development data (blank lines skipped)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@contextlib.contextmanager
def work_dir(keep: Path | None, prefix: str) -> Iterator[Path]:
    """`keep` (created, left in place for inspection and re-use) or a temporary directory removed afterwards."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def fixed_halves(keys) -> tuple[frozenset, frozenset]:
    """Two fixed halves of a development set for tune-on-one, check-on-the-other: sorted keys, alternating
    (the 1st, 3rd, … key tune; the 2nd, 4th, … check)."""
    ordered = sorted(set(keys))
    return frozenset(ordered[0::2]), frozenset(ordered[1::2])


@dataclass
class EngineRun:
    """Questions answered by the Engine over an index built from linked reports, with the time each step took."""

    settings: IndexSettings
    answers: list
    ingest_seconds: float
    analyse_seconds: float  # the baseline in the same run: question analysis alone
    answer_seconds: float


def ingest_and_answer(reports: list[Path], work: Path, questions: list, llm: str = "none") -> EngineRun:
    """Link `reports` into work/corpus, ingest them into work/index (incremental: a kept index is re-used),
    analyse every question (the baseline), then answer every question through the Engine (with the model
    `llm`, a .gguf file or folder, when one is given)."""
    from ingestion.pipeline import ingest
    from qa.engine import Engine, EngineSettings

    corpus = work / "corpus"
    corpus.mkdir(exist_ok=True)
    for report in reports:
        link = corpus / report.name
        if not link.exists():
            link.symlink_to(report.resolve(), target_is_directory=report.is_dir())
    settings = IndexSettings(work / "index")
    started = time.perf_counter()
    print(ingest(corpus, settings, progress=True).text(), file=sys.stderr)
    ingest_seconds = time.perf_counter() - started
    with Engine(EngineSettings(index=settings, llm=llm)) as engine:
        started = time.perf_counter()
        for question in questions:
            engine.analyze(question)
        analyse_seconds = time.perf_counter() - started
        started = time.perf_counter()
        answers = [engine.answer(q) for q in tqdm(questions, desc="questions", unit="q", file=sys.stderr)]
        answer_seconds = time.perf_counter() - started
    return EngineRun(settings, answers, ingest_seconds, analyse_seconds, answer_seconds)


def answer_in_workers(settings: IndexSettings, questions: Path, workers: int) -> tuple[float, list[str]]:
    """Seconds to answer the questions of the file `questions` as qa.run does with `workers` answering processes,
    and the answers as qa.run writes them (qa.io.answer_file.answer_line), in input order.

    Measured in a fresh interpreter (eval/bench/_pooled.py) in the state qa.run opens its answerer in: its
    imports loaded and the questions read, nothing answered. Forked from this process instead, the workers would
    inherit what answering here already did (rule files read, pandas and the tokenizers' dictionaries loaded,
    caches warm) and the figure would hide the cost every qa.run pays. The seconds run from opening the answerer
    to the last answer written, the workers' start-up included; interpreter start-up is eval/bench/startup.py's."""
    with tempfile.TemporaryDirectory(prefix="pooled-") as tmp:
        out = Path(tmp) / "answers.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "eval.bench._pooled",
                str(questions),
                str(settings.index_dir),
                str(workers),
                str(out),
            ],
            cwd=PROJECT_ROOT,
            env={
                **os.environ,
                "PYTHONPATH": str(PROJECT_ROOT),
            },  # as the other benches run this checkout's code
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"the pooled run failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}"
            )
        seconds = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
        return seconds, out.read_text(encoding="utf-8").splitlines()
