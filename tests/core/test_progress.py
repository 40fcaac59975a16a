"""Progress without a terminal: a line at least every interval, with the figures read as they change."""

from __future__ import annotations

import time

from core.progress import Progress


def wait_for_line(capsys, text: str, seconds: float = 10.0) -> str:
    """The progress lines written until one holds `text` (they come on their own: nothing here asks)."""
    seen = ""
    deadline = time.monotonic() + seconds
    while text not in seen and time.monotonic() < deadline:
        time.sleep(0.05)
        seen += capsys.readouterr().err
    return seen


def test_without_a_terminal_lines_keep_coming_with_the_current_count_and_figures(capsys):
    pages = {"read": 7}
    with Progress(
        "ingest", "file", total=2, show=None, figures=lambda: {"pages": pages["read"]}, line_seconds=0.3
    ) as progress:
        assert "ingest: 0/2 files, pages=7 (" in wait_for_line(capsys, "pages=7")
        progress.update()
        pages["read"] = 9
        assert "ingest: 1/2 files, pages=9 (" in wait_for_line(capsys, "1/2 files, pages=9")


def test_quiet_progress_writes_nothing(capsys):
    with Progress("answer", "question", show=False, line_seconds=0.1) as progress:
        progress.update(3)
        time.sleep(0.4)
    assert progress.count == 3 and capsys.readouterr().err == ""
