"""How benches read the development data's JSON-lines files (eval/bench/_data.py)."""

import json
from pathlib import Path

from eval.bench._data import json_lines

BUNDLED_QUESTIONS = Path(__file__).resolve().parents[2] / "eval" / "bench" / "text_questions.jsonl"


def test_json_lines_reads_every_record_in_order_and_skips_blank_lines(tmp_path):
    records = [
        {"id": "q1", "question": "2022年示例科技的电子信箱是什么?"},
        {"id": "q2", "prompt": {"year": "2021"}},
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text(
        "\n".join(["", json.dumps(records[0], ensure_ascii=False), "   ", json.dumps(records[1]), "", ""]),
        encoding="utf-8",
    )
    assert json_lines(path) == records


def test_json_lines_reads_the_bundled_text_questions():
    rows = json_lines(BUNDLED_QUESTIONS)
    assert [row["id"] for row in rows] == [f"T{i:02d}" for i in range(1, 47)]
    assert all(row["question"] and row["keywords"] for row in rows)


def test_answer_in_workers_answers_in_a_fresh_process_as_this_one_does(tmp_path, examples_index):
    from core.rulefile import data_dir
    from eval.bench._data import answer_in_workers
    from qa.engine import Engine, EngineSettings
    from qa.io.answer_file import answer_line
    from qa.io.question_stream import iter_questions

    base = list(iter_questions(data_dir("examples") / "questions.json"))
    questions = tmp_path / "q.jsonl"  # 70 questions: two batches, shared out among the workers
    questions.write_text(
        "".join(
            json.dumps(
                {"id": f"{q.id}#{n}", "question": q.text, "source": list(q.sources)}, ensure_ascii=False
            )
            + "\n"
            for n in range(5)
            for q in base
        ),
        encoding="utf-8",
    )
    seconds, lines = answer_in_workers(examples_index, questions, 2)
    with Engine(EngineSettings(index=examples_index)) as engine:
        alone = [answer_line(engine.answer(q)) for q in iter_questions(questions)]
    assert seconds > 0 and len(lines) == 70
    assert lines == alone
