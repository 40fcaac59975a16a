"""Where benchmarks find the shared development data, and how they skip without it."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

from parser.rulefile import PROJECT_ROOT

SHARED_DATA = Path(os.environ.get("FINQA_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data"))


def shared_data(*parts: str) -> Path | None:
    """The path under ../shared/data, or None (after printing why) when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        print(f"skipped: {path} is absent (development data lives in ../shared/data)")
        return None
    return path


@contextlib.contextmanager
def work_dir(keep: Path | None, prefix: str) -> Iterator[Path]:
    """`keep` (created, left in place for inspection and re-use) or a temporary directory removed afterwards."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)
