import shutil
import subprocess
import sys

import pytest

from core.errors import InputError
from core.rulefile import FORMULAS_DIR, PROJECT_ROOT, RULES_DIR
from qa.rules import FewShot, check, main


def test_the_shipped_rule_and_formula_files_are_clean():
    problems, _ = check()
    assert problems == []


def test_the_check_command_exits_0_when_clean_and_1_with_file_line_messages(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "qa.rules", "check"], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    rules = tmp_path / "rules"
    shutil.copytree(RULES_DIR, rules)
    text = (rules / "question_types.yaml").read_text(encoding="utf-8")
    (rules / "question_types.yaml").write_text(text.replace("'原因', '为什么'", "'(原因', '为什么'", 1), encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "qa.rules", "check", "--rules", str(rules), "--formulas", str(FORMULAS_DIR)],
                         cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    line = bad.stdout.strip().splitlines()[0]
    assert line.startswith(f"{rules / 'question_types.yaml'}:") and "bad regex '(原因'" in line


def test_check_reports_every_broken_file(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(RULES_DIR, rules)
    (rules / "fields.yaml").write_text("fields:\n  - name: 存货\n    statement: balance_sheet\n    kind: numbers\n", encoding="utf-8")
    (rules / "answers.yaml").write_text("templates: [\n", encoding="utf-8")
    problems, _ = check(rules, FORMULAS_DIR)
    assert any(p.startswith(f"{rules / 'fields.yaml'}:4:") for p in problems)
    assert any(p.startswith(f"{rules / 'answers.yaml'}:") and "invalid YAML" in p for p in problems)
    assert main(["check", "--rules", str(rules), "--formulas", str(FORMULAS_DIR)]) == 1


def test_an_unknown_rule_file_is_checked_as_yaml_and_noted(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(RULES_DIR, rules)
    (rules / "extra.yaml").write_text("a: 1\n", encoding="utf-8")
    problems, notes = check(rules, FORMULAS_DIR)
    assert problems == [] and any("extra.yaml" in n for n in notes)


def test_fewshot_turns_are_masked_pairs_per_task():
    shots = FewShot.load()
    for task in ("keywords", "report_text", "open"):
        assert shots.system(task) and shots.turns(task)
    user, assistant = shots.turns("keywords")[0]
    assert "<company>" in user and "<year>" in user and assistant.startswith("[")
    with pytest.raises(InputError, match="no few-shot task"):
        shots.turns("translate")


def test_fewshot_mask_hides_company_and_year():
    masked = FewShot.mask("2019年四方科技集团股份有限公司的研发费用", companies=["四方科技集团股份有限公司", "四方科技"])
    assert masked == "<year>年<company>的研发费用"


def test_an_unmasked_year_in_fewshot_is_rejected_with_its_line(tmp_path):
    path = tmp_path / "fewshot.yaml"
    path.write_text((RULES_DIR / "fewshot.yaml").read_text(encoding="utf-8").replace(
        '"<year>年<company>的研发费用是多少元?"', '"2019年<company>的研发费用是多少元?"'), encoding="utf-8")
    with pytest.raises(InputError, match=r"fewshot.yaml:\d+: keywords turn 1: mask the year"):
        FewShot.load(path)
