"""`finqa COMMAND ARGS...`: one command over the module command lines, whose contracts stay as they are.

  finqa ingest ARGS    python -m parser.ingest ARGS
  finqa ask ARGS       python -m qa.run ARGS (finqa run ARGS is the same)
  finqa score ARGS     python -m eval.score ARGS
  finqa check ARGS     python -m qa.rules check ARGS
  finqa bench ARGS     python -m eval.bench ARGS
  finqa examples       print where the bundled example corpus and questions are

Each command runs its module as `python -m` would (same arguments, output and exit codes).
--rules and --formulas choose a user's rule folders for any command, as FINQA_RULES_DIR and
FINQA_FORMULAS_DIR do (the option wins over the variable).
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
from pathlib import Path

# command -> (module run as __main__, arguments put before the user's)
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ingest": ("ingestion.cli", ()),
    "ask": ("qa.run", ()),
    "run": ("qa.run", ()),
    "score": ("eval.score", ()),
    "check": ("qa.rules", ("check",)),
    "bench": ("eval.bench", ()),
}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="finqa", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n")[1])
    ap.add_argument("--rules", type=Path, metavar="DIR", help="rules folder (default: $FINQA_RULES_DIR, else the bundled one)")
    ap.add_argument("--formulas", type=Path, metavar="DIR",
                    help="formulas folder (default: $FINQA_FORMULAS_DIR, else the bundled one)")
    ap.add_argument("command", choices=[*COMMANDS, "examples"])
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the command's own arguments (see finqa COMMAND --help)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # before the command's module is imported: the rule folders are fixed when core.rulefile loads
    if args.rules:
        os.environ["FINQA_RULES_DIR"] = str(args.rules.resolve())
    if args.formulas:
        os.environ["FINQA_FORMULAS_DIR"] = str(args.formulas.resolve())
    if args.command == "examples":
        return show_examples()
    module, prefix = COMMANDS[args.command]
    sys.argv = [f"finqa {args.command}", *prefix, *args.args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:  # the module's own exit code, as `python -m` would return it
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def show_examples() -> int:
    """Print the bundled corpus and questions: `finqa ask QUESTIONS` answers over them only for these questions
    (or with --examples); any other file needs --index or --docs."""
    from core.rulefile import data_dir

    examples = data_dir("examples")
    print(f"corpus:    {examples / 'corpus'}\nquestions: {examples / 'questions.json'}\n"
          f"try:       finqa ask {examples / 'questions.json'}")
    return 0
