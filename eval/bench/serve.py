"""`python -m eval.bench serve [--keep DIR] [--lists N]`: questions/s through `finqa serve`'s POST /ask.

Builds the FinGLM oracle facts corpus (eval/bench/finglm_oracle.py: a facts
workbook from the dev list's prompts), ingests it, keeps the questions the
rules route as `lookup`, and answers N lists of 64 of them (default 10) two
ways in the same run, each after one untimed list that warms it up (the
dictionaries and caches a process loads with its first questions):

  qa.run --workers 1   `python -m qa.run QUESTIONS --workers 1` in a process of its own (start-up included),
                       and the same batches through qa.run's one-process answerer in a fresh process
                       (engine opening excluded: the baseline the server must keep up with)
  POST /ask            `python -m serve` in a process of its own, started and ready before the clock
                       starts, sent each list of 64 as one request, one after another

The answers must be the same both ways. Target: POST /ask at least half the
rate of qa.run's in-process one-process answering.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from core.command_names import command_name
from eval.bench._data import json_lines, shared_data, work_dir
from eval.bench.finglm_oracle import oracle_facts, read_reports_list, write_workbook
from qa.records import Question
from search.settings import IndexSettings

if TYPE_CHECKING:
    from qa.engine import EngineSettings

LIST = 64  # questions per POST /ask: one of qa.run's batches
TARGET = 0.5  # POST /ask's rate over qa.run's


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} serve", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--keep", type=Path, help="build the corpus and the index here (kept, re-used)")
    ap.add_argument("--lists", type=int, default=10, help=f"lists of {LIST} questions to send (default 10)")
    args = ap.parse_args(argv)
    data = shared_data("finglm")
    if data is None:
        return 0
    with work_dir(args.keep, "serve-bench-") as work:
        return run(data, work, args.lists)


def run(data: Path, work: Path, lists: int) -> int:
    from qa.engine import EngineSettings

    rows = json_lines(data / "A-list-answer.jsonl")
    engine_settings = EngineSettings(index=oracle_index(data, rows, work))
    lookups = lookup_questions(engine_settings, rows)
    questions = (lookups * (1 + (lists + 1) * LIST // max(len(lookups), 1)))[: (lists + 1) * LIST]
    questions = [Question(f"{i}-{q.id}", q.text) for i, q in enumerate(questions)]  # ids unique when repeated
    # the last list warms each side up, untimed: the dictionaries and caches a process loads at first
    warm_up, questions = questions[-LIST:], questions[:-LIST]
    batches = [questions[i : i + LIST] for i in range(0, len(questions), LIST)]
    print(f"{len(lookups)} lookup questions; {len(batches)} lists of {LIST}, after one list to warm up")

    # in a fresh process, as the server's: this one analysed every question already, which warms caches
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        baseline, in_process = pool.submit(answer_as_qa_run, engine_settings, warm_up, batches).result()
    command_rate = _command_rate(engine_settings.index.index_dir, work, questions)
    served, served_rate = _serve(engine_settings.index.index_dir, warm_up, batches)
    same = sum(all(served[q.id][k] == baseline[q.id][k] for k in ("value", "answer")) for q in questions)
    ratio = served_rate / in_process
    print(
        f"qa.run --workers 1: {in_process:,.1f} q/s answering (engine open), {command_rate:,.1f} q/s as a "
        f"command (start-up included)"
    )
    print(
        f"POST /ask, lists of {LIST}: {served_rate:,.1f} q/s = {ratio:.2f}x qa.run's one-process rate "
        f"(target >= {TARGET}), {served_rate / command_rate:.2f}x the command's; "
        f"same answers {same}/{len(questions)}"
    )
    return 0 if ratio >= TARGET and same == len(questions) else 1


def oracle_index(data: Path, rows: list[dict], work: Path) -> IndexSettings:
    """The index of the FinGLM oracle facts workbook made from the dev list's prompts (work/index)."""
    from ingestion.pipeline import ingest

    corpus = work / "corpus"
    corpus.mkdir(exist_ok=True)
    reports = read_reports_list(data / "A-list-txt-name.txt")
    write_workbook(corpus / "finglm_oracle_facts.xlsx", oracle_facts(rows, reports), reports)
    settings = IndexSettings(work / "index")
    print(ingest(corpus, settings, progress=False).text(), file=sys.stderr)
    return settings


def lookup_questions(engine_settings: EngineSettings, rows: list[dict]) -> list[Question]:
    """The dev list's questions the rules route as `lookup`."""
    from qa.engine import Engine

    with Engine(engine_settings) as engine:
        return [
            q
            for q in (Question(str(r["id"]), r["question"]) for r in rows)
            if engine.analyze(q).type == "lookup"
        ]


def _command_rate(index: Path, work: Path, questions: list[Question]) -> float:
    """Questions/s of `python -m qa.run QUESTIONS --workers 1` in a process of its own, start-up included."""
    path = work / "questions.jsonl"
    path.write_text(
        "".join(json.dumps({"id": q.id, "question": q.text}, ensure_ascii=False) + "\n" for q in questions),
        encoding="utf-8",
    )
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "qa.run",
            str(path),
            "--index",
            str(index),
            "--workers",
            "1",
            "-q",
            "-o",
            str(work / "qa-run.jsonl"),
            "--overwrite",  # a kept work folder holds the last run's answers
        ],
        check=True,
    )
    return len(questions) / (time.perf_counter() - started)


def answer_as_qa_run(settings, warm_up: list[Question], batches: list[list[Question]]) -> tuple[dict, float]:
    """qa.run's one-process answerer over `batches` after `warm_up`: the answers by id and the timed rate."""
    from qa.io.batch import BatchAnswerer, BatchSettings

    with BatchAnswerer(settings, BatchSettings(workers=1)) as answerer:
        list(answerer.run([warm_up]))
        started = time.perf_counter()
        answers = {a.id: a.to_json() for _, a, _ in answerer.run(batches)}
        return answers, sum(map(len, batches)) / (time.perf_counter() - started)


def _serve(
    index: Path, warm_up: list[Question], batches: list[list[Question]]
) -> tuple[dict[str, dict], float]:
    """Start `python -m serve` on a free port, wait until it answers, send the warm-up list, then time
    POST /ask over the batches."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "serve", "--index", str(index), "--port", str(port), "-q"]
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                urllib.request.urlopen(f"{url}/documents", timeout=5).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("python -m serve did not start") from None
                time.sleep(0.2)
        _ask(url, warm_up)
        answers: dict[str, dict] = {}
        started = time.perf_counter()
        for batch in batches:
            answers.update((a["id"], a) for a in _ask(url, batch))
        return answers, sum(map(len, batches)) / (time.perf_counter() - started)
    finally:
        server.terminate()
        server.wait(timeout=60)


def _ask(url: str, batch: list[Question]) -> list[dict]:
    body = json.dumps([{"id": q.id, "question": q.text} for q in batch], ensure_ascii=False).encode()
    with urllib.request.urlopen(urllib.request.Request(f"{url}/ask", data=body), timeout=600) as response:
        return json.loads(response.read())
