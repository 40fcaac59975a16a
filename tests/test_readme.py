"""Every shell command in the README runs, in order, on a fresh copy of the checkout.

The two set-up commands of its "Install" section (pip install, the test suite) are run by .ci/run;
every other ```bash block is run here as a newcomer would paste it, from the copy's root, with the
copy's code first on the path. The Elasticsearch block runs against FINQA_ES_URL (the server is
already up, so its `start` line is not run) with an index name of its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import openpyxl
import pytest

from core.rulefile import PROJECT_ROOT

SETUP_SECTION = "Install"  # its commands are .ci/run's
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)


def readme_blocks(text: str) -> list[tuple[str, str]]:
    """(section heading, shell block) for every ```bash block, in order."""
    blocks = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        heading = section.split("\n", 1)[0].strip()
        blocks += [(heading, block) for block in BLOCK.findall(section)]
    return blocks


def fresh_copy(dest: Path) -> Path:
    """The files git knows of (and new ones not ignored), as a clone would have them, symlinks kept."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = PROJECT_ROOT / name
        if not os.path.lexists(source):
            continue  # deleted in the working tree
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    return dest


def es_block(block: str, es_url: str, es_index: str) -> str:
    """The Elasticsearch block against the running test server, under an index name of its own."""
    lines = [line for line in block.splitlines() if "elasticsearch.sh start" not in line]
    ours = f"--es-url {es_url} --es-index {es_index}"
    return "\n".join(line.replace("--es-url http://127.0.0.1:9200", ours) for line in lines) + "\n"


def answers(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Path:
    if not (PROJECT_ROOT / ".git").exists():
        pytest.skip("not a git checkout: the README test copies the files git knows of")
    root = fresh_copy(tmp_path_factory.mktemp("clone"))
    es_url = os.environ.get("FINQA_ES_URL", "")
    es_index = f"readme-{uuid.uuid4().hex[:8]}"
    script = ["set -euo pipefail"]
    for heading, block in readme_blocks((root / "README.md").read_text(encoding="utf-8")):
        if heading == SETUP_SECTION:
            continue
        if "--backend elasticsearch" in block:
            if not es_url:
                continue
            block = es_block(block, es_url, es_index)
        script.append(block)
    env = {**os.environ, "PYTHONPATH": str(root), "XDG_CACHE_HOME": str(root / ".cache")}
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    if es_url:
        subprocess.run(
            [
                "python",
                "-m",
                "parser.ingest",
                "--delete",
                "--index",
                "my-index-es",
                "--backend",
                "elasticsearch",
                "--es-url",
                es_url,
                "--es-index",
                es_index,
            ],
            cwd=root,
            env=env,
            capture_output=True,
        )
    assert done.returncode == 0, f"a README command failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
    (root / "stdout.txt").write_text(done.stdout, encoding="utf-8")
    (root / "stderr.txt").write_text(done.stderr, encoding="utf-8")
    return root


def test_the_readme_has_the_sections_a_newcomer_needs():
    headings = [h for h, _ in readme_blocks((PROJECT_ROOT / "README.md").read_text(encoding="utf-8"))]
    for section in (SETUP_SECTION, "Try the examples", "Your own documents", "Add a formula, add a rule"):
        assert section in headings


def test_the_example_questions_are_all_answered(ran):
    questions = json.loads((ran / "examples" / "questions.json").read_text(encoding="utf-8"))
    assert [a["id"] for a in answers(ran / "answers.jsonl")] == [q["id"] for q in questions]


def test_own_documents_are_answered_from_their_tables_with_workbook_cells(ran):
    by_id = {a["id"]: a for a in answers(ran / "my-answers.jsonl")}
    assert by_id["q1"]["value"] == "2345678901.23"
    assert by_id["q2"]["value"] == "3.13"
    evidence = by_id["q1"]["evidence"][0]
    book = openpyxl.load_workbook(ran / "my-index" / evidence["workbook"], read_only=True)
    cell = book[evidence["sheet"]][evidence["cell_id"]].value
    assert cell == pytest.approx(2345678901.23)


def test_the_answer_shown_in_the_readme_has_the_fields_an_answer_has(ran):
    readme = (ran / "README.md").read_text(encoding="utf-8")
    shown = re.search(r'```json\n(\{"id": "q1".*?)\n```', readme, re.S).group(1)
    keys = re.findall(r'"(\w+)": ', shown)
    real = answers(ran / "my-answers.jsonl")[0]
    assert set(real) <= set(keys), f"the README's answer lacks {set(real) - set(keys)}"
    assert set(real["evidence"][0]) - {"scope", "period"} <= set(keys)


def test_the_added_formula_and_synonym_answer_their_questions(ran):
    printed = [
        json.loads(line)
        for line in (ran / "stdout.txt").read_text(encoding="utf-8").splitlines()
        if line.startswith('{"id": "f1"') or line.startswith('{"id": "r1"')
    ]
    by_id = {a["id"]: a for a in printed}
    assert by_id["f1"]["type"] == "formula" and by_id["f1"]["value"] == "52.09%"
    assert by_id["r1"]["route"] == "lookup:facts" and by_id["r1"]["value"] == "2345678901.23"
