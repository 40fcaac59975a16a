"""Pages read so far, counted across the parser processes, so that ingest shows them while a long PDF parses.

The ingest makes the counter (a shared integer), each parser process is given it when it starts
(ingestion/workers.py), and the PDF parser counts each page it has read. Without a counter, none is counted.

>>> counter = multiprocessing.Value("q", 0)
>>> share(counter); page_read(); page_read(); share(None)
>>> counter.value
2
"""

from __future__ import annotations

import multiprocessing  # noqa: F401 - the counter's type, and the example's

_counter = None  # this process's multiprocessing.Value("q"), or None


def share(counter) -> None:
    """Count this process's pages into `counter` (None: stop counting)."""
    global _counter
    _counter = counter


def page_read() -> None:
    if _counter is not None:
        with _counter.get_lock():
            _counter.value += 1
