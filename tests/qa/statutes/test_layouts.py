"""The layouts of multiple-choice questions on statutes: plain, combination (ア～オ), counting and blanks."""

import re

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


BLANKS = (
    "次に掲げる国家行政組織法の条文の空欄ア～ウに当てはまる語句の組合せ\nとして、妥当なものはどれか。\n"
    "第1 条 この法律は、内閣の統轄の下における行政機関でア及びデジタル庁以外\nのもの（以下「国の行政機関」"
    "という。）の組織の基準を定める。\n"
    "第3 条第1 項 国の行政機関の組織は、この法律でこれを定めるものとする。\n"
    "同第2 項 行政組織のため置かれる国の行政機関は、省、イ及び庁とし、その設\n置及び廃止は、別にウの定めると"
    "ころによる。\n"
    " ア イ ウ"
)


def test_a_question_for_the_words_of_its_blanks_fills_each_sentence_that_has_one():
    layout = read_layout(BLANKS, {"1": "内閣府 委員会 法律", "2": "防衛省 独立行政 \n法人\n 政令"})
    assert layout.kind == "blanks"
    assert layout.stem.endswith("妥当なものはどれか。")
    # the sentence without a blank is no statement; a bracket's full stop ends no sentence
    assert layout.options == {"1": ("1-1", "1-2"), "2": ("2-1", "2-2")}
    assert layout.statements["1-1"].startswith(
        "第1 条 この法律は、内閣の統轄の下における行政機関で内閣府及び"
    )
    assert layout.statements["1-1"].endswith("という。）の組織の基準を定める。")
    assert "デジタル庁" in layout.statements["2-1"]  # a katakana word is no blank
    # a word its table cell wrapped is one word
    assert layout.statements["2-2"].endswith(
        "省、独立行政法人及び庁とし、その設置及び廃止は、別に政令の定めるところによる。"
    )
    # options that do not give one word per blank are not read as blanks
    assert read_layout(BLANKS, {"1": "内閣府 委員会", "2": "防衛省 独立行政法人 政令"}).kind == "plain"


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


def test_every_real_exam_question_for_blanks_gives_each_blank_one_word(shared_data):
    import json

    root = shared_data / "gyosei"
    if not root.exists():
        pytest.skip(f"gyosei data not found at {root}")
    questions = json.loads((root / "questions_dev.json").read_text(encoding="utf-8"))
    asking = [q for q in questions if "空欄" in q["question"] and "に当てはまる語句" in q["question"]]
    layouts = [read_layout(q["question"], q["choices"]) for q in asking]
    assert asking and all(layout.kind == "blanks" for layout in layouts)
    blank = re.compile(r"(?<![\u30a0-\u30ff])[アイウエオ](?![\u30a0-\u30ff])")
    for layout in layouts:  # every blank is filled: no mark is left alone between the words around it
        assert not any(blank.search(text) for text in layout.statements.values())
