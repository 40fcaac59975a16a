"""`python -m serve` refuses what it cannot serve with one line and exit code 2, before binding any port."""

from __future__ import annotations

import os
import subprocess
import sys

from core.rulefile import PROJECT_ROOT

ENV = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}


def serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "finqa", "serve", *args], env=ENV, capture_output=True, text=True, timeout=120
    )


def test_a_folder_that_is_not_an_index_is_refused(tmp_path):
    done = serve("--index", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "not an index directory" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_port_out_of_range_is_refused(examples_index):
    done = serve("--index", str(examples_index.index_dir), "--port", "70000")
    assert done.returncode == 2 and "--port must be 1 to 65535" in done.stderr
