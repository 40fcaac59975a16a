"""Questions read one at a time, cleaned, so a big or hostile question file cannot exhaust memory or crash a run.

- JSON lines are streamed: memory is bounded by one line, not the file, and
  the first answer comes at once. Ids are not checked for uniqueness there
  (that would hold every id); the other forms are read whole by
  qa.io.questions.load_questions, which does check.
- Nesting deeper than the JSON parser's recursion limit (about 1,000 levels)
  is a one-line InputError naming the file and line, not a RecursionError.
- Texts are cleaned before analysis (`clean_text`): lone surrogates become
  U+FFFD, zero-width and other invisible format characters are dropped,
  control characters become spaces.

>>> for question in iter_questions(Path("questions.jsonl")): ...
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import InputError
from qa.io.questions import JsonFile, generic_question, load_questions
from qa.records import Question

_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs: what is left is alone
# zero-width space/joiners, bidi marks and embeddings, word joiner and invisible operators, BOM, soft hyphen
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def clean_text(text: str) -> str:
    """`text` without what breaks matching or output: lone surrogates, invisible characters, control characters."""
    return _CONTROL.sub(" ", _INVISIBLE.sub("", _SURROGATE.sub("\ufffd", text)))


def clean_question(question: Question) -> Question:
    """`question` with its id and text cleaned (`clean_text`)."""
    return dataclasses.replace(question, id=clean_text(question.id), text=clean_text(question.text))


def iter_questions(path: Path) -> Iterator[Question]:
    """The questions of `path` in file order, cleaned; JSON lines streamed. InputError on anything unusable."""
    path = Path(path)
    try:
        lines = _is_json_lines(path)
        questions = _stream_lines(path) if lines else iter(_load_whole(path))
        for question in questions:
            yield clean_question(question)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path)) from None


def _load_whole(path: Path) -> list[Question]:
    try:
        return load_questions(path)
    except RecursionError:
        raise InputError("JSON nested too deeply (over about 1,000 levels)", str(path)) from None


def _is_json_lines(path: Path) -> bool:
    """True when the first non-blank line is a whole JSON object and more lines follow it."""
    with path.open(encoding="utf-8-sig") as fh:
        for line in fh:
            if line.strip():
                break
        else:
            return False
        try:
            first = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            return False
        return isinstance(first, dict) and any(rest.strip() for rest in fh)


class _SameLine:
    """The `lines` of a JsonFile that holds one entry of a streamed file: every index is this line."""

    def __init__(self, number: int):
        self.number = number

    def __getitem__(self, _index: int) -> int:
        return self.number

    def __bool__(self) -> bool:
        return True


def _stream_lines(path: Path) -> Iterator[Question]:
    index = 0
    with path.open(encoding="utf-8-sig") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            entry = _parse_line(path, number, line)
            yield generic_question(JsonFile(path, None, _SameLine(number)), index, entry)
            index += 1


def _parse_line(path: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON line at column {exc.colno}: {exc.msg}", str(path), number) from None
    except RecursionError:
        raise InputError("JSON nested too deeply (over about 1,000 levels)", str(path), number) from None
