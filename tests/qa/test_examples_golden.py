"""The 14 bundled example questions get exactly the answers, values and evidence checked by hand.

examples_golden.json was written by running the engine once and checking each answer against
examples/generate.py, which makes the corpus: e.g. 流动比率 = (812,345,678.12 + 356,789,012.34 +
198,765,432.10) / (150,000,000 + 287,654,321.09) = 3.13, and サンプル商事's 売上高 for 第42期 is
512,345 百万円. A change to any of these is a change in behaviour to look at, not to re-record blindly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.rulefile import data_dir
from qa.engine import Engine, EngineSettings
from qa.io.questions import load_questions

EXAMPLES = data_dir("examples")

GOLDEN = {
    item["id"]: item
    for item in json.loads((Path(__file__).with_name("examples_golden.json")).read_text(encoding="utf-8"))
}


@pytest.fixture(scope="module")
def answers(examples_index) -> dict[str, dict]:
    with Engine(EngineSettings(index=examples_index)) as engine:
        return {a.id: a.to_json() for a in engine.answer_many(load_questions(EXAMPLES / "questions.json"))}


def test_every_example_question_has_a_checked_answer(answers):
    assert sorted(answers) == sorted(GOLDEN)


@pytest.mark.parametrize("qid", sorted(GOLDEN))
def test_the_example_answer_value_and_evidence_are_exactly_the_checked_ones(answers, qid):
    expected = GOLDEN[qid]
    assert {key: answers[qid][key] for key in expected} == expected
