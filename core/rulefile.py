"""Load maintainer-edited YAML (rules/*.yaml, formulas/*.yaml) with line numbers.

Every value keeps the line it was written on, so schema errors and later
checks (a bad regex, a duplicate id) can point to `file:line`.

>>> rules = RuleFile.load(Path("rules/headings.yaml"), schema=HEADINGS_SCHEMA)
>>> rules.data["levels"][0]["pattern"]
>>> rules.line("levels", 0, "pattern")      # -> 7
>>> raise rules.error("bad regex", "levels", 0, "pattern")   # InputError "rules/headings.yaml:7: bad regex"
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from core.cache import user_cache
from core.errors import InputError, RuleError

# libyaml's parser when PyYAML was built with it (several times faster: rule files load at every start).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALARS = yaml.SafeLoader("")  # one constructor for every scalar, not one per value
_SCALARS_LOCK = threading.Lock()
_STR = "tag:yaml.org,2002:str"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Budgets for a hostile or broken file: the largest bundled rule file is 31 KB and ~1,500 values. An alias
# repeats a whole subtree, so nine levels of nine aliases in 11 KB expand to 387 million values: counted as
# expanded, they stop at the budget in a fraction of a second instead of taking gigabytes.
MAX_FILE_BYTES = 2_000_000
MAX_VALUES = 200_000


def data_dir(name: str, variable: str = "") -> Path:
    """The folder `name` (rules, formulas, examples): $variable when set, else the copy the `finqa` package ships.

    The one place data folders are found. In a checkout (and so in an editable install) finqa/rules,
    finqa/formulas and finqa/examples are symlinks to the top-level folders; `pip install .` copies
    them into the wheel as package data. So a maintainer edits rules/*.yaml in place, and an
    installed copy finds its own data from any working folder.
    """
    chosen = os.environ.get(variable) if variable else ""
    if chosen:
        return Path(chosen)
    # a real folder: finqa is installed as files, never zipped. Resolved, so that errors in a
    # checkout name rules/x.yaml, the file a maintainer edits, not the symlink.
    return Path(str(importlib.resources.files("finqa").joinpath(name))).resolve()


def _known_valid(text: str, schema: dict) -> Path:
    """Where the verdict that this text meets this schema is kept once given (as Python keeps compiled modules):
    validating every rule file was about a third of opening an engine, paid again by each worker process, while the
    files rarely change. The key is the text, the schema and the Python version (which patterns compile), so an
    edited file, or one read against another schema, is validated again; only a valid verdict is kept."""
    key = hashlib.sha256(json.dumps([schema, sys.version_info[:2]], sort_keys=True).encode())
    key.update(text.encode())
    return user_cache() / "valid-rules" / key.hexdigest()


def _remember_valid(text: str, schema: dict) -> None:
    marker = _known_valid(text, schema)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:  # a read-only or full cache: the next run validates again, nothing else changes
        pass


@dataclass
class RuleFile:
    path: Path
    data: Any
    lines: dict[tuple, int]  # path of keys/indices -> 1-based line

    @classmethod
    def load(cls, path: Path, schema: dict | None = None) -> RuleFile:
        """Parse and (optionally) validate against a JSON schema; InputError on any problem. A text once found
        valid against the schema is not validated again (_known_valid)."""
        path = Path(path)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise RuleError(
                    f"larger than {MAX_FILE_BYTES // 1_000_000} MB, far more than a rule file", str(path)
                )
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RuleError(f"cannot read: {exc}", str(path)) from None
        try:
            node = yaml.compose(text, Loader=_LOADER)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark else None
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise RuleError(f"invalid YAML: {problem}", str(path), line) from None
        lines: dict[tuple, int] = {}
        try:
            data = _construct(node, (), lines, [MAX_VALUES]) if node is not None else None
        except _BadValue as exc:
            raise RuleError(str(exc), str(path), exc.line) from None
        except yaml.YAMLError as exc:  # a tag no safe loader builds (!!python/name:...)
            mark = getattr(exc, "problem_mark", None)
            raise RuleError(
                f"invalid YAML: {getattr(exc, 'problem', None) or exc}",
                str(path),
                mark.line + 1 if mark else None,
            ) from None
        except RecursionError:
            raise RuleError("invalid YAML: nested too deeply", str(path)) from None
        rule_file = cls(path, data, lines)
        if schema is not None and not _known_valid(text, schema).exists():
            # The format checker compiles every "format": "regex" value, so a bad pattern is a file:line error too.
            validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
            errors = sorted(validator.iter_errors(data), key=lambda e: rule_file.line(*e.absolute_path))
            if errors:
                err = errors[0]
                at = list(err.absolute_path)
                if err.validator == "additionalProperties" and isinstance(err.instance, dict):
                    known = err.schema.get("properties", {})
                    at += [
                        next(key for key in err.instance if key not in known)
                    ]  # the line of the key itself
                where = "/".join(str(p) for p in err.absolute_path)
                message = (
                    err.message if len(err.message) <= 300 else f"{err.message[:120]} … {err.message[-80:]}"
                )
                raise rule_file.error(f"{where + ': ' if where else ''}{message}", *at)
            _remember_valid(text, schema)
        return rule_file

    def strings(self) -> Iterator[tuple[tuple, str]]:
        """(key path, text) of every string in the file, keys included (a mapping may be keyed by patterns)."""
        for at in self.lines:
            value = self.value(*at)
            if at and isinstance(at[-1], str):
                yield at, at[-1]
            if isinstance(value, str):
                yield at, value

    def value(self, *keys) -> Any:
        """The value at this key path."""
        value = self.data
        for key in keys:
            value = value[key]
        return value

    def line(self, *keys) -> int:
        """Line of the value at this key path, or of its nearest written ancestor."""
        keys = tuple(keys)
        while keys and keys not in self.lines:
            keys = keys[:-1]
        return self.lines.get(keys, 1)

    def error(self, message: str, *keys) -> InputError:
        return RuleError(message, str(self.path), self.line(*keys))


class _BadValue(Exception):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def _construct(node: yaml.Node, at: tuple, lines: dict[tuple, int], budget: list[int]) -> Any:
    """The node as Python values, each value's line in `lines`; `budget` counts down the values left to build."""
    lines[at] = node.start_mark.line + 1
    budget[0] -= 1
    if budget[0] < 0:
        raise _BadValue(
            f"more than {MAX_VALUES:,} values once its aliases are expanded (an alias bomb?)",
            node.start_mark.line + 1,
        )
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = _scalar(key_node)
            try:
                hash(key)
            except TypeError:
                raise _BadValue(
                    "a key must be a plain value, not a list or mapping", key_node.start_mark.line + 1
                ) from None
            if key in out:
                raise _BadValue(f"duplicate key {key!r}", key_node.start_mark.line + 1)
            out[key] = _construct(value_node, at + (key,), lines, budget)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(child, at + (i,), lines, budget) for i, child in enumerate(node.value)]
    return _scalar(node)


def _scalar(node: yaml.Node) -> Any:
    if node.tag == _STR:  # most values of a rule file: the text as written, no constructor needed
        return node.value
    with _SCALARS_LOCK:
        try:
            return _SCALARS.construct_object(node, deep=True)
        finally:
            _SCALARS.constructed_objects.clear()
