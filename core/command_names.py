"""The name a command goes by in usage lines and advice: `finqa ingest` when the user ran `finqa`,
`python -m parser.ingest` when they ran the module.

finqa/cli.py runs each module as `python -m` would, after setting FINQA_RUN_AS=finqa (runpy replaces
sys.argv[0] with the module's file), so the module, and the processes it starts, speak the user's words.

>>> command_name("parser.ingest", run_as="finqa"), command_name("parser.ingest", run_as="")
('finqa ingest', 'python -m parser.ingest')
"""

from __future__ import annotations

import os

FINQA = "finqa"
# module -> its finqa command (finqa/cli.py COMMANDS maps them the other way)
FINQA_COMMANDS = {
    "parser.ingest": "ingest",
    "ingestion.cli": "ingest",
    "qa.run": "ask",
    "eval.score": "score",
    "qa.rules": "check",
    "eval.bench": "bench",
    "qa.llm.pull": "model",
    "serve": "serve",
}


RUN_AS = "FINQA_RUN_AS"  # the environment variable finqa/cli.py sets


def run_as_finqa(run_as: str | None = None) -> bool:
    """Whether this process runs a module through the finqa command."""
    return (os.environ.get(RUN_AS, "") if run_as is None else run_as) == FINQA


def command_name(module: str, run_as: str | None = None) -> str:
    """What the user types to run `module`: "finqa ingest" or "python -m parser.ingest"."""
    if run_as_finqa(run_as) and module in FINQA_COMMANDS:
        return f"{FINQA} {FINQA_COMMANDS[module]}"
    return f"python -m {module}"
