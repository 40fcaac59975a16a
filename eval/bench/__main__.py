"""`python -m eval.bench NAME [options]`: run the benchmark in eval/bench/NAME.py.

Each benchmark module has `main(argv: list[str]) -> int`, measures its
figures as ratios against a baseline run in the same process, and skips with
a message when ../shared/data is absent.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys

import eval.bench as bench_pkg


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(bench_pkg.__path__) if not m.name.startswith("_"))


def main(argv: list[str]) -> int:
    names = available()
    if not argv or argv[0] not in names:
        print(f"usage: python -m eval.bench {{{'|'.join(names)}}} [options]", file=sys.stderr)
        return 2
    return importlib.import_module(f"eval.bench.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
