"""Progress of a long command, shown as it goes: a bar on a terminal, a line at least every 10 s elsewhere.

A log file or a CI job sees the run move too. The figures beside the count (pages parsed, questions failed)
are read by `figures()` twice a second from a thread, so they move while the count waits on a long file.

>>> with Progress("ingest", "file", total=2, show=False) as progress:
...     progress.update()
>>> progress.count
1
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

TICK_SECONDS = 0.5  # how often the figures are read and a bar redrawn
LINE_SECONDS = 10.0  # how often a progress line is written without a terminal


class Progress:
    """A count of `unit`s out of `total` (None: unknown), with the figures `figures()` returns beside it.

    `show`: True always, False never (-q), None on a terminal as a bar and elsewhere as lines."""

    def __init__(
        self,
        desc: str,
        unit: str,
        total: int | None = None,
        show: bool | None = None,
        figures: Callable[[], dict[str, object]] = dict,
        line_seconds: float = LINE_SECONDS,
    ):
        self.desc, self.unit, self.total, self.figures = desc, unit, total, figures
        self.count = 0
        self.line_seconds = line_seconds
        self.shown = show is not False
        self.terminal = sys.stderr.isatty()
        self._bar = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    def __enter__(self) -> Progress:
        if not self.shown:
            return self
        if self.terminal:
            from tqdm import tqdm  # only a terminal needs it drawn

            self._bar = tqdm(desc=self.desc, unit=self.unit, total=self.total, file=sys.stderr)
        self._thread = threading.Thread(target=self._tick, name=f"progress-{self.desc}", daemon=True)
        self._thread.start()
        return self

    def update(self, n: int = 1) -> None:
        self.count += n
        if self._bar is not None:
            self._bar.update(n)

    def __exit__(self, *_) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
        if self._bar is not None:
            self._bar.set_postfix(self.figures(), refresh=False)
            self._bar.close()

    def line(self) -> str:
        """`ingest: 3/5 files, pages=120/360 (12 s)`: what a progress line says."""
        count = f"{self.count}/{self.total}" if self.total is not None else str(self.count)
        figures = "".join(f", {name}={value}" for name, value in self.figures().items())
        return f"{self.desc}: {count} {self.unit}s{figures} ({time.monotonic() - self._started:.0f} s)"

    def _tick(self) -> None:
        next_line = self._started + self.line_seconds

        def pause() -> float:
            return TICK_SECONDS if self._bar else min(TICK_SECONDS, next_line - time.monotonic())

        while not self._stop.wait(pause()):
            if self._bar is not None:
                self._bar.set_postfix(self.figures(), refresh=True)
            elif time.monotonic() >= next_line:
                next_line += self.line_seconds
                print(self.line(), file=sys.stderr, flush=True)
