import shutil
import subprocess
import sys

from core.rulefile import PROJECT_ROOT, data_dir
from qa.rules import check, main


def test_the_shipped_rule_and_formula_files_are_clean():
    problems, _ = check()
    assert problems == []


def test_the_check_command_exits_0_when_clean_and_1_with_file_line_messages(tmp_path):
    ok = subprocess.run(
        [sys.executable, "-m", "qa.rules", "check"], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    rules = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), rules)
    text = (rules / "question_types.yaml").read_text(encoding="utf-8")
    (rules / "question_types.yaml").write_text(
        text.replace("'原因', '为什么'", "'(原因', '为什么'", 1), encoding="utf-8"
    )
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "qa.rules",
            "check",
            "--rules",
            str(rules),
            "--formulas",
            str(data_dir("formulas")),
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    line = bad.stdout.strip().splitlines()[0]
    assert line.startswith(f"{rules / 'question_types.yaml'}:") and "bad regex '(原因'" in line


def test_check_reports_every_broken_file(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), rules)
    (rules / "fields.yaml").write_text(
        "fields:\n  - name: 存货\n    statement: balance_sheet\n    kind: numbers\n", encoding="utf-8"
    )
    (rules / "answers.yaml").write_text("templates: [\n", encoding="utf-8")
    problems, _ = check(rules, data_dir("formulas"))
    assert any(p.startswith(f"{rules / 'fields.yaml'}:4:") for p in problems)
    assert any(p.startswith(f"{rules / 'answers.yaml'}:") and "invalid YAML" in p for p in problems)
    assert main(["check", "--rules", str(rules), "--formulas", str(data_dir("formulas"))]) == 1


def test_an_unknown_rule_file_is_checked_as_yaml_and_noted(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), rules)
    (rules / "extra.yaml").write_text("a: 1\n", encoding="utf-8")
    problems, notes = check(rules, data_dir("formulas"))
    assert problems == [] and any("extra.yaml" in n for n in notes)
