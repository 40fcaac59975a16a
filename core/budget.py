"""A wall-clock budget for a block of Python code (a file's parse, a question's answer).

>>> with time_limit(60, FileTimeout):
...     parse(path)

It is a SIGALRM timer, so it interrupts Python code only: a native call (one
OCR page, one regex match in `re`) finishes first. Off the main thread, or
with 0 seconds, there is no limit. The error should be a BaseException that
is not an Exception (as KeyboardInterrupt is): the parsers keep going past a
failing table or page with `except Exception`, and must not swallow it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def time_limit(seconds: float, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise `error()` in the block once `seconds` have passed."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    expired = []

    def expire(*_):
        expired.append(True)
        raise error()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if (
        expired
    ):  # raised where it was lost (in a destructor, which Python only reports): the budget still holds
        raise error()
