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
