"""The text bench's own labelled questions and how it judges an answer."""

from eval.bench._data import fixed_halves
from eval.bench.text import judge, load_questions, rejected
from qa.records import Answer


def answer(text, route="report_text:extractive"):
    return Answer(id="q", question="", answer=text, type="report_text", route=route)


def test_every_key_word_must_be_in_the_answer_in_one_of_its_forms():
    assert judge(["1.88元", "天健|致同"], answer("每10股派发现金红利1.88 元；续聘致同会计师事务所"))
    assert not judge(["1.88元", "天健|致同"], answer("每10股派发现金红利1.88元"))


def test_the_questions_are_short_key_words_over_five_reports_in_two_halves():
    rows = load_questions()
    assert len(rows) >= 40 and len({r["id"] for r in rows}) == len(rows)
    assert all(r["keywords"] and all(len(k) <= 30 for k in r["keywords"]) and r["section"] for r in rows)
    tune, check = fixed_halves(r["id"] for r in rows)
    assert len(tune) >= 20 and len(check) >= 20


def test_a_model_sentence_counts_as_written_or_rejected_by_its_route():
    assert rejected(answer("…", "report_text:llm")) is False
    assert rejected(answer("…", "report_text:record (model sentence rejected)")) is True
    assert rejected(answer("…")) is None
