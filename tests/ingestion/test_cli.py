"""Ctrl-C during `python -m parser.ingest` / `finqa ingest` with 2 workers: one line saying what was kept and
how to resume, exit 130, no traceback from the command or its workers; the same command then finishes."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.rulefile import PROJECT_ROOT, data_dir

ENV = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
COPIES = 12  # 36 real annual-report PDFs: a minute of parsing on two workers, so the signal finds work left
KEPT = re.compile(
    r"^interrupted: (\d+) of (\d+) files to ingest were ingested and kept; run the same command again to resume$"
)


@pytest.fixture
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    for n in range(COPIES):
        shutil.copytree(data_dir("examples") / "corpus" / "annual", root / f"copy{n}")
    return root


def start(command: list[str], corpus: Path, index: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*command, str(corpus), "--index", str(index), "--workers", "2", "--batch", "2"],
        cwd=PROJECT_ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's job: Ctrl-C signals all of it
        # as a terminal's job gets it: a shell that ran these tests in the background left SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def interrupt(run: subprocess.Popen) -> str:
    os.killpg(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr and "Process " not in stderr, (
        stderr
    )
    lines = [line for line in stderr.splitlines() if line.startswith("interrupted")]
    assert len(lines) == 1, stderr
    return lines[0]


def committed(index: Path) -> int:
    try:
        return len(json.loads((index / "manifest.json").read_text(encoding="utf-8"))["documents"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "parser.ingest"], [sys.executable, "-m", "finqa", "ingest"]],
    ids=["python-m-parser.ingest", "finqa-ingest"],
)
def test_ctrl_c_while_parsing_says_what_was_kept_and_the_same_command_resumes(tmp_path, corpus, command):
    index = tmp_path / "index"
    run = start(command, corpus, index)
    deadline = time.monotonic() + 300
    while committed(index) < 2 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    assert run.poll() is None, "the ingest ended before it could be interrupted"
    kept, todo = map(int, KEPT.match(interrupt(run)).groups())
    assert todo == 3 * COPIES and 2 <= kept < todo
    again = subprocess.run(
        [*command, str(corpus), "--index", str(index), "--workers", "2"],
        cwd=PROJECT_ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"{todo - kept} ingested, {kept} unchanged, 0 failed"), again.stdout


def test_ctrl_c_as_the_ingest_starts_is_one_line_too(tmp_path, corpus):
    run = start([sys.executable, "-m", "parser.ingest"], corpus, tmp_path / "index")
    time.sleep(0.5)  # importing the command's modules
    line = interrupt(run)
    assert line == "interrupted as it started: nothing was written; run the same command again" or KEPT.match(
        line
    )
