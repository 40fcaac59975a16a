"""A mark that an ingest is writing an index folder, so `qa.run` can warn that its answers may be incomplete.

The ingest holds an exclusive flock on INDEX_DIR/ingest.lock while it runs.
The kernel drops the lock when the process ends, however it ends, so a
killed ingest never leaves a stale mark; the empty file stays.

It is local: an ingest on another machine into the same Elasticsearch
corpus is not seen.

>>> with ingest_running(index_dir):
...     ingest_in_progress(index_dir)
True
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "ingest.lock"


@contextmanager
def ingest_running(index_dir: Path) -> Iterator[None]:
    """Mark `index_dir` as being written for the block.

    A folder that cannot take the mark (read-only) gets none: the stores then report what is wrong.
    """
    try:
        fd = os.open(Path(index_dir) / LOCK_NAME, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass  # another ingest holds it: the text index's writer lock refuses this one with a clear message
    try:
        yield
    finally:
        os.close(fd)


def ingest_in_progress(index_dir: Path) -> bool:
    """Whether an ingest is writing `index_dir` now."""
    try:
        fd = os.open(Path(index_dir) / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False
