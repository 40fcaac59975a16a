"""The Engine over the bundled examples: a batch of questions gets the answers each question gets alone."""
from __future__ import annotations

import pytest

from core.rulefile import data_dir
from qa.engine import Engine, EngineSettings
from qa.questions import load_questions

EXAMPLES = data_dir("examples")


@pytest.mark.parametrize("mode", ["answer", "retrieve"])
def test_a_batch_is_answered_as_each_question_alone(examples_index, mode):
    questions = load_questions(EXAMPLES / "questions.json")
    with Engine(EngineSettings(index=examples_index, mode=mode)) as engine:
        batch = engine.answer_many(questions)
        served = engine.index.served
    with Engine(EngineSettings(index=examples_index, mode=mode)) as engine:
        alone = [engine.answer(q) for q in questions]  # batches of one
    assert [a.to_json() for a in batch] == [a.to_json() for a in alone]
    assert served >= 1  # the batch's first searches came from one search_many
