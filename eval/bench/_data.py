"""Where benchmarks find the shared development data, and how they skip without it."""
from __future__ import annotations

import os
from pathlib import Path

from parser.rulefile import PROJECT_ROOT

SHARED_DATA = Path(os.environ.get("FINQA_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data"))


def shared_data(*parts: str) -> Path | None:
    """The path under ../shared/data, or None (after printing why) when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        print(f"skipped: {path} is absent (development data lives in ../shared/data)")
        return None
    return path
