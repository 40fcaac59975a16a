"""finqa's folder in the user's cache: what a run can make again, kept so the next run need not.

>>> user_cache()  # $XDG_CACHE_HOME/finqa, else ~/.cache/finqa  # doctest: +SKIP
PosixPath('/home/me/.cache/finqa')
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache() -> Path:
    """$XDG_CACHE_HOME/finqa, else ~/.cache/finqa (not created here)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "finqa"
