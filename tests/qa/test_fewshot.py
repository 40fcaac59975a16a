"""Few-shot turns: masked pairs per task, and a year left unmasked is an error with its line."""

import pytest

from core.errors import InputError
from core.rulefile import data_dir
from qa.fewshot import FewShot


def test_fewshot_turns_are_masked_pairs_per_task():
    shots = FewShot.load()
    for task in ("keywords", "report_text", "open"):
        assert shots.system(task) and shots.turns(task)
    user, assistant = shots.turns("keywords")[0]
    assert "<company>" in user and "<year>" in user and assistant.startswith("[")
    with pytest.raises(InputError, match="no few-shot task"):
        shots.turns("translate")


def test_fewshot_mask_hides_company_and_year():
    masked = FewShot.mask(
        "2019年四方科技集团股份有限公司的研发费用", companies=["四方科技集团股份有限公司", "四方科技"]
    )
    assert masked == "<year>年<company>的研发费用"


def test_an_unmasked_year_in_fewshot_is_rejected_with_its_line(tmp_path):
    path = tmp_path / "fewshot.yaml"
    path.write_text(
        (data_dir("rules") / "fewshot.yaml")
        .read_text(encoding="utf-8")
        .replace('"<year>年<company>的研发费用是多少元?"', '"2019年<company>的研发费用是多少元?"'),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"fewshot.yaml:\d+: keywords turn 1: mask the year"):
        FewShot.load(path)
