"""The maintainer-edited rule files: few-shot turns, and `python -m qa.rules check` for all of them.

`check` validates every rules/*.yaml and formulas/*.yaml with its owner's
loader (schema, regexes, duplicate ids, colliding synonyms, formula
expressions) and prints one `file:line: what is wrong` line per problem;
exit status 1 when there is any, 0 when all are clean.

    $ python -m qa.rules check
    rules/question_types.yaml:41: bad regex '(原因' in rule report_text_reason: missing ), unterminated subpattern at position 0
    1 problem in 6 files

>>> shots = FewShot.load()
>>> shots.turns("keywords")[0]
('<year>年<company>的研发费用是多少元?', '["研发费用"]')
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from parser.errors import InputError
from parser.rulefile import FORMULAS_DIR, RULES_DIR, RuleFile
from parser.vocabulary import SCHEMAS as VOCABULARIES

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
                            "properties": {"user": {"type": "string", "minLength": 1},
                                           "assistant": {"type": "string", "minLength": 1}},
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
    def load(cls, path: Path | None = None) -> "FewShot":
        rules = RuleFile.load(path or RULES_DIR / "fewshot.yaml", FEWSHOT_SCHEMA)
        errors = _fewshot_errors(rules)
        if errors:
            raise errors[0]
        return cls({name: (task["system"], tuple((t["user"], t["assistant"]) for t in task["turns"]))
                    for name, task in rules.data["tasks"].items()})

    def system(self, task: str) -> str:
        return self._task(task)[0]

    def turns(self, task: str) -> list[tuple[str, str]]:
        return list(self._task(task)[1])

    def _task(self, task: str):
        if task not in self.tasks:
            raise InputError(f"no few-shot task {task!r}; rules/fewshot.yaml has {', '.join(self.tasks)}")
        return self.tasks[task]

    @staticmethod
    def mask(text: str, companies: Iterable[str] = (), years: Iterable[str] = ()) -> str:
        """The text with the given company names as <company> and years (and any 19xx/20xx) as <year>."""
        for name in sorted((c for c in companies if c), key=len, reverse=True):
            text = text.replace(name, "<company>")
        for written in years:
            if written:
                mark = vocabulary("numbers")["years"]["year"]
                text = text.replace(written, "<year>" + mark if written.endswith(mark) else "<year>")
        return _UNMASKED_YEAR.sub("<year>", text)


def _fewshot_errors(rules: RuleFile) -> list[InputError]:
    errors = []
    for name, task in rules.data["tasks"].items():
        for i, turn in enumerate(task["turns"]):
            for role in ("user", "assistant"):
                if _UNMASKED_YEAR.search(turn[role]):
                    errors.append(rules.error(f"{name} turn {i + 1}: mask the year as <year> in the {role} text",
                                              "tasks", name, "turns", i, role))
    return errors


# ---------------------------------------------------------------------- check
def _loaders() -> dict[str, Callable[[Path], list[InputError]]]:
    """Rule-file name -> function returning its problems (first error per file for other owners' loaders)."""
    from qa.answers import answer_errors
    from qa.classify import load_type_rules
    from qa.fields import load_field_file
    from qa.statistics_request import load_statistics_rules

    def own(load):
        def check(path: Path) -> list[InputError]:
            return list(load(path)[-1])
        return check

    def fewshot(path: Path) -> list[InputError]:
        return _fewshot_errors(RuleFile.load(path, FEWSHOT_SCHEMA))

    return {
        "question_types.yaml": own(load_type_rules),
        "fields.yaml": own(load_field_file),
        "fewshot.yaml": fewshot,
        "answers.yaml": answer_errors,
        "statistics.yaml": own(load_statistics_rules),
        "headings.yaml": _foreign("parser.headings", "HeadingRules.load"),
        "members.yaml": _foreign("qa.cell_answer", "MemberWords.load"),
        "statements.yaml": _foreign("parser.statements", "StatementRules.load"),
        "laws.yaml": _foreign("qa.law_refs", "LawRules.load"),
        "documents.yaml": _foreign("parser.metadata", "DocumentRules.load", "load_document_rules", "load_rules"),
        **{f"{name}.yaml": _foreign("parser.vocabulary", "load") for name in VOCABULARIES},
    }


def _foreign(module: str, *attributes: str) -> Callable[[Path], list[InputError]] | None:
    """The loader another package owns, when that package is there (it raises InputError itself)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    for dotted in attributes:
        target = mod
        for part in dotted.split("."):
            target = getattr(target, part, None)
        if callable(target):
            def check(path: Path, load=target) -> list[InputError]:
                load(path)
                return []
            return check
    return None


def _yaml_only(path: Path) -> list[InputError]:
    RuleFile.load(path)
    return []


def check(rules_dir: Path = RULES_DIR, formulas_dir: Path = FORMULAS_DIR) -> tuple[list[str], list[str]]:
    """Validate every rule and formula file; returns (problems, notes) as printable lines."""
    problems, notes = [], []
    loaders = _loaders()
    files = [(p, loaders.get(p.name, "unknown")) for p in sorted(Path(rules_dir).glob("*.yaml"))]
    for name in ("question_types.yaml", "fields.yaml", "fewshot.yaml", "answers.yaml"):
        if not (Path(rules_dir) / name).exists():
            problems.append(f"{Path(rules_dir) / name}: missing")
    for path, load in files:
        if load == "unknown":
            try:
                RuleFile.load(path)
                notes.append(f"{path}: no schema known for this file; checked that it is valid YAML only")
            except InputError as exc:
                problems.append(str(exc))
            continue
        if load is None:
            notes.append(f"{path}: its loader is not installed yet; checked that it is valid YAML only")
            load = _yaml_only
        try:
            problems += [str(e) for e in load(path)]
        except InputError as exc:
            problems.append(str(exc))
    try:
        from qa.fields import FieldDictionary
        from qa.formulas import check as check_formulas

        check_formulas(Path(formulas_dir), FieldDictionary.load(Path(rules_dir) / "fields.yaml"))
    except InputError as exc:
        problems.append(str(exc))
    return problems, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qa.rules", description="Validate rules/*.yaml and formulas/*.yaml.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("check", help="schema-check every rule file; print file:line for each problem")
    run.add_argument("--rules", type=Path, default=RULES_DIR, help="rules directory (default: %(default)s)")
    run.add_argument("--formulas", type=Path, default=FORMULAS_DIR, help="formulas directory (default: %(default)s)")
    args = parser.parse_args(argv)
    problems, notes = check(args.rules, args.formulas)
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    for line in problems:
        print(line)
    count = len(list(Path(args.rules).glob("*.yaml"))) + len(list(Path(args.formulas).glob("*.yaml")))
    print(f"{len(problems) or 'no'} problem{'s' if len(problems) != 1 else ''} in {count} files", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
