"""Commands are quiet by default, say more with -v and only errors with -q (stderr; stdout stays the output)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from core.rulefile import PROJECT_ROOT, data_dir


def check(rules, *flags) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "qa.rules",
            "check",
            "--rules",
            str(rules),
            "--formulas",
            str(data_dir("formulas")),
            *flags,
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )


def test_warnings_and_the_summary_show_by_default_and_go_with_quiet(tmp_path):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    (rules / "extra.yaml").write_text("a: 1\n", encoding="utf-8")
    plain = check(rules)
    assert plain.returncode == 0
    assert [
        line for line in plain.stderr.splitlines() if line.startswith("warning:")
    ] and "extra.yaml" in plain.stderr
    assert "no problems in" in plain.stderr
    quiet = check(rules, "-q")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""


def test_verbose_answering_logs_each_questions_route_and_keeps_stdout_the_answers(tmp_path):
    questions = tmp_path / "q.json"
    questions.write_text('[{"id": "q1", "question": "2022年示例科技的电子信箱是什么?"}]', encoding="utf-8")
    run = [sys.executable, "-m", "qa.run", str(questions), "--examples"]
    plain = subprocess.run(run, cwd=PROJECT_ROOT, capture_output=True, text=True)
    verbose = subprocess.run([*run, "-v"], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert plain.returncode == verbose.returncode == 0
    assert plain.stdout == verbose.stdout and plain.stdout.count("\n") == 1
    assert "info: q1: lookup -> " not in plain.stderr and "info: q1: lookup -> " in verbose.stderr
