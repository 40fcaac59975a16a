"""Language vocabulary lives in rules/*.yaml, not in Python string literals."""

import ast
import io
import re
import shutil
import tokenize
from pathlib import Path

import pytest

from core.errors import InputError
from core.rulefile import PROJECT_ROOT, data_dir
from core.vocabulary import SCHEMAS, load
from qa.rules import check

PACKAGES = ("core", "parser", "search", "ingestion", "qa", "finqa")
# CJK ideographs, kana, CJK symbols and punctuation, half- and full-width forms. Written as \u escapes,
# which the scan below does not flag: a character class is structure, not vocabulary.
CJK = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def cjk_literal_lines(path: Path) -> list[int]:
    """Lines of string literals (f-string parts too) outside docstrings that hold a CJK or kana character."""
    source = path.read_text(encoding="utf-8")
    docstrings = _docstring_lines(ast.parse(source))
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    found = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in kinds and token.start[0] not in docstrings:
            for offset, text in enumerate(token.string.splitlines()):
                if CJK.search(text):
                    found.add(token.start[0] + offset)
    return sorted(found)


def _modules() -> dict[str, list[int]]:
    return {
        str(path.relative_to(PROJECT_ROOT)): cjk_literal_lines(path)
        for package in PACKAGES
        for path in sorted((PROJECT_ROOT / package).rglob("*.py"))
    }


def test_no_module_holds_cjk_string_literals():
    offenders = {name: lines for name, lines in _modules().items() if lines}
    assert offenders == {}, "move these words to rules/*.yaml (core/vocabulary.py): " + repr(offenders)


def test_the_scan_finds_a_literal_but_not_a_docstring_comment_or_escape(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        '"""年报"""\n# 年报\nA = "\\u5e74"\nB = f"{A}年"\nC = ("x",\n     "上年")\n', encoding="utf-8"
    )
    assert cjk_literal_lines(path) == [4, 6]


def test_every_vocabulary_file_is_shipped_and_checked():
    for name in SCHEMAS:
        assert load(data_dir("rules") / f"{name}.yaml")


def test_a_bad_pattern_in_a_vocabulary_file_is_reported_with_its_line(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), rules)
    text = (rules / "numbers.yaml").read_text(encoding="utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("prior_period:"))
    (rules / "numbers.yaml").write_text(
        text.replace("prior_period: '上期", "prior_period: '(上期"), encoding="utf-8"
    )
    with pytest.raises(InputError, match=rf"numbers.yaml:{line}: prior_period: .* is not a 'regex'"):
        load(rules / "numbers.yaml")
    problems, _ = check(rules)
    assert any(p.startswith(f"{rules / 'numbers.yaml'}:{line}:") for p in problems)
