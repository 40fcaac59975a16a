"""Read a question file into `Question` records, whatever form the data set uses.

Accepted forms (UTF-8, an optional BOM):

- a JSON list, or JSON lines, of ``{"id", "question"}`` with optional
  ``"source"`` (document ids or id prefixes; a string or a list) and
  ``"category"``;
- the AI CUP form ``{"questions": [{"qid", "query", "source", "category"}]}``:
  source ids become ``f"{category}/{pid}"``, the corpus-relative document ids;
- the NTCIR form ``{id: {"question", "doc_id"}}``: the doc_id becomes the
  one source prefix;
- multiple choice: ``"choices": {"a": "...", "b": "..."}`` on a generic entry,
  or the lawqa_jp form ``{"samples": [{"問題文", "選択肢", ...}]}`` whose 選択肢
  is newline-separated "a ..." lines (the id is ``ファイル名`` or the position).

>>> [q.id for q in load_questions(Path("examples/questions.json"))][:2]
['lookup-1', 'lookup-2']

Any problem is an `InputError` naming the file and where: the line and column
of a JSON syntax error, the line of a bad JSON line, the entry (number and id)
that lacks a question text. `read_json` is the reader underneath, shared with
`eval.score` for gold and prediction files.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary
from qa.records import Question

_QUESTIONS = per_book(lambda: vocabulary("questions"))  # rules/questions.yaml
_CHOICE_LINE = pattern_per_book(lambda: re.compile(_QUESTIONS["choice_line"]))
_LAWQA = per_book(lambda: _QUESTIONS["lawqa_fields"])


@dataclass(frozen=True)
class JsonFile:
    """A parsed JSON or JSON-lines file.

    For JSON lines, `data` is the list of values and `lines[i]` the 1-based line
    of `data[i]`; for plain JSON, `lines` is empty.
    """

    path: Path
    data: Any
    lines: tuple[int, ...] = ()

    @property
    def is_lines(self) -> bool:
        return bool(self.lines)

    def line_of(self, index: int) -> int | None:
        """The line of entry `index` (JSON lines only), for error messages."""
        return self.lines[index] if self.lines else None

    def error(self, message: str, index: int | None = None) -> InputError:
        """An InputError at entry `index` (its line for JSON lines)."""
        line = self.line_of(index) if index is not None else None
        return InputError(message, str(self.path), line)


def read_json(path: Path) -> JsonFile:
    """Parse `path` as one JSON value or as JSON lines (blank lines skipped).

    A file whose first value is complete but followed by more text is read as
    JSON lines, so an error in it is reported at its own line; any other syntax
    error is reported at the line and column where the parser stopped.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", str(path)) from None
    if not text.strip():
        raise InputError("empty file", str(path))
    try:
        return JsonFile(path, json.loads(text))
    except json.JSONDecodeError as exc:
        whole_error = exc
    first_line = next(line for line in text.splitlines() if line.strip())
    if whole_error.msg != "Extra data" and not _is_json(first_line):
        raise InputError(
            f"invalid JSON at column {whole_error.colno}: {whole_error.msg}", str(path), whole_error.lineno
        ) from None
    values, lines = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON line at column {exc.colno}: {exc.msg}", str(path), number
            ) from None
        lines.append(number)
    return JsonFile(path, values, tuple(lines))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def load_questions(path: Path) -> list[Question]:
    """All questions of `path`, in file order; InputError on anything unusable."""
    return parse_questions(read_json(path))


def parse_questions(source: JsonFile) -> list[Question]:
    """The questions of parsed JSON in any accepted form (a file, or a request body: `finqa serve`)."""
    data = source.data
    if source.is_lines or isinstance(data, list):
        entries = data
        questions = [generic_question(source, i, entry) for i, entry in enumerate(entries)]
    elif isinstance(data, dict) and "questions" in data:
        questions = _aicup(source)
    elif isinstance(data, dict) and isinstance(data.get("samples"), list):
        questions = [_lawqa(source, i, entry) for i, entry in enumerate(data["samples"])]
    elif isinstance(data, dict) and isinstance(data.get("question"), str):
        questions = [generic_question(source, 0, data)]  # JSON lines with a single line
    elif isinstance(data, dict) and all(isinstance(v, dict) for v in data.values()):
        questions = [_ntcir(source, key, entry) for key, entry in data.items()]
    else:
        raise source.error(
            'expected a list of {"id", "question"} objects, JSON lines, '
            'the AI CUP {"questions": [...]} form or the NTCIR {id: {"question", "doc_id"}} form'
        )
    _check_unique(source, questions)
    return questions


