"""The Engine over the bundled examples: a batch of questions gets the answers each question gets alone."""

from __future__ import annotations

import shutil

import pytest

from core.errors import InputError, RuleError, StoreError
from core.rulebook import RuleBook, active, using
from core.rulefile import data_dir
from qa.engine import Engine, EngineSettings
from qa.io.questions import load_questions
from qa.records import Question

EXAMPLES = data_dir("examples")


@pytest.mark.parametrize("mode", ["answer", "retrieve"])
def test_a_batch_is_answered_as_each_question_alone(examples_index, mode):
    questions = load_questions(EXAMPLES / "questions.json")
    with Engine(EngineSettings(index=examples_index, mode=mode)) as engine:
        batch = engine.answer_many(questions)
        served, looked_up = engine.index.served, engine.store.served
    with Engine(EngineSettings(index=examples_index, mode=mode)) as engine:
        alone = [engine.answer(q) for q in questions]  # batches of one
    assert [a.to_json() for a in batch] == [a.to_json() for a in alone]
    assert served >= 1  # the batch's first searches came from one search_many ...
    assert looked_up >= (
        1 if mode == "answer" else 0
    )  # ... and its data questions' facts from one lookup_many


def test_an_answer_says_its_unit_and_a_text_answer_its_score(examples_index):
    questions = {q.id: q for q in load_questions(EXAMPLES / "questions.json")}
    with Engine(EngineSettings(index=examples_index)) as engine:
        revenue = engine.answer(Question("r", "2022年示例科技股份有限公司的营业收入是多少元?"))
        email = engine.answer(questions["lookup-1"])
        text = engine.answer(questions["text-1"])
    assert revenue.route == "lookup:facts" and revenue.unit == "元" and revenue.error is None
    assert email.value == "ir@example-tech.cn" and email.unit == ""
    assert text.score is not None and text.score > 0 and text.value is None


def test_a_question_that_fails_has_its_error_apart_from_the_route(examples_index):
    with Engine(EngineSettings(index=examples_index)) as engine:
        engine.analyzer = None  # a bug in one stage: the batch goes on, this question reports it
        failed = engine.answer(Question("x", "2022年示例科技的电子信箱是什么?"))
    assert failed.route == "error" and failed.answer == ""
    assert failed.error.startswith("internal error (a bug in finqa") and "AttributeError" in failed.error
    assert failed.to_json()["error"] == failed.error


def _raising(error: Exception):
    def run(*_args, **_kwargs):
        raise error

    return run


def test_a_question_that_cannot_be_answered_as_asked_fails_alone_with_its_reason(examples_index):
    with Engine(EngineSettings(index=examples_index)) as engine:
        engine.data.run = _raising(InputError("a unit this figure cannot be given in", "questions.json", 3))
        failed = engine.answer(Question("x", "2022年示例科技股份有限公司的营业收入是多少元?"))
        other = engine.answer({q.id: q for q in load_questions(EXAMPLES / "questions.json")}["text-1"])
    assert (
        failed.route == "error" and failed.error == "questions.json:3: a unit this figure cannot be given in"
    )
    assert other.error is None and other.score > 0


@pytest.mark.parametrize(
    "error",
    [
        RuleError("bad regex", "rules/cells.yaml", 4),
        StoreError("facts store is damaged; ingest again", "facts.sqlite"),
    ],
)
def test_a_broken_rule_file_or_store_stops_the_run(examples_index, error):
    with Engine(EngineSettings(index=examples_index)) as engine:
        engine.data.run = _raising(error)
        with pytest.raises(type(error), match=str(error)):
            engine.answer(Question("x", "2022年示例科技股份有限公司的营业收入是多少元?"))


def test_steps_go_before_the_trace_only_when_asked(examples_index):
    question = Question("q", "2022年示例科技的电子信箱是什么?")
    with Engine(EngineSettings(index=examples_index)) as engine:
        analysis = engine.prefetch([question])[0]
        answer = engine.answer(question, analysis)
    plain, traced = answer.to_json(), answer.to_json(analysis.trace)
    assert traced["trace"][: len(analysis.trace)] == list(analysis.trace)
    assert traced["trace"][len(analysis.trace) :] == plain["trace"]
    assert analysis.trace[0].startswith("rule ") and not plain["trace"][0].startswith("rule ")


def test_every_part_of_a_request_is_answered_or_refused_by_name(examples_index):
    with Engine(EngineSettings(index=examples_index)) as engine:
        absent = engine.answer(Question("a", "贵州茅台2022年营业收入是多少元?"))
        partly = engine.answer(Question("p", "2022年示例科技和宁德时代的营业收入分别是多少元?"))
        fifth = engine.answer(Question("f", "示例科技2022年第五季度的营业收入是多少元?"))
        year = engine.answer(Question("y", "示例科技2022年的营业收入是多少元?"))
        quarter = engine.answer(Question("q", "示例科技2022年第三季度的营业收入是多少元?"))
    # a company the corpus lacks is no place filter and no other company: its report is not there
    assert absent.route == "negative:no_report" and absent.value is None and "贵州茅台" in absent.answer
    # the company there is answered, the one absent named
    assert partly.value == year.value and partly.route == "lookup:facts:part_absent"
    assert "宁德时代" in partly.answer.split("。")[-2]
    # no year has a fifth quarter: refused, never the year's figure
    assert fifth.value is None and fifth.route == "negative:no_period" and "第五季度" in fifth.answer
    # an annual report has no third quarter's column: not found, in words that name the period asked
    assert year.value and quarter.value is None and "2022年第三季度的财务报告" in quarter.answer


def test_two_engines_in_one_process_answer_with_their_own_rules(tmp_path, examples_index):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    answers = rules / "answers.yaml"
    text = answers.read_text(encoding="utf-8")
    answers.write_text(
        text.replace('zh: "{company}{year}年的{field}是{value}。"', 'zh: "答：{value}"', 1), "utf-8"
    )
    book = RuleBook.at(rules)
    question = Question("1", "2022年示例科技的电子信箱是什么?")
    with (
        Engine(EngineSettings(examples_index, rules=book)) as own,
        Engine(EngineSettings(examples_index)) as plain,
    ):
        assert own.answer(question).answer == "答：ir@example-tech.cn"
        assert plain.answer(question).answer.startswith("示例科技2022年的电子信箱是")
        with using(book):  # the caller's active book does not change an engine's rules
            assert plain.answer(question).answer.startswith("示例科技2022年的电子信箱是")
    assert active() is RuleBook.default()


def test_the_multiple_choice_settings_reach_the_statutes_answerer(examples_index):
    from qa.statutes.choice import ChoiceSettings

    settings = ChoiceSettings(model_weight=0.5, per_query=2)
    with Engine(EngineSettings(examples_index, choice=settings)) as engine:
        assert engine.choice.settings == settings and engine.choice.finder.settings == settings
    with pytest.raises(ValueError, match="model_weight"):
        ChoiceSettings(model_weight=-1)
