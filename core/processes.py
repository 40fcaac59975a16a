"""Worker processes that do not outlive the process that started them, and leave Ctrl-C to it.

Ctrl-C in a terminal signals every process of its group: the workers of a pool as well as the command. The
command alone answers it (it stops its pool and says in one line what was kept); a worker that took it too
would print a traceback, or die holding its pool's queue and leave the command waiting for it forever.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

# What a command says when Ctrl-C comes while it starts (its imports take a second or two), before it wrote anything.
INTERRUPTED_AT_START = "interrupted as it started: nothing was written; run the same command again"
EXIT_INTERRUPTED = 130  # as a shell reports a job ended by SIGINT


def exit_interrupted_at_start() -> NoReturn:
    """Say INTERRUPTED_AT_START and exit 130 at once. Not by SystemExit: a Ctrl-C that came while an extension
    module initialised (it runs Python code through the C API) leaves CPython set to end the process by SIGINT
    when it exits normally, which a shell reports as -2, not 130; nothing is open yet to be closed."""
    print(INTERRUPTED_AT_START, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def become_worker(parent: int) -> None:
    """First thing in a worker process, with the parent's pid: ignore Ctrl-C, and end with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)


def exit_with_parent(parent: int) -> None:
    """Have Linux end this worker when its parent process dies (killed -9, it cannot stop its pool)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block ends, then raise it: for a batch written to the stores (stopped half way, a
    workbook's writer complains as it is thrown away) and for forking workers (one forked here keeps the
    holding handler until `become_worker` ignores Ctrl-C, instead of Python's, which raises). Off the main
    thread, or where Ctrl-C is ignored already, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and previous is not signal.SIG_IGN:
        raise KeyboardInterrupt
