"""The mark an ingest leaves on its index folder while it writes (qa.run warns on it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from core.rulefile import PROJECT_ROOT
from ingestion.pipeline import ingest
from search.ingest_lock import LOCK_NAME, ingest_in_progress
from search.settings import IndexSettings

EXAMPLES = PROJECT_ROOT / "examples"


def test_ingest_marks_the_index_while_it_runs_and_not_after(tmp_path):
    path = tmp_path / "index"
    seen: list[bool] = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            seen.append(ingest_in_progress(path))
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        assert ingest(EXAMPLES / "corpus", IndexSettings(path), workers=1, progress=False).exit_code == 0
    finally:
        done.set()
        watcher.join()
    assert any(seen) and not ingest_in_progress(path)


def test_a_killed_ingest_leaves_no_stale_mark(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from search.ingest_lock import ingest_running\n"
            "with ingest_running(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(600)",
            str(tmp_path),
        ],
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert ingest_in_progress(tmp_path)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert (tmp_path / LOCK_NAME).exists() and not ingest_in_progress(tmp_path)


def test_a_folder_never_ingested_is_not_in_progress(tmp_path):
    assert not ingest_in_progress(tmp_path) and not ingest_in_progress(tmp_path / "missing")
