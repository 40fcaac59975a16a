"""Logging for every command line: quiet by default, `-v` for what happens on the way, `-q` for errors only.

Modules log to `logging.getLogger(__name__)`; a command calls `add_verbosity` on its
argument parser and `configure` with the parsed arguments. Messages go to stderr, so a
command's stdout stays its output (JSON lines, a report).

>>> import argparse
>>> ap = argparse.ArgumentParser()
>>> add_verbosity(ap)
>>> level(ap.parse_args([])), level(ap.parse_args(["-v"])), level(ap.parse_args(["-vv"])), level(ap.parse_args(["-q"]))
(30, 20, 10, 40)
"""

from __future__ import annotations

import argparse
import logging
import sys

# finqa's loggers; "__main__" is the module a command runs as (python -m qa.run)
PACKAGES = ("core", "parser", "search", "ingestion", "qa", "eval", "serve", "finqa", "__main__")


def add_verbosity(ap: argparse.ArgumentParser) -> None:
    """-v (repeatable) and -q on a command's parser."""
    group = ap.add_mutually_exclusive_group()
    group.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="say more on stderr: -v what each step does, -vv details",
    )
    group.add_argument(
        "-q", "--quiet", action="store_true", help="errors only on stderr (no warnings, no summary)"
    )


def level(args: argparse.Namespace) -> int:
    if getattr(args, "quiet", False):
        return logging.ERROR
    return max(logging.DEBUG, logging.WARNING - 10 * getattr(args, "verbose", 0))


class _OneLine(logging.Formatter):
    """`warning: text`, as the commands' own `error:` lines read; with `names`, the logger's name after it."""

    def __init__(self, names: bool):
        super().__init__()
        self.names = names

    def format(self, record: logging.LogRecord) -> str:
        where = f" ({record.name})" if self.names else ""
        return f"{record.levelname.lower()}: {record.getMessage()}{where}"


def configure(args: argparse.Namespace) -> None:
    """Send log records at the level the arguments ask for to stderr, one line each.

    Other libraries (the Elasticsearch client retrying a node, pdfminer) stay one step quieter than
    finqa's own modules: their warnings show from -v on.
    """
    ours = level(args)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine(names=ours <= logging.DEBUG))  # -vv: which module said it
    logging.basicConfig(handlers=[handler], level=min(logging.ERROR, ours + 10), force=True)
    for package in PACKAGES:
        logging.getLogger(package).setLevel(ours)


def summary(args: argparse.Namespace, text: str) -> None:
    """A command's closing summary on stderr, unless -q."""
    if not getattr(args, "quiet", False):
        print(text, file=sys.stderr)
