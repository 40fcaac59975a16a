"""Where `qa.run` writes its answers: stdout, or the file OUT, locked while written and never emptied by accident.

A non-empty OUT holds answers someone waited for, so it is refused unless the run says what to do with them:
`resume` keeps them and answers only the ids not in it yet (appending), `overwrite` starts it again. Two runs
writing one OUT would interleave their lines, so OUT is locked (flock) for the whole run and a second run is
refused at once. A write that fails (a full disk, a read-only file system, OUT a folder) is an InputError naming
the path, so the run ends with exit code 2 and one line, the answers before it kept.

>>> with AnswerFile(Path("out.jsonl"), resume=True) as out:  # doctest: +SKIP
...     todo = [q for q in questions if q.id not in out.answered]
...     out.write_line(json.dumps(answer))
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path
from typing import IO

from core.errors import InputError
from qa.io.question_stream import clean_text
from qa.records import Answer


def answer_line(answer: Answer, steps: tuple[str, ...] = ()) -> str:
    """An answer as qa.run writes it, one JSON line (without its end), cleaned of what breaks a line
    (question_stream.clean_text); `steps`: its analysis steps, given with --trace."""
    return clean_text(json.dumps(answer.to_json(steps), ensure_ascii=False))


class AnswerFile:
    """stdout (path None) or OUT, opened for the run; `answered` holds the ids OUT had when resumed."""

    def __init__(self, path: Path | None, resume: bool = False, overwrite: bool = False):
        if resume and overwrite:
            raise InputError("--resume and --overwrite exclude each other")
        self.path, self.resume, self.overwrite = path, resume, overwrite
        self.answered: set[str] = set()
        self._stream: IO[str] = sys.stdout

    def __enter__(self) -> AnswerFile:
        if self.path is not None:
            self._stream = self._open(self.path)
        return self

    def __exit__(self, failing, *_) -> None:
        try:
            if self.path is None:
                self._stream.flush()
            else:
                self._stream.close()  # releases the lock; the file is closed even when its last flush fails
        except (OSError, ValueError) as exc:
            if failing is None:  # else the error that ends the run is already on its way
                raise self._failed(exc) from None

    def write_line(self, line: str) -> None:
        """Write one answer line and flush it: a later failure never loses the answers before it."""
        try:
            self._stream.write(line + "\n")
            self._stream.flush()
        except (OSError, ValueError) as exc:  # ValueError: a stream closed under us
            raise self._failed(exc) from None

    def _open(self, path: Path) -> IO[str]:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)  # the mode follows the umask
        except OSError as exc:
            raise self._failed(exc, "cannot open the output") from None
        stream = os.fdopen(fd, "r+", encoding="utf-8", errors="surrogateescape", newline="\n")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            stream.close()
            raise InputError("another qa.run is writing this output now", str(path)) from None
        try:
            self._prepare(stream, path)
        except BaseException:
            stream.close()
            raise
        return stream

    def _prepare(self, stream: IO[str], path: Path) -> None:
        regular = path.is_file()
        if not regular or os.fstat(stream.fileno()).st_size == 0:
            return
        if self.overwrite:
            stream.truncate(0)
        elif self.resume:
            self.answered = _answered_ids(stream, path)
            stream.seek(0, os.SEEK_END)
        else:
            raise InputError(
                "the output already holds answers: pass --resume to answer only the questions it "
                "lacks (appending), or --overwrite to start it again",
                str(path),
            )

    def _failed(self, exc: BaseException, what: str = "cannot write the answers") -> InputError:
        reason = getattr(exc, "strerror", None) or str(exc)
        if self.path is None:  # what is left in stdout's buffer would fail again, in a traceback, at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return InputError(f"{what}: {reason}", str(self.path) if self.path is not None else "stdout")


def _answered_ids(stream: IO[str], path: Path) -> set[str]:
    """The ids of the complete answer lines in OUT; a last line cut short (a run killed while writing it) is
    dropped, so that its question is answered again."""
    stream.seek(0)
    answered: set[str] = set()
    kept = 0
    for number, line in enumerate(iter(stream.readline, ""), 1):
        if not line.endswith("\n"):
            break
        try:
            answered.add(str(json.loads(line)["id"]))
        except (ValueError, KeyError, TypeError):
            raise InputError(
                f"line {number} is not an answer line, so it cannot be resumed (--overwrite starts it again)",
                str(path),
            ) from None
        kept = stream.tell()
    stream.truncate(kept)
    return answered
