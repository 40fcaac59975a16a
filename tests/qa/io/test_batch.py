"""Answering batches of questions in this process and in worker processes, over the bundled examples."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import InputError
from core.rulefile import PROJECT_ROOT, data_dir
from qa.engine import EngineSettings
from qa.io.batch import IN_FLIGHT, BatchAnswerer, BatchSettings
from qa.io.question_stream import iter_questions
from qa.records import Question

EXAMPLES = data_dir("examples")


def _questions(copies: int) -> list[Question]:
    """The example questions `copies` times over, each copy with its own ids."""
    base = list(iter_questions(EXAMPLES / "questions.json"))
    return [Question(id=f"{q.id}#{n}", text=q.text, sources=q.sources) for n in range(copies) for q in base]


def _lines(index, workers: int, batches, trace: bool = False) -> list[dict]:
    settings = BatchSettings(workers=workers, trace=trace)
    with BatchAnswerer(EngineSettings(index=index), settings) as answerer:
        return [answer.to_json(steps) for _, answer, steps in answerer.run(batches)]


def test_worker_processes_answer_as_this_process_does_and_in_input_order(examples_index):
    questions = _questions(5)  # 70 questions in 7 batches: more than two workers hold at once
    batches = [questions[i : i + 10] for i in range(0, len(questions), 10)]
    alone = _lines(examples_index, 1, batches, trace=True)
    pooled = _lines(examples_index, 2, batches, trace=True)
    assert [line["id"] for line in pooled] == [q.id for q in questions]
    assert pooled == alone
    assert any(line["value"] for line in pooled) and all(not line["error"] for line in pooled)


def test_a_broken_stream_is_raised_once_the_batches_before_it_are_answered(examples_index):
    questions = _questions(1)

    def stream():
        yield questions[:5]
        yield questions[5:10]
        raise InputError("invalid JSON line", "q.jsonl", 11)

    answered = []
    with pytest.raises(InputError, match="q.jsonl:11: invalid JSON line"):
        with BatchAnswerer(EngineSettings(index=examples_index), BatchSettings(workers=2)) as answerer:
            for _question, answer, _ in answerer.run(stream()):
                answered.append(answer.id)
    assert answered == [q.id for q in questions[:10]]


def test_the_time_budget_holds_in_worker_processes(examples_index):
    settings = BatchSettings(workers=2, question_seconds=1e-6)
    with BatchAnswerer(EngineSettings(index=examples_index), settings) as answerer:
        answers = [answer for _, answer, _ in answerer.run([_questions(1)])]
    assert answers and all(a.route == "error" and "no answer within" in a.error for a in answers)


def test_a_dead_worker_costs_only_the_batches_it_held(examples_index):
    questions = _questions(6)
    batches = [questions[i : i + 6] for i in range(0, len(questions), 6)]  # 14 batches, IN_FLIGHT at a time
    lines = []
    with BatchAnswerer(EngineSettings(index=examples_index), BatchSettings(workers=2)) as answerer:
        for _question, answer, _ in answerer.run(batches):
            if not lines:
                os.kill(
                    next(iter(answerer._pools[0]._processes)), signal.SIGKILL
                )  # as the kernel's OOM killer would
            lines.append(answer)
    assert [a.id for a in lines] == [q.id for q in questions]
    lost = [a for a in lines if a.error]
    assert all("worker process died" in a.error for a in lost) and len(lost) <= IN_FLIGHT * 6
    assert all(not a.error for a in lines[-6:])  # a new pool answered the batches after the death


@pytest.mark.parametrize("workers, seconds", [(0, 300.0), (2, -1.0)])
def test_settings_are_checked_on_construction(workers, seconds):
    with pytest.raises(InputError):
        BatchSettings(workers=workers, question_seconds=seconds)


def test_qa_run_answers_a_file_of_many_batches_in_worker_processes(tmp_path, examples_index):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        "".join(
            json.dumps({"id": q.id, "question": q.text}, ensure_ascii=False) + "\n" for q in _questions(10)
        ),
        encoding="utf-8",
    )  # 140 questions, 3 batches
    outputs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "qa.run",
                str(questions),
                "--index",
                str(examples_index.index_dir),
                "--workers",
                workers,
                "-o",
                str(out),
            ],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        assert f"{workers} answering process" in result.stderr
        outputs[workers] = out.read_text(encoding="utf-8")
    assert outputs["1"] == outputs["2"] and outputs["2"].count("\n") == 140


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has ended; reaping it is its new parent's business


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="workers end with their parent on Linux only"
)
def test_the_workers_end_when_qa_run_is_killed(tmp_path, examples_index):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        "".join(
            json.dumps({"id": q.id, "question": q.text}, ensure_ascii=False) + "\n" for q in _questions(40)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qa.run",
            str(questions),
            "--index",
            str(examples_index.index_dir),
            "--workers",
            "2",
            "-o",
            str(out),
        ],
        cwd=PROJECT_ROOT,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not (out.exists() and out.read_text(encoding="utf-8")) and time.monotonic() < deadline:
        time.sleep(0.05)  # answers are coming: the workers are up
    workers = [int(pid) for pid in Path(f"/proc/{run.pid}/task/{run.pid}/children").read_text().split()]
    run.kill()  # as -9 would: the pool cannot stop its workers
    run.wait()
    assert len(workers) == 2
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)


def test_ctrl_c_ends_the_run_with_one_line_and_no_worker_traceback(tmp_path, examples_index):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        "".join(
            json.dumps({"id": q.id, "question": q.text}, ensure_ascii=False) + "\n" for q in _questions(200)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    # Ctrl-C in a terminal signals the whole process group: qa.run leads a group of its own here, as a shell job.
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qa.run",
            str(questions),
            "--index",
            str(examples_index.index_dir),
            "--workers",
            "2",
            "-o",
            str(out),
        ],
        cwd=PROJECT_ROOT,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # as a terminal's job gets it: a shell that ran these tests in the background left SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not (out.exists() and out.read_text(encoding="utf-8")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 130 and "Traceback" not in stderr, stderr
    assert [line for line in stderr.splitlines() if line.startswith("interrupted")] == [
        "interrupted: the answers so far are written"
    ]
