"""The rule census of the multiple-choice benches: questions each judging path fires on, and those right."""

from eval.bench._choice import Answered, census_rows, print_census
from qa.records import Answer
from qa.statutes.choice import Decision, Found, Judged
from qa.statutes.compare import Alignment
from qa.statutes.layouts import Layout


def _answered(qid: str, value: str, paths: set[str]) -> Answered:
    choice = Judged(value, "", Alignment(None, 0.0, ()), 0.0)
    decision = Decision(Layout("plain", "", {}), "positive", Found(), [], choice, "rules", frozenset(paths))
    answer = Answer(id=qid, question="", answer="", type="multiple_choice", route="", value=value)
    return Answered(answer, decision)


def test_the_census_counts_questions_fired_on_and_right_across_sources(tmp_path, capsys):
    answered = {"q1": _answered("q1", "a", {"negation", "number"}), "q2": _answered("q2", "b", {"negation"})}
    lawqa = census_rows(answered, {"q1": "a", "q2": "c"})
    assert lawqa["negation"] == {"fired": ["q1", "q2"], "right": ["q1"]}
    assert lawqa["number"] == {"fired": ["q1"], "right": ["q1"]}
    shared = tmp_path / "census.json"
    print_census("lawqa", lawqa, shared)
    gyosei = census_rows({"R2-1": _answered("R2-1", "1", {"negation"})}, {"R2-1": "1"})
    print_census("gyosei", gyosei, shared)
    lines = capsys.readouterr().out.splitlines()
    negation = next(line for line in reversed(lines) if line.startswith("negation"))
    assert negation.split()[1:] == ["1/2", "1/1", "2/3"]  # lawqa, gyosei, both
    number = next(line for line in reversed(lines) if line.startswith("number"))
    assert number.split()[1:4] == ["1/1", "0/0", "1/1"] and "fewer than 3" in number
