"""The `finqa` command runs the module command lines unchanged, with a user's rules when asked."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from core.rulefile import PROJECT_ROOT, data_dir

ENV = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}


def finqa(*args: str, env: dict = ENV, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "finqa", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def broken_rules(tmp_path):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    text = (rules / "question_types.yaml").read_text(encoding="utf-8")
    (rules / "question_types.yaml").write_text(
        text.replace("'原因', '为什么'", "'(原因', '为什么'", 1), encoding="utf-8"
    )
    return rules


def test_check_reads_the_bundled_rules_from_any_folder(tmp_path):
    done = finqa("check", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no problems" in done.stderr


def test_the_rules_option_chooses_a_users_folder_for_any_command(tmp_path):
    rules = broken_rules(tmp_path)
    done = finqa("--rules", str(rules), "check", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith(f"{rules / 'question_types.yaml'}:")
    # the same folder through the variable, and for answering: the bad rule file is a usage error (exit 2)
    questions = tmp_path / "q.json"
    questions.write_text('[{"id": "1", "question": "2022年示例科技的电子信箱是什么?"}]', encoding="utf-8")
    asked = finqa(
        "ask", str(questions), "--examples", env={**ENV, "FINQA_RULES_DIR": str(rules)}, cwd=tmp_path
    )
    assert asked.returncode == 2 and "question_types.yaml" in asked.stderr and "Traceback" not in asked.stderr


def test_the_formulas_option_is_passed_on_like_the_rules(tmp_path):
    formulas = shutil.copytree(data_dir("formulas"), tmp_path / "formulas")
    (formulas / "zh.yaml").write_text("formulas: [\n", encoding="utf-8")
    done = finqa("--formulas", str(formulas), "check", cwd=tmp_path)
    assert done.returncode == 1 and f"{formulas / 'zh.yaml'}:" in done.stdout


def test_each_command_keeps_its_modules_exit_codes_and_messages(tmp_path):
    missing = tmp_path / "no-such-corpus"
    ingest = finqa("ingest", str(missing), "--index", str(tmp_path / "index"))
    module = subprocess.run(
        [sys.executable, "-m", "parser.ingest", str(missing), "--index", str(tmp_path / "index")],
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert (ingest.returncode, ingest.stderr) == (module.returncode, module.stderr) == (2, module.stderr)
    assert finqa("bench").returncode == 2  # no benchmark named: eval.bench's usage line
    assert finqa("score", "--help").returncode == 0
    assert finqa("nonsense").returncode == 2


def test_help_says_what_finqa_does_and_each_commands_purpose_in_one_line():
    done = finqa("--help")
    assert done.returncode == 0
    text = done.stdout
    assert "answers questions about financial reports" in text and "python -m parser.ingest ARGS" not in text
    listed = text.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    names = ["ingest", "ask", "run", "score", "check", "model", "bench", "serve", "examples"]
    assert [line.split()[0] for line in listed] == names
    assert all(len(line.split()) > 3 for line in listed)


def test_every_argument_of_every_command_has_help_and_usage_names_finqa():
    for command in (("ingest",), ("ask",), ("score",), ("check", "check"), ("model", "pull")):
        done = finqa("check", "--help") if command[0] == "check" else finqa(*command, "--help")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"usage: finqa {' '.join(dict.fromkeys(command))}"), done.stdout[:80]
        options = done.stdout.split("\n\n", 2)[-1]
        lines = options.splitlines()
        undocumented = []
        for i, line in enumerate(lines):
            if not line.startswith("  ") or line.startswith("   "):
                continue  # not an argument's first line
            helped = len(line.split("  ")) >= 2 and line.split("  ", 2)[-1].strip()
            # an option whose help did not fit goes on the next line, indented further
            if not helped and not (i + 1 < len(lines) and lines[i + 1].startswith(" " * 10)):
                undocumented.append(line)
        assert not undocumented, f"finqa {command[0]}: {undocumented}"


def test_advice_names_the_command_the_user_ran(tmp_path):
    questions = tmp_path / "q.json"
    questions.write_text('[{"id": "1", "question": "2022年示例科技的电子信箱是什么?"}]', encoding="utf-8")
    asked = finqa("ask", str(questions), "--index", str(tmp_path / "none"))
    assert asked.returncode == 2 and "finqa ingest CORPUS --index DIR" in asked.stderr
    module = subprocess.run(
        [sys.executable, "-m", "qa.run", str(questions), "--index", str(tmp_path / "none")],
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert module.returncode == 2 and "python -m parser.ingest CORPUS" in module.stderr


def test_bench_list_names_each_bench_with_its_data_and_an_absent_data_set_says_where_it_is_expected(tmp_path):
    listed = finqa("bench", "list", env={**ENV, "FINQA_SHARED_DATA": str(tmp_path)})
    assert listed.returncode == 0
    assert "annual        real Chinese annual reports" in listed.stdout
    assert "annual-cn (absent)" in listed.stdout and str(tmp_path) in listed.stdout
    assert finqa("bench", "--help").returncode == 0
    skipped = finqa("bench", "routing", env={**ENV, "FINQA_SHARED_DATA": str(tmp_path)})
    assert skipped.returncode == 0
    assert skipped.stdout.startswith("skipped: this bench needs the FinGLM")
    assert str(tmp_path / "finglm") in skipped.stdout


def test_a_rules_folder_that_does_not_exist_is_a_one_line_error(tmp_path):
    done = finqa("--rules", str(tmp_path / "nope"), "check")
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {tmp_path / 'nope'}: rules folder not found"


def test_examples_prints_where_the_bundled_corpus_and_questions_are(tmp_path):
    done = finqa("examples", cwd=tmp_path)
    shown = dict(line.split(":", 1) for line in done.stdout.splitlines())
    assert done.returncode == 0
    assert Path(shown["corpus"].strip()).is_dir() and Path(shown["questions"].strip()).is_file()
