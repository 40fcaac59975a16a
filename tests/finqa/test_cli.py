"""The `finqa` command runs the module command lines unchanged, with a user's rules when asked."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from core.rulefile import FORMULAS_DIR, PROJECT_ROOT, RULES_DIR

ENV = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}


def finqa(*args: str, env: dict = ENV, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "finqa", *args], cwd=cwd, env=env, capture_output=True, text=True)


def broken_rules(tmp_path):
    rules = shutil.copytree(RULES_DIR, tmp_path / "rules")
    text = (rules / "question_types.yaml").read_text(encoding="utf-8")
    (rules / "question_types.yaml").write_text(text.replace("'原因', '为什么'", "'(原因', '为什么'", 1), encoding="utf-8")
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
    asked = finqa("ask", str(questions), "--examples", env={**ENV, "FINQA_RULES_DIR": str(rules)}, cwd=tmp_path)
    assert asked.returncode == 2 and "question_types.yaml" in asked.stderr and "Traceback" not in asked.stderr


def test_the_formulas_option_is_passed_on_like_the_rules(tmp_path):
    formulas = shutil.copytree(FORMULAS_DIR, tmp_path / "formulas")
    (formulas / "zh.yaml").write_text("formulas: [\n", encoding="utf-8")
    done = finqa("--formulas", str(formulas), "check", cwd=tmp_path)
    assert done.returncode == 1 and f"{formulas / 'zh.yaml'}:" in done.stdout


def test_each_command_keeps_its_modules_exit_codes_and_messages(tmp_path):
    missing = tmp_path / "no-such-corpus"
    ingest = finqa("ingest", str(missing), "--index", str(tmp_path / "index"))
    module = subprocess.run([sys.executable, "-m", "parser.ingest", str(missing), "--index", str(tmp_path / "index")],
                            env=ENV, capture_output=True, text=True)
    assert (ingest.returncode, ingest.stderr) == (module.returncode, module.stderr) == (2, module.stderr)
    assert finqa("bench").returncode == 2  # no benchmark named: eval.bench's usage line
    assert finqa("score", "--help").returncode == 0
    assert finqa("nonsense").returncode == 2


def test_examples_prints_where_the_bundled_corpus_and_questions_are(tmp_path):
    done = finqa("examples", cwd=tmp_path)
    shown = dict(line.split(":", 1) for line in done.stdout.splitlines())
    assert done.returncode == 0
    assert Path(shown["corpus"].strip()).is_dir() and Path(shown["questions"].strip()).is_file()
