"""The examples in the README and in the docstrings of functions and classes run, and print what they show.

A module's own docstring is an overview: its `>>>` lines sketch use over corpora that are not
shipped (a FinGLM reports list, an Elasticsearch server), so they are not run. Every function or
class example is, over the bundled examples when it needs a corpus; one that cannot run alone
says so with `# doctest: +SKIP`.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

from core.rulefile import PROJECT_ROOT

PACKAGES = ("finqa", "core", "parser", "search", "ingestion", "qa", "eval")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def module_names() -> list[str]:
    names = []
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names += [package, *(m.name for m in pkgutil.walk_packages(path, f"{package}."))]
    return [name for name in names if not name.endswith("__main__")]  # running it would run the command


def examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder()
    found = []
    for name in module_names():
        module = importlib.import_module(name)
        found += [test for test in finder.find(module) if test.examples and test.name != module.__name__]
    return found


def run(test: doctest.DocTest) -> str:
    report: list[str] = []
    doctest.DocTestRunner(optionflags=FLAGS).run(test, out=report.append)
    return "".join(report)


def test_the_readme_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # as a user would, outside the checkout
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(PROJECT_ROOT / "README.md"), 0)
    assert len(test.examples) >= 5
    assert run(test) == ""


EXAMPLES = examples()


def test_the_docstrings_have_examples_to_run():
    assert len(EXAMPLES) >= 30


@pytest.mark.parametrize("test", EXAMPLES, ids=[t.name for t in EXAMPLES])
def test_a_docstring_example_runs(test):
    assert run(test) == ""
