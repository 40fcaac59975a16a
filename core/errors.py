"""Errors users can act on: each prints as one line naming the file and position."""
from __future__ import annotations

import errno


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


# A write the file system refuses, wherever it happens: the user frees space or picks another folder.
_DISK_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG)


def disk_error(exc: OSError) -> InputError | None:
    """A full disk, a quota, a read-only file system or a file too large, as one InputError naming the path;
    None for any other OSError (a bug, to be seen whole)."""
    if exc.errno not in _DISK_ERRORS:
        return None
    path = exc.filename or ""
    return InputError(f"cannot write: {exc.strerror}", str(path) if path else "")
