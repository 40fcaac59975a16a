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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.budget import time_limit
from core.errors import InputError
from core.patterns import nested_quantifier
from core.rulefile import PROJECT_ROOT, data_dir
from ingestion.pipeline import ingest
from qa.io.question_stream import clean_text, iter_questions
from qa.understand.classify import load_type_rules
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
    return subprocess.run(
        [sys.executable, "-m", "qa.run", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


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
    questions.write_text(
        json.dumps(
            [
                {"id": "plain", "question": "示例科技2022年的营业收入是多少元?"},
                {"id": "surrogate", "question": "示例科技\ud8002022年的营业收入是多少元?"},
                {"id": "zero-width", "question": "示例\u200b科技2022年的营业收入是多少元?"},
            ]
        )
    )
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
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == [
        "q0",
        "q1",
        "q2",
    ]


def test_json_lines_are_streamed_not_loaded_whole(tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"id": "1", "question": "什么是流动比率?"}\n{"id": "2", "question": "x"}\n' + "{broken\n"
    )
    stream = iter_questions(questions)
    assert next(stream).id == "1"  # read before the broken line further down is reached
    assert next(stream).id == "2"
    with pytest.raises(InputError, match=":3: invalid JSON line"):
        next(stream)


def test_the_output_file_follows_the_umask(tmp_path, index):
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"id": "1", "question": "什么是流动比率?"}]))
    out = tmp_path / "out.jsonl"
    result = subprocess.run(
        f"umask 022 && exec {sys.executable} -m qa.run {questions} --index {index} -o {out}",
        shell=True,
        cwd=PROJECT_ROOT,
        env=ENV,
        capture_output=True,
        text=True,
    )
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
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    text = (rules / "question_types.yaml").read_text(encoding="utf-8")
    hostile = "rules:\n  - id: hostile\n    type: open\n    priority: 1000\n    patterns:\n      any: ['^(\\w+\\s?)*$']\n"
    (rules / "question_types.yaml").write_text(text.replace("rules:\n", hostile, 1), encoding="utf-8")
    env = {**ENV, "FINQA_RULES_DIR": str(rules)}
    check = subprocess.run(
        [sys.executable, "-m", "qa.rules", "check"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )
    assert check.returncode == 1 and "can backtrack without end" in check.stdout
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"id": "h", "question": "a" * 40 + "!"}]))
    result = qa_run(questions, "--index", index, env=env)
    assert result.returncode == 2
    assert f"{rules / 'question_types.yaml'}:" in one_line_error(result)


# -- fuzz: question files and rule files ------------------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_entries = st.fixed_dictionaries(
    {"id": st.text(max_size=10) | st.integers(), "question": st.text(max_size=40)},
    optional={"source": st.lists(st.text(max_size=8), max_size=3) | st.text(max_size=8)},
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    payload=st.one_of(
        _json_values.map(json.dumps),
        st.lists(_entries, max_size=5).map(json.dumps),
        st.lists(_entries | _json_values, min_size=2, max_size=5).map(
            lambda xs: "\n".join(map(json.dumps, xs))
        ),
        st.text(max_size=200),
        st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth),
    )
)
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
@given(
    patterns=st.lists(_patterns, min_size=1, max_size=3),
    rule_id=st.text(alphabet="abc_-", min_size=1, max_size=6),
    priority=st.integers(-5, 500) | st.text(max_size=3),
)
def test_any_rule_file_loads_or_reports_file_line_errors(tmp_path, patterns, rule_id, priority):
    path = tmp_path / "question_types.yaml"
    rule = {
        "types": {"open": {"route": "text"}},
        "rules": [{"id": rule_id, "type": "open", "priority": priority, "patterns": {"any": patterns}}],
    }
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


# -- which corpus: answering never writes one, and a store that vanished is damage --------------------------


