"""Few-shot turns for the language model, from rules/fewshot.yaml: a system prompt and example turns per task.

Company names and years in the examples are masked (<company>, <year>) so the
model copies the form of an answer, not its facts.

>>> shots = FewShot.load()
>>> shots.turns("keywords")[0]
('<year>年<company>的研发费用是多少元?', '["研发费用"]')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError, RuleError
from core.rulebook import active
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

FEWSHOT_TASKS = ("keywords", "report_text", "open")

FEWSHOT_SCHEMA = {
    "type": "object",
    "required": ["tasks"],
    "additionalProperties": False,
    "properties": {
        "tasks": {
            "type": "object",
            "required": list(FEWSHOT_TASKS),
            "additionalProperties": {
                "type": "object",
                "required": ["system", "turns"],
                "additionalProperties": False,
                "properties": {
                    "system": {"type": "string", "minLength": 1},
                    "turns": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["user", "assistant"],
                            "additionalProperties": False,
                            "properties": {
                                "user": {"type": "string", "minLength": 1},
                                "assistant": {"type": "string", "minLength": 1},
                            },
                        },
                    },
                },
            },
        }
    },
}


_UNMASKED_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


@dataclass(frozen=True)
class FewShot:
    """Few-shot example turns per task, with company and year masked as <company>/<year>.

    The LLM code puts them into the chat history as alternating user/assistant
    turns after the task's system message.
    """

    tasks: dict[str, tuple[str, tuple[tuple[str, str], ...]]]

    @classmethod
    def load(cls, path: Path | None = None) -> FewShot:
        rules = RuleFile.load(path or active().rules_dir / "fewshot.yaml", FEWSHOT_SCHEMA)
        errors = fewshot_errors(rules)
        if errors:
            raise errors[0]
        return cls(
            {
                name: (task["system"], tuple((t["user"], t["assistant"]) for t in task["turns"]))
                for name, task in rules.data["tasks"].items()
            }
        )

    def system(self, task: str) -> str:
        return self._task(task)[0]

    def turns(self, task: str) -> list[tuple[str, str]]:
        return list(self._task(task)[1])

    def _task(self, task: str):
        if task not in self.tasks:
            raise RuleError(f"no few-shot task {task!r}; rules/fewshot.yaml has {', '.join(self.tasks)}")
        return self.tasks[task]

    @staticmethod
    def mask(text: str, companies: Iterable[str] = (), years: Iterable[str] = ()) -> str:
        """The text with the given company names as <company> and years (and any 19xx/20xx) as <year>."""
        for name in sorted((c for c in companies if c), key=len, reverse=True):
            text = text.replace(name, "<company>")
        mark = vocabulary("numbers")["years"]["year"]  # rules/numbers.yaml: 年
        for written in years:
            if written:
                text = text.replace(written, "<year>" + mark if written.endswith(mark) else "<year>")
        return _UNMASKED_YEAR.sub("<year>", text)


def fewshot_errors(rules: RuleFile) -> list[InputError]:
    errors = []
    for name, task in rules.data["tasks"].items():
        for i, turn in enumerate(task["turns"]):
            for role in ("user", "assistant"):
                if _UNMASKED_YEAR.search(turn[role]):
                    errors.append(
                        rules.error(
                            f"{name} turn {i + 1}: mask the year as <year> in the {role} text",
                            "tasks",
                            name,
                            "turns",
                            i,
                            role,
                        )
                    )
    return errors
