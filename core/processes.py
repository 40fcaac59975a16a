"""Worker processes that do not outlive the process that started them."""

from __future__ import annotations

import os
import sys


def exit_with_parent(parent: int) -> None:
    """Have Linux end this worker when its parent process dies (killed -9, it cannot stop its pool); call it first
    thing in the worker, with the parent's pid."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
