"""finqa answers questions about financial reports (Chinese annual reports, Traditional-Chinese finance and
insurance PDFs, Japanese securities reports) and Japanese statutes, from their tables and text, with rules.

Start with `finqa ingest DOCS --index INDEX`, then `finqa ask QUESTIONS --index INDEX`; `finqa COMMAND --help`
says more about each command. Every command is also a module: `finqa ingest` is `python -m parser.ingest`,
`finqa ask` is `python -m qa.run` (docs/cli.md), with the same arguments, output and exit codes.
--rules and --formulas choose your own rule folders for any command: they become its active rule book
(core/rulebook.py), which its engine or ingest run takes and hands to its workers. FINQA_RULES_DIR and
FINQA_FORMULAS_DIR, when set, name the default folders instead of the bundled ones.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

from core.command_names import FINQA, RUN_AS
from core.errors import InputError
from core.rulebook import RuleBook, activate


@dataclass(frozen=True)
class Command:
    module: str  # run as __main__, as `python -m` would
    purpose: str  # one line for `finqa --help`
    prefix: tuple[str, ...] = ()  # arguments put before the user's


COMMANDS: dict[str, Command] = {
    "ingest": Command("ingestion.cli", "read a folder of documents into an index (tables, facts, text)"),
    "ask": Command("qa.run", "answer a file of questions over an index, one JSON line per answer"),
    "run": Command("qa.run", "the same as ask"),
    "score": Command("eval.score", "score answers against the right ones of a labelled data set"),
    "check": Command("qa.rules", "check the rule and formula files (file:line for each problem)", ("check",)),
    "model": Command("qa.llm.pull", "model pull: download a small local model that phrases answers"),
    "bench": Command("eval.bench", "run a benchmark on the development data (finqa bench list)"),
    "serve": Command("serve.cli", "answer questions over HTTP, each answer's evidence shown on its page"),
}
EXAMPLES = "examples"  # finqa's own command: where the bundled examples are


def build_parser() -> argparse.ArgumentParser:
    purposes = {
        **{name: command.purpose for name, command in COMMANDS.items()},
        EXAMPLES: "print where the bundled example corpus and questions are",
    }
    described = "\n".join(f"  {name:<9}{purpose}" for name, purpose in purposes.items())
    ap = argparse.ArgumentParser(
        prog="finqa",
        usage="finqa [--rules DIR] [--formulas DIR] COMMAND [ARGS ...]",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"commands:\n{described}\n\n{__doc__.split(chr(10) * 2)[1]}",
    )
    ap.add_argument(
        "--rules",
        type=Path,
        metavar="DIR",
        help="rules folder (default: $FINQA_RULES_DIR, else the bundled one)",
    )
    ap.add_argument(
        "--formulas",
        type=Path,
        metavar="DIR",
        help="formulas folder (default: $FINQA_FORMULAS_DIR, else the bundled one)",
    )
    ap.add_argument(
        "command", choices=[*COMMANDS, EXAMPLES], metavar="COMMAND", help="one of the commands below"
    )
    ap.add_argument(
        "args", nargs=argparse.REMAINDER, help="the command's own arguments (see finqa COMMAND --help)"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # The command runs in this process, with these folders as its active rule book (core/rulebook.py):
    # its engine or ingest run takes them as its settings' default and hands them to its workers.
    try:
        activate(RuleBook.at(args.rules, args.formulas))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == EXAMPLES:
        return show_examples()
    command = COMMANDS[args.command]
    os.environ[RUN_AS] = FINQA  # usage lines and advice then name `finqa …` (core/command_names.py)
    sys.argv = [f"finqa {args.command}", *command.prefix, *args.args]
    try:
        runpy.run_module(command.module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:  # the module's own exit code, as `python -m` would return it
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except InputError as exc:  # a module that lets one escape still gets the one-line error
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def show_examples() -> int:
    """Print the bundled corpus and questions: `finqa ask QUESTIONS` answers over them only for these questions
    (or with --examples); any other file needs --index or --docs."""
    from core.rulefile import data_dir

    examples = data_dir("examples")
    print(
        f"corpus:    {examples / 'corpus'}\nquestions: {examples / 'questions.json'}\n"
        f"try:       finqa ask {examples / 'questions.json'}"
    )
    return 0