def generic_question(source: JsonFile, index: int, entry: Any) -> Question:
    where = f"entry {index + 1}"
    if not isinstance(entry, dict):
        raise source.error(
            f'{where}: expected an object with "id" and "question", got {type(entry).__name__}', index
        )
    qid = _id(source, index, entry.get("id", index + 1), where)
    where = f"entry {index + 1} (id {qid!r})"
    return Question(
        id=qid,
        text=_text(source, index, entry.get("question"), where, "question"),
        sources=_sources(source, index, entry.get("source"), where, prefix=""),
        category=_category(source, index, entry.get("category"), where),
        choices=_choices(source, index, entry.get("choices"), where),
    )


def _choices(source: JsonFile, index: int | None, value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """{"a": text, ...} or lawqa_jp's "a text\nb text" lines -> ((letter, text), ...)."""
    if value is None:
        return ()
    if isinstance(value, str):
        pairs = [_CHOICE_LINE.match(line.strip()) for line in value.splitlines() if line.strip()]
        if not pairs or not all(pairs):
            raise source.error(f'{where}: each choice line must start with its letter ("a ...")', index)
        value = {m.group(1): m.group(2) for m in pairs}
    if (
        not isinstance(value, dict)
        or not value
        or not all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items())
    ):
        raise source.error(f'{where}: "choices" must map letters to option texts', index)
    return tuple((unicodedata.normalize("NFKC", k).strip().lower(), v.strip()) for k, v in value.items())


def _lawqa(source: JsonFile, index: int, entry: Any) -> Question:
    where = f"sample {index + 1}"
    if not isinstance(entry, dict):
        raise source.error(f'{where}: expected an object with "{_LAWQA["text"]}" and "{_LAWQA["choices"]}"')
    qid = _id(source, None, entry.get(_LAWQA["id"], index + 1), where)
    where = f"sample {index + 1} (id {qid!r})"
    return Question(
        id=qid,
        text=_text(source, None, entry.get(_LAWQA["text"]), where, _LAWQA["text"]),
        choices=_choices(source, None, entry.get(_LAWQA["choices"]), where) or _missing(source, where),
    )


def _missing(source: JsonFile, where: str) -> tuple:
    raise source.error(f'{where}: no choices ("{_LAWQA["choices"]}")')


def _aicup(source: JsonFile) -> list[Question]:
    entries = source.data["questions"]
    if not isinstance(entries, list):
        raise source.error('"questions" must be a list')
    questions = []
    for index, entry in enumerate(entries):
        where = f"question {index + 1}"
        if not isinstance(entry, dict):
            raise source.error(f'{where}: expected an object with "qid" and "query"')
        if "qid" not in entry:
            raise source.error(f'{where}: no "qid"')
        qid = _id(source, None, entry["qid"], where)
        where = f"question {index + 1} (qid {qid!r})"
        category = _category(source, None, entry.get("category"), where)
        questions.append(
            Question(
                id=qid,
                text=_text(source, None, entry.get("query"), where, "query"),
                sources=_sources(
                    source, None, entry.get("source"), where, prefix=f"{category}/" if category else ""
                ),
                category=category,
            )
        )
    return questions


def _ntcir(source: JsonFile, key: str, entry: dict) -> Question:
    where = f"question {key!r}"
    doc_id = entry.get("doc_id")
    if doc_id is not None and not isinstance(doc_id, str):
        raise source.error(f'{where}: "doc_id" must be a string')
    return Question(
        id=key,
        text=_text(source, None, entry.get("question"), where, "question"),
        sources=(doc_id,) if doc_id else (),
    )


def _id(source: JsonFile, index: int | None, value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise source.error(f"{where}: the id must be a string or an integer, got {value!r}", index)
    text = str(value).strip()
    if not text:
        raise source.error(f"{where}: empty id", index)
    return text


def _text(source: JsonFile, index: int | None, value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise source.error(f'{where}: no question text ("{key}")', index)
    return value.strip()


def _sources(source: JsonFile, index: int | None, value: Any, where: str, prefix: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, (str, int)) and not isinstance(value, bool) else value
    if not isinstance(items, list) or any(
        isinstance(v, bool) or not isinstance(v, (str, int)) for v in items
    ):
        raise source.error(f'{where}: "source" must be a document id or a list of them', index)
    return tuple(f"{prefix}{v}".strip() for v in items if str(v).strip())


def _category(source: JsonFile, index: int | None, value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise source.error(f'{where}: "category" must be a string', index)
    return value.strip()


def _check_unique(source: JsonFile, questions: list[Question]) -> None:
    seen: dict[str, int] = {}
    for index, question in enumerate(questions):
        if question.id in seen:
            raise source.error(
                f"entries {seen[question.id] + 1} and {index + 1} share the id {question.id!r}",
                index if source.is_lines else None,
            )
        seen[question.id] = index
