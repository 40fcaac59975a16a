"""python -m qa.run: --trace puts each question's analysis before its answer's trace; without it the line is as before."""
from __future__ import annotations

import json
import subprocess
import sys

from core.rulefile import PROJECT_ROOT


def test_trace_adds_the_analysis_steps_and_the_default_line_is_unchanged(tmp_path):
    questions = tmp_path / "q.json"
    questions.write_text('[{"id": "q1", "question": "2022年示例科技股份有限公司的营业收入是多少元?"}]', encoding="utf-8")
    run = [sys.executable, "-m", "qa.run", str(questions), "-q"]
    plain = json.loads(subprocess.run(run, cwd=PROJECT_ROOT, capture_output=True, text=True, check=True).stdout)
    traced = json.loads(subprocess.run([*run, "--trace"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                                       check=True).stdout)
    assert {k: v for k, v in traced.items() if k != "trace"} == {k: v for k, v in plain.items() if k != "trace"}
    assert traced["trace"][0].startswith("rule ") and traced["trace"][-len(plain["trace"]):] == plain["trace"]
    assert plain["unit"] == "元" and plain["error"] is None and not plain["trace"][0].startswith("rule ")
