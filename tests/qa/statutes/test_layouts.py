"""The layouts of multiple-choice questions on statutes: plain, combination (ア～オ) and counting."""

import pytest

from qa.statutes.layouts import read_layout, unwrap

COMBINATION = (
    "行政手続法に関する次のア～エの記述のうち、正しいものの組合せはどれか。\n"
    "ア 行政庁は、審査基準を定めるものとす\nる。\n"
    "イ 行政庁は、標準処理期間を定めなければなら\nない。\n"
    "ウ 行政庁は、申請に対する処分をする。\n"
    "エ 行政庁は、理由を示さなければならない。"
)


def test_statements_printed_in_the_question_are_read_with_their_wrapped_lines_joined():
    layout = read_layout(COMBINATION, {"1": "ア・イ", "2": "ア・ウ", "3": "ウ・エ\n［"})
    assert layout.kind == "combination"
    assert layout.stem == "行政手続法に関する次のア～エの記述のうち、正しいものの組合せはどれか。"
    assert layout.statements["ア"] == "行政庁は、審査基準を定めるものとする。"
    assert layout.statements["イ"] == "行政庁は、標準処理期間を定めなければならない。"
    # a stray mark a PDF left after the last mark is not part of the option
    assert layout.options == {"1": ("ア", "イ"), "2": ("ア", "ウ"), "3": ("ウ", "エ")}


def test_a_counting_question_reads_the_number_each_option_names():
    question = COMBINATION.replace("正しいものの組合せはどれか", "誤っているものはいくつあるか")
    layout = read_layout(question, {"1": "一つ", "2": "二つ", "3": "三つ", "4": "四つ", "5": "なし"})
    assert layout.kind == "counting" and len(layout.statements) == 4
    assert layout.counts == {"1": 1, "2": 2, "3": 3, "4": 4, "5": 0}


def test_options_that_are_statements_or_words_keep_the_plain_layout():
    plain = read_layout(
        "次の記述のうち、妥当なものはどれか。", {"1": "行政庁は、\n審査基準を定める。", "2": "定めない。"}
    )
    assert plain.kind == "plain" and plain.statements == {
        "1": "行政庁は、審査基準を定める。",
        "2": "定めない。",
    }
    # blanks filled with words: the options are not marks of the printed statements
    words = read_layout(COMBINATION, {"1": "審査 基準", "2": "処理 期間"})
    assert words.kind == "plain"


def test_unwrap_joins_lines_without_spaces():
    assert unwrap("定めなければなら\nない。\n") == "定めなければならない。"


def test_every_real_exam_question_tagged_combination_is_read_as_one(shared_data):
    import json

    root = shared_data / "gyosei"
    if not root.exists():
        pytest.skip(f"gyosei data not found at {root}")
    questions = json.loads((root / "questions_dev.json").read_text(encoding="utf-8"))
    tags = json.loads((root / "tags_dev.json").read_text(encoding="utf-8"))
    layouts = {q["id"]: read_layout(q["question"], q["choices"]) for q in questions}
    tagged = [qid for qid, t in tags.items() if t["combination"]]
    assert tagged and all(layouts[qid].kind == "combination" for qid in tagged)
    for qid in tagged:  # each option names statements the question prints
        layout = layouts[qid]
        assert len(layout.statements) >= 3 and all(len(text) > 10 for text in layout.statements.values())
