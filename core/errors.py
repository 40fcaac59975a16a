"""Errors users can act on: each prints as one line naming the file and position."""
from __future__ import annotations


class InputError(Exception):
    """Bad input from a user: a file, a rule, a question, a server address.

    `str(error)` is the one line to print, e.g.
    ``rules/fields.yaml:12: synonym '负债合计' is also listed under 资产总计``.
    """

    def __init__(self, message: str, path: str = "", line: int | None = None):
        self.path = path
        self.line = line
        where = f"{path}:{line}: " if path and line is not None else (f"{path}: " if path else "")
        super().__init__(f"{where}{message}")
