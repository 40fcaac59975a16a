"""qa.run under hostile input: not an index, deep or broken JSON, dirty text, bad rule patterns, fuzzed files."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core.budget import time_limit
from core.errors import InputError
from core.patterns import nested_quantifier
from core.rulefile import PROJECT_ROOT, RULES_DIR, data_dir
from ingestion.pipeline import ingest
from qa.understand.classify import load_type_rules
from qa.io.question_stream import clean_text, iter_questions
from search.ingest_lock import ingest_running
from search.settings import IndexSettings

EXAMPLES = data_dir("examples")
ENV = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    """The bundled examples, ingested."""
    path = tmp_path_factory.mktemp("run") / "index"
    assert ingest(EXAMPLES / "corpus", IndexSettings(path), workers=1, progress=False).exit_code == 0
    return path


def qa_run(*args, cwd: Path = PROJECT_ROOT, env: dict = ENV) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qa.run", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def one_line_error(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert "Traceback" not in result.stderr and len(lines) == 1, result.stderr
    return lines[0]


def test_a_folder_that_is_not_an_index_is_refused_and_left_as_it_was(tmp_path):
    corpus = shutil.copytree(EXAMPLES / "corpus", tmp_path / "corpus")
    before = sorted(p.name for p in corpus.iterdir())
    result = qa_run(EXAMPLES / "questions.json", "--index", corpus)
    assert result.returncode == 2 and "not an index directory" in one_line_error(result)
    assert sorted(p.name for p in corpus.iterdir()) == before


def test_deeply_nested_json_is_a_one_line_error(tmp_path, index):
    questions = tmp_path / "deep.json"
    questions.write_text("[" * 100_000 + "]" * 100_000)
    result = qa_run(questions, "--index", index)
    assert result.returncode == 2 and "nested too deeply" in one_line_error(result)


def test_dirty_text_is_cleaned_and_every_answer_written(tmp_path, index):
    questions = tmp_path / "q.json"
    out = tmp_path / "out.jsonl"
    # json.dumps escapes the lone surrogate as \ud800, as a hostile file would carry it
    questions.write_text(json.dumps([
        {"id": "plain", "question": "示例科技2022年的营业收入是多少元?"},
        {"id": "surrogate", "question": "示例科技\ud8002022年的营业收入是多少元?"},
        {"id": "zero-width", "question": "示例\u200b科技2022年的营业收入是多少元?"},
    ]))
    result = qa_run(questions, "--index", index, "-o", out)
    assert result.returncode == 0, result.stderr
    answers = {a["id"]: a for a in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert answers["zero-width"]["value"] == answers["plain"]["value"] is not None
    assert "\ufffd" in answers["surrogate"]["question"]


def test_answers_before_a_broken_line_are_kept(tmp_path, index):
    questions = tmp_path / "q.jsonl"
    good = [json.dumps({"id": f"q{n}", "question": "什么是流动比率?"}, ensure_ascii=False) for n in range(3)]
    questions.write_text("\n".join(good + ['{"id": "bad", "question": '] + good) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = qa_run(questions, "--index", index, "-o", out)
    assert result.returncode == 2
    assert f"{questions}:4: invalid JSON line" in one_line_error(result)
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["q0", "q1", "q2"]


def test_json_lines_are_streamed_not_loaded_whole(tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "1", "question": "什么是流动比率?"}\n{"id": "2", "question": "x"}\n' + "{broken\n")
    stream = iter_questions(questions)
    assert next(stream).id == "1"  # read before the broken line further down is reached
    assert next(stream).id == "2"
    with pytest.raises(InputError, match=":3: invalid JSON line"):
        next(stream)


def test_the_output_file_follows_the_umask(tmp_path, index):
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"id": "1", "question": "什么是流动比率?"}]))
    out = tmp_path / "out.jsonl"
    result = subprocess.run(f"umask 022 && exec {sys.executable} -m qa.run {questions} --index {index} -o {out}",
                            shell=True, cwd=PROJECT_ROOT, env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_mode & 0o777 == 0o644


def test_a_time_limit_interrupts_python_code():
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        with time_limit(0.2, TimeoutError):
            while True:
                pass
    assert time.monotonic() - started < 30


# -- rule patterns that backtrack without end -------------------------------------------------------


def test_nested_quantifiers_are_found():
    for pattern in (r"^(\w+\s?)*$", r"(a+)+b", r"((ab)*c)*", r"(?:x|y+)*z"):
        assert nested_quantifier(pattern), pattern
    for pattern in (r"(\d{1,3},)*\d+", r"第[一二三四五六七八九十]+[章节]", r"(?:保留|小数)+", r"a*b*c+"):
        assert not nested_quantifier(pattern), pattern


def test_rules_check_and_qa_run_refuse_a_catastrophic_pattern(tmp_path, index):
    rules = shutil.copytree(RULES_DIR, tmp_path / "rules")
    text = (rules / "question_types.yaml").read_text(encoding="utf-8")
    hostile = "rules:\n  - id: hostile\n    type: open\n    priority: 1000\n    patterns:\n      any: ['^(\\w+\\s?)*$']\n"
    (rules / "question_types.yaml").write_text(text.replace("rules:\n", hostile, 1), encoding="utf-8")
    env = {**ENV, "FINQA_RULES_DIR": str(rules)}
    check = subprocess.run([sys.executable, "-m", "qa.rules", "check"], cwd=PROJECT_ROOT, env=env,
                           capture_output=True, text=True)
    assert check.returncode == 1 and "can backtrack without end" in check.stdout
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"id": "h", "question": "a" * 40 + "!"}]))
    result = qa_run(questions, "--index", index, env=env)
    assert result.returncode == 2
    assert f"{rules / 'question_types.yaml'}:" in one_line_error(result)


# -- fuzz: question files and rule files ------------------------------------------------------------

_json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                            max_leaves=20)
_entries = st.fixed_dictionaries({"id": st.text(max_size=10) | st.integers(), "question": st.text(max_size=40)},
                                 optional={"source": st.lists(st.text(max_size=8), max_size=3) | st.text(max_size=8)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.one_of(
    _json_values.map(json.dumps),
    st.lists(_entries, max_size=5).map(json.dumps),
    st.lists(_entries | _json_values, min_size=2, max_size=5).map(lambda xs: "\n".join(map(json.dumps, xs))),
    st.text(max_size=200),
    st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth),
))
def test_any_question_file_gives_clean_questions_or_one_input_error(tmp_path, payload):
    path = tmp_path / "fuzz.json"
    path.write_text(payload, encoding="utf-8", errors="surrogatepass")
    try:
        questions = list(iter_questions(path))
    except InputError as error:
        assert "\n" not in str(error).strip()
        return
    for question in questions:
        assert question.text == clean_text(question.text)
        question.text.encode("utf-8")  # no lone surrogate is left to break the output
        question.id.encode("utf-8")


_patterns = st.text(alphabet="a()*+?|\\ws[]{}1,^$.-", max_size=14)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patterns=st.lists(_patterns, min_size=1, max_size=3), rule_id=st.text(alphabet="abc_-", min_size=1, max_size=6),
       priority=st.integers(-5, 500) | st.text(max_size=3))
def test_any_rule_file_loads_or_reports_file_line_errors(tmp_path, patterns, rule_id, priority):
    path = tmp_path / "question_types.yaml"
    rule = {"types": {"open": {"route": "text"}},
            "rules": [{"id": rule_id, "type": "open", "priority": priority, "patterns": {"any": patterns}}]}
    path.write_text(json.dumps(rule, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    try:
        loaded, errors = load_type_rules(path)
    except InputError as error:
        assert str(error).startswith(str(path))
        return
    for error in errors:
        assert str(error).startswith(f"{path}:")
    if not errors:
        for rule in loaded.rules:  # an accepted pattern has no nested unbounded repeat
            assert rule.any is None or not nested_quantifier(rule.any.pattern)


def test_a_run_while_an_ingest_writes_the_index_warns_in_one_line(tmp_path, index):
    with ingest_running(index):
        result = qa_run(EXAMPLES / "questions.json", "--index", index)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert result.returncode == 0 and len(warnings) == 1 and "an ingest is writing" in warnings[0]
    assert len(result.stdout.splitlines()) == len(json.loads((EXAMPLES / "questions.json").read_text()))
    result = qa_run(EXAMPLES / "questions.json", "--index", index)
    assert result.returncode == 0 and "warning:" not in result.stderr

