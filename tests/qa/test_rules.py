import shutil
import subprocess
import sys

import pytest

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
        [sys.executable, "-m", "qa.rules", "check", "--rules", str(rules)],
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


HOSTILE = {  # the four shapes of issue 25: each hung qa.run on a 40-200 character question
    "bounded-outer-repeat": r"(.*a){20}x",
    "adjacent-repeats": r"\d*\d*\d*\d*\d*\d*\d*\d*!",
    "optional-alternative": r"^(?:a|a?)+$",
    "readme-example": r"^(\w+\s?)*$",
}
PLACES = {  # a rule file read by each layer, and where a regex of it is written
    "statistics.yaml": ("  patterns:\n", "  patterns:\n    - '(?P<place>{})'\n"),
    "layout.yaml": ("caption_heading: '^[^\\s【]{0,4}【[^】]{1,40}】$'", "caption_heading: '{}'"),
    "headings.yaml": (
        "    pattern: '(\\.{3,}|…{2,}|·{3,}|_{3,}|-{3,}|—{2,}|\\. \\. \\.)\\s*\\d+\\s*$'",
        "    pattern: '{}'",
    ),
}


@pytest.mark.parametrize("name", PLACES)
@pytest.mark.parametrize("shape", HOSTILE)
def test_check_refuses_a_catastrophic_regex_in_any_rule_file_at_its_line(tmp_path, name, shape):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    path = rules / name
    text = path.read_text(encoding="utf-8")
    old, new = PLACES[name]
    assert old in text
    edited = text.replace(old, new.format(HOSTILE[shape]), 1)
    path.write_text(edited, encoding="utf-8")
    line = edited[: edited.index(HOSTILE[shape])].count("\n") + 1
    problems, _ = check(rules, data_dir("formulas"))
    assert [p for p in problems if "can backtrack without end" in p] == [
        p for p in problems if p.startswith(f"{path}:{line}: regex ")
    ]
    assert len(problems) == 1, problems


def test_the_check_command_refuses_a_catastrophic_regex_in_a_vocabulary_file(tmp_path):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    numbers = rules / "numbers.yaml"
    text = numbers.read_text(encoding="utf-8")
    old = r"quarter_after: '\s*(?:年\s*)?(?:的\s*)?(?:{quarter})'"
    assert old in text
    numbers.write_text(
        text.replace(old, r"quarter_after: '\s*(?:年)?\s*(?:的)?\s*(?:{quarter})'"), encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, "-m", "qa.rules", "check", "--rules", str(rules)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    line = text[: text.index(old)].count("\n") + 1
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stdout.splitlines() == [
        f"{numbers}:{line}: regex '\\\\s*(?:年)?\\\\s*(?:的)?\\\\s*(?:{{quarter}})' can backtrack without end: "
        "3 unbounded repeats in a row over the same characters; rewrite it"
    ]
