"""Rule files are read from the active rule book, per book, never at import time."""

import pickle
import shutil
import subprocess
import sys

import pytest

from core.errors import InputError
from core.rulebook import RuleBook, cached_per_book, pattern_per_book, per_book, using
from core.rulefile import PROJECT_ROOT, data_dir
from core.vocabulary import vocabulary

# Imports every module of the shipped packages with RuleFile.load counting, in a fresh interpreter.
IMPORT_ALL = """
import importlib, pkgutil
from core import rulefile
read = []
original = rulefile.RuleFile.load.__func__
rulefile.RuleFile.load = classmethod(lambda cls, path, schema=None: read.append(str(path)) or original(cls, path, schema))
for package in ["core", "parser", "search", "ingestion", "qa", "serve", "eval", "finqa"]:
    for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
print(read)
"""


def copied_rules(tmp_path, name: str, old: str, new: str):
    rules = shutil.copytree(data_dir("rules"), tmp_path / "rules")
    path = rules / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return RuleBook.at(rules)


def test_importing_every_module_reads_no_rule_file():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_constant_from_rule_files_follows_the_active_book(tmp_path):
    book = copied_rules(tmp_path, "numbers.yaml", "dashes: [", "dashes: ['~', ")
    dashes = per_book(lambda: tuple(vocabulary("numbers")["dashes"]))
    first = pattern_per_book(lambda: __import__("re").compile(f"[{''.join(dashes.value())}]"))
    assert "~" not in dashes and not first.search("~")
    with using(book):
        assert dashes.value()[0] == "~" and first.search("~")
    assert "~" not in dashes.value()  # the default book again, its value kept


def test_a_cached_function_keeps_its_results_per_book(tmp_path):
    book = copied_rules(tmp_path, "numbers.yaml", "dashes: [", "dashes: ['~', ")

    @cached_per_book()
    def first_dash() -> str:
        return vocabulary("numbers")["dashes"][0]

    assert first_dash() != "~"
    with using(book):
        assert first_dash() == "~"
    assert first_dash() != "~"


def test_one_book_per_pair_of_folders_also_after_pickling(tmp_path):
    book = RuleBook.at(data_dir("rules"), data_dir("formulas"))
    assert book is RuleBook.at(data_dir("rules")) is RuleBook.default()
    assert pickle.loads(pickle.dumps(book)) is book  # a worker process reads the same folders
    with pytest.raises(InputError, match="rules folder not found"):
        RuleBook.at(tmp_path / "nope")
    with pytest.raises(InputError, match="formulas folder not found"):
        RuleBook.at(formulas_dir=tmp_path / "nope")
