"""finqa model pull from a mirror folder: the file lands in the user's cache, hash-checked, path printed."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from core.rulefile import PROJECT_ROOT

REPO, NAME = "Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf"


def pull(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": "/usr/bin:/bin",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "finqa", "model", "pull", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def mirror(tmp_path):
    folder = tmp_path / "mirror" / REPO
    folder.mkdir(parents=True)
    content = b"GGUF\x03\x00\x00\x00" + bytes(range(256)) * 4096  # a megabyte, GGUF's magic first
    (folder / NAME).write_bytes(content)
    (folder / f"{NAME}.sha256").write_text(f"{hashlib.sha256(content).hexdigest()}  {NAME}\n")
    return tmp_path / "mirror", content


def test_a_model_from_a_mirror_folder_is_checked_cached_and_its_path_printed(tmp_path, mirror):
    source, content = mirror
    done = pull(tmp_path, "--from", str(source))
    assert done.returncode == 0, done.stderr
    path = tmp_path / "cache" / "finqa" / "models" / REPO / NAME
    assert done.stdout.strip() == str(path) and path.read_bytes() == content
    first = path.stat().st_mtime_ns
    again = pull(tmp_path, "--from", str(source))
    assert again.returncode == 0 and path.stat().st_mtime_ns == first  # already there: not fetched again


def test_a_file_whose_hash_differs_is_refused_and_removed(tmp_path, mirror):
    source, _ = mirror
    done = pull(tmp_path, "--from", str(source), "--sha256", "0" * 64)
    assert done.returncode == 2 and "is not the expected" in done.stderr
    assert not (tmp_path / "cache" / "finqa" / "models" / REPO / NAME).exists()


def test_a_mirror_without_the_file_or_without_a_hash_is_a_one_line_error(tmp_path, mirror):
    source, _ = mirror
    missing = pull(tmp_path, "--from", str(source), "--file", "other.gguf")
    assert missing.returncode == 2 and "neither" in missing.stderr and len(missing.stderr.splitlines()) == 1
    (source / REPO / f"{NAME}.sha256").unlink()
    unhashed = pull(tmp_path, "--from", str(source))
    assert unhashed.returncode == 2 and "--sha256" in unhashed.stderr


def test_the_usage_names_the_finqa_command(tmp_path):
    done = pull(tmp_path, "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: finqa model pull")
