"""Errors users can act on: each prints as one line naming the file and position.

Three kinds, so a caller can tell whose problem it is:

    InputError   bad input from a user: a question file, a document, a server address, an option
    RuleError    a rule or formula file a maintainer edits (always with file:line)
    StoreError   an index or store that is missing, damaged or made by another version

RuleError and StoreError are InputErrors too (the command lines exit 2 for all three), but the engine treats
them apart: an InputError raised for one question fails that question, while a broken rule file or store stops
the run. Any other exception is a bug: it fails the one question it hit and says so (qa/engine.py).
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input from a user: a file, a question, a server address.

    `str(error)` is the one line to print, e.g.
    ``questions.json:3: a question needs an 'id'``.
    """

    def __init__(self, message: str, path: str = "", line: int | None = None):
        self.path = path
        self.line = line
        where = f"{path}:{line}: " if path and line is not None else (f"{path}: " if path else "")
        super().__init__(f"{where}{message}")


class RuleError(InputError):
    """A rule or formula file that cannot be used, e.g.
    ``rules/fields.yaml:12: synonym '负债合计' is also listed under 资产总计``."""


class StoreError(InputError):
    """An index or store that is missing, damaged or made by another version, e.g.
    ``.index/facts.sqlite: database disk image is malformed; ingest again``."""