def test_only_the_bundled_questions_or_examples_answer_over_the_bundled_corpus(tmp_path):
    mine = shutil.copy(EXAMPLES / "questions.json", tmp_path / "mine.json")
    refused = qa_run(mine)
    assert refused.returncode == 2 and "pass --index INDEX_DIR" in one_line_error(refused)
    chosen = qa_run(mine, "--examples", "-q")
    assert chosen.returncode == 0 and len(chosen.stdout.splitlines()) == len(
        json.loads(Path(mine).read_text())
    )
    mixed = qa_run(mine, "--examples", "--index", tmp_path)
    assert mixed.returncode == 2 and "--examples" in one_line_error(mixed)


def _store_gone(index: Path, tmp_path: Path, remove) -> subprocess.CompletedProcess:
    copy = shutil.copytree(index, tmp_path / "copy")
    remove(copy)
    return qa_run(EXAMPLES / "questions.json", "--index", copy)


@pytest.mark.parametrize(
    "remove",
    [
        lambda copy: (copy / "text" / "meta.json").unlink(),
        lambda copy: shutil.rmtree(copy / "text"),
        lambda copy: (copy / "facts.sqlite").unlink(),
    ],
    ids=["text-meta-deleted", "text-index-deleted", "facts-deleted"],
)
def test_an_embedded_store_that_vanished_is_damage_not_an_empty_corpus(tmp_path, index, remove):
    result = _store_gone(index, tmp_path, remove)
    assert result.returncode == 2 and not result.stdout
    assert "damaged index" in one_line_error(result) and "ingest the corpus again" in result.stderr


def test_a_store_made_again_since_the_ingest_is_damage(tmp_path, index):
    result = _store_gone(index, tmp_path, lambda copy: (copy / "text" / "generation").write_text("0" * 32))
    assert result.returncode == 2 and "is not the one the ingest made" in one_line_error(result)


