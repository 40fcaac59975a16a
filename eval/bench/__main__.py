"""`python -m eval.bench NAME [options]`: run the benchmark in eval/bench/NAME.py; `list` lists them.

Each benchmark module has `main(argv: list[str]) -> int`, measures its
figures as ratios against a baseline run in the same process, and skips with
a message naming the data it needs when that is absent (eval/bench/_data.py).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path

import eval.bench as bench_pkg
from core.command_names import command_name
from eval.bench._data import DATA_SETS, SHARED_DATA


@dataclass(frozen=True)
class Bench:
    name: str
    purpose: str  # its docstring's first line, without the usage
    data: tuple[str, ...]  # the data sets it reads (folders under SHARED_DATA); () when it makes its own


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(bench_pkg.__path__) if not m.name.startswith("_"))


def describe(name: str) -> Bench:
    """What a bench measures and which data it reads, from its source (nothing is imported)."""
    tree = ast.parse((Path(bench_pkg.__path__[0]) / f"{name}.py").read_text(encoding="utf-8"))
    purpose = (ast.get_docstring(tree) or "").split("\n")[0]
    purpose = purpose.split("`: ", 1)[-1].rstrip(".")
    data = tuple(
        dict.fromkeys(
            node.args[0].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "shared_data"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        )
    )
    return Bench(name, purpose, data)


def listing() -> str:
    lines = [
        f"{command_name('eval.bench')} NAME [options]  (NAME --help for its options); "
        f"data sets are looked for in {SHARED_DATA} (FINQA_SHARED_DATA)",
        "",
    ]
    for bench in map(describe, available()):
        needs = ", ".join(
            f"{d} ({'present' if (SHARED_DATA / d).exists() else 'absent'})" for d in bench.data
        )
        lines.append(f"{bench.name:<14}{bench.purpose}")
        lines.append(f"{'':<14}data: {needs or 'none (generated or bundled)'}")
    lines += ["", "data sets:", *(f"  {name:<12}{what}" for name, what in DATA_SETS.items())]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    names = available()
    usage = f"usage: {command_name('eval.bench')} {{list|{'|'.join(names)}}} [options]"
    if argv and argv[0] in ("list", "-h", "--help"):
        print(listing() if argv[0] == "list" else f"{usage}\n\n{__doc__.strip()}\n\n{listing()}")
        return 0
    if not argv or argv[0] not in names:
        print(
            f"{usage}\n{command_name('eval.bench')} list: what each bench measures and the data it needs",
            file=sys.stderr,
        )
        return 2
    return importlib.import_module(f"eval.bench.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
