"""qa/io/questions.py: every accepted question-file form, and one-line errors that say where."""

from __future__ import annotations

import json

import pytest

from core.errors import InputError
from qa.io.questions import load_questions, read_json
from qa.records import Question


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_list_gives_questions_with_string_ids_sources_and_category(tmp_path):
    path = write(
        tmp_path,
        "q.json",
        json.dumps(
            [
                {
                    "id": 7,
                    "question": " 2022年示例科技的营业收入是多少元? ",
                    "source": ["annual", 12],
                    "category": "finance",
                },
                {"id": "b", "question": "保單借款最多可以借多少？", "source": "insurance"},
            ],
            ensure_ascii=False,
        ),
    )
    assert load_questions(path) == [
        Question("7", "2022年示例科技的营业收入是多少元?", ("annual", "12"), "finance"),
        Question("b", "保單借款最多可以借多少？", ("insurance",)),
    ]


def test_json_lines_skip_blank_lines_and_accept_a_bom(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes('\ufeff{"id": 0, "question": "甲"}\n\n{"id": 1, "question": "乙"}\n'.encode("utf-8"))
    assert [(q.id, q.text) for q in load_questions(path)] == [("0", "甲"), ("1", "乙")]


def test_a_single_json_line_is_one_question(tmp_path):
    path = write(tmp_path, "q.jsonl", '{"id": "x", "question": "什么是流动比率?"}\n')
    assert load_questions(path) == [Question("x", "什么是流动比率?")]


def test_entries_without_id_are_numbered_by_position(tmp_path):
    path = write(tmp_path, "q.json", '[{"question": "a"}, {"question": "b"}]')
    assert [q.id for q in load_questions(path)] == ["1", "2"]


def test_aicup_form_prefixes_sources_with_the_category(tmp_path):
    path = write(
        tmp_path,
        "q.json",
        json.dumps(
            {
                "questions": [
                    {
                        "qid": 1,
                        "source": [442, 115],
                        "query": "匯款銀行及中間行所收取之相關費用由誰負擔?",
                        "category": "insurance",
                    },
                    {"qid": 51, "source": [1003], "query": "某公司的營業收入?", "category": "finance"},
                ]
            },
            ensure_ascii=False,
        ),
    )
    questions = load_questions(path)
    assert questions[0] == Question(
        "1", "匯款銀行及中間行所收取之相關費用由誰負擔?", ("insurance/442", "insurance/115"), "insurance"
    )
    assert questions[1].sources == ("finance/1003",) and questions[1].category == "finance"


def test_ntcir_form_makes_the_doc_id_the_source_prefix(tmp_path):
    path = write(
        tmp_path,
        "q.json",
        json.dumps(
            {
                "question_tqa_test9": {
                    "question": "エムスリー株式会社の「長期前払費用」は？",
                    "doc_id": "S100J50B",
                },
            },
            ensure_ascii=False,
        ),
    )
    assert load_questions(path) == [
        Question("question_tqa_test9", "エムスリー株式会社の「長期前払費用」は？", ("S100J50B",))
    ]


def test_syntax_error_in_json_names_file_line_and_column(tmp_path):
    path = write(tmp_path, "q.json", '[\n  {"id": 1, "question": "a"},\n  {"id": 2 "question": "b"}\n]\n')
    with pytest.raises(InputError) as err:
        load_questions(path)
    assert str(err.value).startswith(f"{path}:3: invalid JSON at column 12: Expecting ',' delimiter")


def test_bad_json_line_names_its_line_number(tmp_path):
    path = write(
        tmp_path,
        "q.jsonl",
        '{"id": 1, "question": "a"}\n\n{"id": 2, "question": "b"}\n{"id": 3, "question": \n',
    )
    with pytest.raises(InputError) as err:
        load_questions(path)
    assert str(err.value).startswith(f"{path}:4: invalid JSON line")


def test_entry_without_question_text_is_named(tmp_path):
    path = write(tmp_path, "q.jsonl", '{"id": "ok", "question": "a"}\n{"id": "q-17", "question": "  "}\n')
    with pytest.raises(InputError) as err:
        load_questions(path)
    assert str(err.value) == f"{path}:2: entry 2 (id 'q-17'): no question text (\"question\")"


def test_aicup_question_without_query_is_named(tmp_path):
    path = write(tmp_path, "q.json", '{"questions": [{"qid": 5, "source": [1], "category": "faq"}]}')
    with pytest.raises(InputError, match=r"question 1 \(qid '5'\): no question text"):
        load_questions(path)


def test_duplicate_ids_are_refused(tmp_path):
    path = write(tmp_path, "q.json", '[{"id": 1, "question": "a"}, {"id": "1", "question": "b"}]')
    with pytest.raises(InputError, match="entries 1 and 2 share the id '1'"):
        load_questions(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ('"just a string"', "expected a list"),
        ('[["a"]]', "entry 1: expected an object"),
        ('[{"id": 1, "question": "a", "source": {"x": 1}}]', '"source" must be a document id or a list'),
        ('[{"id": [1], "question": "a"}]', "the id must be a string or an integer"),
    ],
)
def test_malformed_entries_are_one_line_errors(tmp_path, text, message):
    path = write(tmp_path, "q.json", text)
    with pytest.raises(InputError, match=message) as err:
        load_questions(path)
    assert "\n" not in str(err.value) and str(err.value).startswith(str(path))


