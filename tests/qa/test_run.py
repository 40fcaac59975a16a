"""python -m qa.run: --trace puts each question's analysis before its answer's trace; without it the line is as before."""

from __future__ import annotations

import json
import subprocess
import sys

from core.rulefile import PROJECT_ROOT


def test_trace_adds_the_analysis_steps_and_the_default_line_is_unchanged(tmp_path):
    questions = tmp_path / "q.json"
    questions.write_text(
        '[{"id": "q1", "question": "2022年示例科技股份有限公司的营业收入是多少元?"}]', encoding="utf-8"
    )
    run = [sys.executable, "-m", "qa.run", str(questions), "--examples", "-q"]
    plain = json.loads(
        subprocess.run(run, cwd=PROJECT_ROOT, capture_output=True, text=True, check=True).stdout
    )
    traced = json.loads(
        subprocess.run([*run, "--trace"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True).stdout
    )
    assert {k: v for k, v in traced.items() if k != "trace"} == {
        k: v for k, v in plain.items() if k != "trace"
    }
    assert (
        traced["trace"][0].startswith("rule ") and traced["trace"][-len(plain["trace"]) :] == plain["trace"]
    )
    assert plain["unit"] == "元" and plain["error"] is None and not plain["trace"][0].startswith("rule ")


def test_a_question_that_looks_up_no_facts_starts_without_pandas(tmp_path):
    # Start-up time: pandas alone takes a quarter of a second to import; only fact look-ups need it.
    questions = tmp_path / "q.json"
    questions.write_text(
        '[{"id": "t1", "question": "请简要介绍示例科技2022年年报中公司的核心竞争力。"}]', encoding="utf-8"
    )
    index = tmp_path / "index"  # an index made beforehand: ingesting (the parsers) needs pandas
    subprocess.run(
        [
            sys.executable,
            "-m",
            "parser.ingest",
            str(PROJECT_ROOT / "examples" / "corpus"),
            "--index",
            str(index),
            "--workers",
            "1",
            "-q",
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=True,
    )
    probe = (
        "import runpy, sys; sys.argv = ['qa.run', sys.argv[1], '--index', sys.argv[2], '-q']\n"
        "try:\n    runpy.run_module('qa.run', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print('pandas' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(questions), str(index)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["route"] == "report_text:extractive"
    assert done.stderr.strip().splitlines()[-1] == "False"
