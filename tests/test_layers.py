"""The layers import one way: core <- parser, search <- ingestion; core, search <- qa;
core, parser, search, qa <- serve; everything <- eval.

Checked twice: statically (every import statement, also those inside functions)
and by importing each layer's modules alone in a fresh interpreter. Inside qa, the route packages
(understand, data, text, statutes, llm) import none of each other: what they share sits at the top of qa
(records, answers, formulas, fewshot), and qa/engine.py and qa/io/ put them together.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {
    "core": set(),
    "parser": {"core"},
    "search": {"core"},
    "ingestion": {"core", "parser", "search"},
    "qa": {"core", "search"},
    "serve": {"core", "parser", "search", "qa"},
    "eval": {"core", "parser", "search", "ingestion", "qa", "serve"},
}
# Command lines kept where the README has always called them; they only hand over to a higher layer.
ENTRY_POINTS = {
    "parser/ingest.py": {"ingestion"},  # python -m parser.ingest
    "qa/run.py": {"ingestion"},  # python -m qa.run --docs ingests a corpus first
}


QA_ROUTES = {"understand", "data", "text", "statutes", "llm"}
QA_SHARED = {"records", "answers", "formulas", "fewshot", "topics"}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _imported_packages(path: Path) -> set[str]:
    return {name.split(".")[0] for name in _imported_modules(path)} & set(ALLOWED)


def _modules(layer: str) -> list[Path]:
    return sorted(p for p in (ROOT / layer).rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_no_module_imports_a_higher_layer(layer):
    wrong = []
    for path in _modules(layer):
        relative = path.relative_to(ROOT).as_posix()
        allowed = ALLOWED[layer] | {layer} | ENTRY_POINTS.get(relative, set())
        wrong += [f"{relative} imports {name}" for name in sorted(_imported_packages(path) - allowed)]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("layer", ["core", "parser", "search", "ingestion", "qa"])
def test_importing_a_layer_alone_loads_no_higher_layer(layer):
    modules = [
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in _modules(layer)
        if p.relative_to(ROOT).as_posix() not in ENTRY_POINTS and p.name != "__main__.py"
    ]
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(ALLOWED)!r})))"
    )
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    )
    assert set(loaded) <= ALLOWED[layer] | {layer}, (
        f"importing {layer} loaded {sorted(set(loaded) - ALLOWED[layer] - {layer})}"
    )


@pytest.mark.parametrize("route", sorted(QA_ROUTES))
def test_a_qa_route_imports_no_other_route(route):
    wrong = []
    for path in _modules(f"qa/{route}"):
        for name in sorted(_imported_modules(path)):
            parts = name.split(".")
            if parts[0] == "qa" and len(parts) > 1 and parts[1] not in QA_SHARED | {route}:
                wrong.append(f"{path.relative_to(ROOT).as_posix()} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_a_layer_that_imports_a_higher_one_is_caught(tmp_path):
    wrong = tmp_path / "module.py"
    wrong.write_text("def f():\n    from qa.engine import Engine\n    return Engine\n", encoding="utf-8")
    assert _imported_packages(wrong) == {"qa"}


def import_graph(package: str) -> dict[str, list[str]]:
    """Each module under `package` (a folder of the project) and the project modules it imports."""
    graph = {}
    for path in _modules(package):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        graph[module] = sorted(name for name in _imported_modules(path) if name.split(".")[0] in ALLOWED)
    return graph


if __name__ == "__main__":  # python tests/test_layers.py qa: the import graph of a package, one module a line
    for module, imports in import_graph(sys.argv[1] if len(sys.argv) > 1 else "qa").items():
        print(f"{module}: {', '.join(imports) or '-'}")