def test_missing_empty_and_undecodable_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        load_questions(tmp_path / "absent.json")
    with pytest.raises(InputError, match="empty file"):
        load_questions(write(tmp_path, "empty.json", "\n \n"))
    latin = tmp_path / "latin.json"
    latin.write_bytes('[{"id": 1, "question": "caf\xe9"}]'.encode("latin-1"))
    with pytest.raises(InputError, match="cannot read"):
        load_questions(latin)


def test_read_json_keeps_the_line_of_each_json_line(tmp_path):
    source = read_json(write(tmp_path, "p.jsonl", '{"a": 1}\n\n\n{"a": 2}\n'))
    assert source.data == [{"a": 1}, {"a": 2}] and source.lines == (1, 4)
    assert str(source.error("bad", 1)) == f"{tmp_path / 'p.jsonl'}:4: bad"


def test_the_real_development_question_files_load(shared_data):
    finglm = load_questions(shared_data / "finglm" / "A-list-question.jsonl")
    assert len(finglm) == 2000 and finglm[0].id == "0" and finglm[0].sources == ()
    aicup = load_questions(shared_data / "aicup" / "questions_dev.json")
    assert len(aicup) == 60 and {q.category for q in aicup} == {"insurance", "finance", "faq"}
    assert all(s.startswith(f"{q.category}/") for q in aicup for s in q.sources)
    ntcir = load_questions(shared_data / "ntcir18-u4" / "questions_dev.json")
    asked = json.loads((shared_data / "ntcir18-u4" / "questions_dev.json").read_text(encoding="utf-8"))
    assert len(ntcir) == len(asked) > 0 and {q.id for q in ntcir} == set(asked)
    reports = {p.name for p in (shared_data / "ntcir18-u4" / "reports").iterdir()}
    assert {q.sources for q in ntcir} == {(r,) for r in reports}


def test_multiple_choice_entries_keep_their_choices_in_order(tmp_path):
    path = write(
        tmp_path,
        "q.json",
        json.dumps(
            [
                {
                    "id": "q1",
                    "question": "正しいものを教えてください。",
                    "choices": {"a": "三十日以内", "b": "六十日以内"},
                    "instruction": "選択肢から１つ選んでください。",
                }
            ],
            ensure_ascii=False,
        ),
    )
    [question] = load_questions(path)
    assert question.choices == (("a", "三十日以内"), ("b", "六十日以内"))


def test_lawqa_samples_form_splits_the_choice_lines(tmp_path):
    path = write(
        tmp_path,
        "selection.json",
        json.dumps(
            {
                "samples": [
                    {
                        "指示": "…",
                        "問題文": "誤っているものを教えてください。",
                        "選択肢": "a 五年\nｂ　一年\nc 三年\nd 十年",
                        "output": "b",
                        "ファイル名": "金商法_問題番号1",
                    }
                ]
            },
            ensure_ascii=False,
        ),
    )
    [question] = load_questions(path)
    assert question.id == "金商法_問題番号1"
    assert question.choices == (("a", "五年"), ("b", "一年"), ("c", "三年"), ("d", "十年"))


@pytest.mark.parametrize(
    "choices,message",
    [("五年\n一年", "must start with its letter"), ({"a": ""}, "must map letters to option texts")],
)
def test_bad_choices_are_one_line_errors_naming_the_entry(tmp_path, choices, message):
    path = write(
        tmp_path, "q.json", json.dumps({"samples": [{"問題文": "問", "選択肢": choices}]}, ensure_ascii=False)
    )
    with pytest.raises(InputError, match=message) as caught:
        load_questions(path)
    assert "sample 1" in str(caught.value) and str(path) in str(caught.value)


def test_the_real_lawqa_questions_load_with_four_choices(shared_data):
    questions = load_questions(shared_data / "lawqa_jp" / "questions_dev.json")
    assert len(questions) == 56 and all([k for k, _ in q.choices] == ["a", "b", "c", "d"] for q in questions)