def test_a_facts_store_with_a_corrupt_page_is_a_one_line_damaged_error(tmp_path, index):
    copy = shutil.copytree(index, tmp_path / "copy")
    facts = copy / "facts.sqlite"
    data = bytearray(facts.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    assert len(data) > 3 * page
    data[2 * page : len(data)] = b"\xa5" * (len(data) - 2 * page)  # the header page stays valid
    facts.write_bytes(bytes(data))
    result = qa_run(EXAMPLES / "questions.json", "--index", copy)
    assert result.returncode == 2 and "damaged" in one_line_error(result)


def _es(*args, es_url: str, index: Path | None = None) -> subprocess.CompletedProcess:
    return qa_run(
        *args, "--backend", "elasticsearch", "--es-url", es_url, *(["--index", index] if index else [])
    )


@pytest.fixture
def es_corpus(es_url, tmp_path):
    """The bundled examples ingested into a corpus of their own on the server; deleted afterwards."""
    from search.elastic_manifest import delete_corpus
    from search.settings import corpus_prefix

    name = f"reliability-{os.getpid()}-{time.monotonic_ns()}"
    settings = IndexSettings(
        tmp_path / "es-index", backend="elasticsearch", es_url=es_url, es_prefix=corpus_prefix(name)
    )
    assert ingest(EXAMPLES / "corpus", settings, workers=1, progress=False).exit_code == 0
    yield name, settings
    delete_corpus(settings)


def _counts(settings: IndexSettings) -> tuple[int, int]:
    from search.elastic import connect

    client = connect(settings.es_url)
    try:
        client.indices.refresh(index=f"{settings.es_prefix}-*")
        return tuple(client.count(index=f"{settings.es_prefix}-{s}")["count"] for s in ("chunks", "facts"))
    finally:
        client.close()


def test_answering_a_named_server_corpus_never_writes_it(es_corpus, es_url, tmp_path):
    name, settings = es_corpus
    before = _counts(settings)
    mine = shutil.copy(EXAMPLES / "questions.json", tmp_path / "mine.json")
    result = _es(mine, "--es-index", name, "-q", es_url=es_url)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == len(json.loads(Path(mine).read_text()))
    assert _counts(settings) == before
    missing = _es(mine, "--es-index", f"{name}-nothing-here", es_url=es_url)
    assert missing.returncode == 2 and "no corpus" in one_line_error(missing)


def test_a_server_index_deleted_since_the_ingest_is_damage(es_corpus, es_url, tmp_path):
    from search.elastic import connect

    name, settings = es_corpus
    client = connect(es_url)
    client.indices.delete(index=f"{settings.es_prefix}-chunks")
    client.close()
    result = _es(EXAMPLES / "questions.json", "--es-index", name, es_url=es_url)
    assert result.returncode == 2 and "damaged index: the text index is missing" in one_line_error(result)
    from search.elastic import connect as reconnect

    client = reconnect(es_url)
    assert not client.indices.exists(index=f"{settings.es_prefix}-chunks")  # nothing was made in its place
    client.close()


# -- the output file: never emptied by accident, never shared, a failed write is one line --------------------


def _answers(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_output_holding_answers_is_refused_unless_resumed_or_overwritten(tmp_path, index):
    questions = [{"id": f"q{n}", "question": "什么是流动比率?"} for n in range(5)]
    path = tmp_path / "q.json"
    path.write_text(json.dumps(questions[:3]), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert qa_run(path, "--index", index, "-o", out).returncode == 0
    first = out.read_bytes()
    refused = qa_run(path, "--index", index, "-o", out)
    assert refused.returncode == 2 and "--resume" in one_line_error(refused) and out.read_bytes() == first
    path.write_text(json.dumps(questions), encoding="utf-8")
    with out.open("a", encoding="utf-8") as cut:
        cut.write('{"id": "q3", "quest')  # a line a killed run left half written
    resumed = qa_run(path, "--index", index, "-o", out, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes().startswith(first) and _answers(out) == ["q0", "q1", "q2", "q3", "q4"]
    again = qa_run(path, "--index", index, "-o", out, "--resume")
    assert again.returncode == 0 and _answers(out) == ["q0", "q1", "q2", "q3", "q4"]
    path.write_text(json.dumps(questions[:1]), encoding="utf-8")
    assert qa_run(path, "--index", index, "-o", out, "--overwrite").returncode == 0 and _answers(out) == [
        "q0"
    ]


def test_a_second_run_on_the_same_output_is_refused_while_the_first_writes(tmp_path, index):
    import fcntl

    out = tmp_path / "out.jsonl"
    with out.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a running qa.run holds it
        result = qa_run(EXAMPLES / "questions.json", "--index", index, "-o", out, "--overwrite")
    assert result.returncode == 2 and "another qa.run is writing" in one_line_error(result)


@pytest.mark.parametrize("target", ["/dev/full", "folder", "read-only"])
def test_an_unwritable_output_is_one_line_naming_it(tmp_path, index, target):
    if target == "/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    out = {"/dev/full": Path("/dev/full"), "folder": tmp_path, "read-only": tmp_path / "ro" / "out.jsonl"}[
        target
    ]
    if target == "read-only":
        out.parent.mkdir()
        out.parent.chmod(0o500)
        if os.access(out.parent, os.W_OK):
            pytest.skip("running as root: a read-only folder is writable")
    result = qa_run(EXAMPLES / "questions.json", "--index", index, "-o", out)
    assert result.returncode == 2 and str(out) in one_line_error(result)


# -- rule and formula files a clumsy maintainer writes: one file:line error, never a traceback or a hang ------


def _alias_bomb(levels: int = 9) -> str:
    lines = ["x0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def _formula(expression: str) -> str:
    return (
        f"  - name: 敌意比率\n    aliases: [敌意比率]\n    expression: '{expression}'\n"
        f"    output: ratio\n    precision: 2\n"
    )


@pytest.mark.parametrize(
    "folder, name, edit, expected",
    [
        (
            "rules",
            "question_types.yaml",
            lambda text: text.replace("rules:\n", "rules:\n  - !!python/name:os.system x\n", 1),
            "could not determine a constructor",
        ),
        ("rules", "question_types.yaml", lambda text: _alias_bomb(), "alias bomb"),
        ("rules", "question_types.yaml", lambda text: text + "\nsurprise: 1\n", "'surprise' was unexpected"),
        (
            "formulas",
            "zh.yaml",
            lambda text: text.replace("formulas:\n", "formulas:\n" + _formula("0x10 * 流动资产"), 1),
            "plain decimals",
        ),
        (
            "formulas",
            "zh.yaml",
            lambda text: text.replace("formulas:\n", "formulas:\n" + _formula("1e999999999"), 1),
            "plain decimals",
        ),
        (
            "formulas",
            "zh.yaml",
            lambda text: text.replace("formulas:\n", "formulas:\n" + _formula("+".join(["1"] * 3000)), 1),
            "is too long",
        ),
        (
            "formulas",
            "zh.yaml",
            lambda text: text.replace("formulas:\n", "formulas:\n" + _formula("-" * 400 + "1"), 1),
            "nested too deeply",
        ),
    ],
    ids=[
        "python-tag",
        "alias-bomb",
        "unknown-key",
        "hex-constant",
        "huge-constant",
        "3000-term-sum",
        "400-minuses",
    ],
)
def test_a_hostile_rule_or_formula_file_is_one_file_line_error(tmp_path, index, folder, name, edit, expected):
    copy = shutil.copytree(
        data_dir("rules") if folder == "rules" else data_dir("formulas"), tmp_path / folder
    )
    path = copy / name
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    env = {**ENV, "FINQA_RULES_DIR" if folder == "rules" else "FINQA_FORMULAS_DIR": str(copy)}
    started = time.monotonic()
    check = subprocess.run(
        [sys.executable, "-m", "qa.rules", "check"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 1 and "Traceback" not in check.stderr, check.stderr
    assert f"{path}:" in check.stdout and expected in check.stdout, check.stdout
    result = qa_run(EXAMPLES / "questions.json", "--index", index, env=env)
    assert result.returncode == 2 and f"{path}:" in one_line_error(result)
    if name == "question_types.yaml" and "surprise" in expected:
        assert (
            f"{path}:{path.read_text(encoding='utf-8').count(chr(10))}:" in check.stdout
        )  # the key's own line
    assert time.monotonic() - started < 120


@pytest.mark.parametrize(
    "pattern, text",
    [
        (r"(.*a){20}x", "a" * 60),
        (r"\d*\d*\d*\d*\d*\d*\d*\d*!", "1" * 200),
        (r"^(?:a|a?)+$", "a" * 40 + "!"),
        (r"^(\w+\s?)*$", "a" * 60 + "!"),
    ],
    ids=["bounded-outer-repeat", "adjacent-repeats", "optional-alternative", "readme-example"],
)
def test_a_catastrophic_pattern_in_any_rule_file_costs_its_question_the_budget_not_the_run(
    tmp_path, index, pattern, text
):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    statistics = rules / "statistics.yaml"
    quoted = "'(?P<place>" + pattern.replace("'", "''") + ")'"
    statistics.write_text(
        statistics.read_text(encoding="utf-8").replace("  patterns:\n", f"  patterns:\n    - {quoted}\n", 1),
        encoding="utf-8",
    )
    questions = tmp_path / "q.json"
    questions.write_text(
        json.dumps(
            [
                {"id": "hostile", "question": text},
                {"id": "plain", "question": "2022年示例科技的电子信箱是什么?"},
            ]
        )
    )
    started = time.monotonic()
    result = qa_run(
        questions, "--index", index, "--question-seconds", "2", env={**ENV, "FINQA_RULES_DIR": str(rules)}
    )
    answers = {a["id"]: a for a in map(json.loads, result.stdout.splitlines())}
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    assert answers["plain"]["value"] == "ir@example-tech.cn"
    assert result.returncode == 1 and "--question-seconds" in answers["hostile"]["error"]
    assert time.monotonic() - started < 90
