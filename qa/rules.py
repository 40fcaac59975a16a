"""`python -m qa.rules check`: validate every maintainer-edited rule and formula file.

`check` validates every rules/*.yaml and formulas/*.yaml with its owner's
loader (schema, regexes, duplicate ids, colliding synonyms, formula
expressions) and prints one `file:line: what is wrong` line per problem;
exit status 1 when there is any, 0 when all are clean.

    $ python -m qa.rules check
    rules/question_types.yaml:41: bad regex '(原因' in rule report_text_reason: missing ), unterminated subpattern at position 0
    1 problem in 6 files
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from core.command_names import FINQA, run_as_finqa
from core.errors import InputError
from core.logs import add_verbosity, configure, summary
from core.rulebook import RuleBook, active, using
from core.rulefile import RuleFile
from core.vocabulary import SCHEMAS as VOCABULARIES
from qa.fewshot import FEWSHOT_SCHEMA, fewshot_errors

log = logging.getLogger(__name__)


def _loaders() -> dict[str, Callable[[Path], list[InputError]]]:
    """Rule-file name -> function returning its problems (first error per file for other owners' loaders)."""
    from core.fields import load_field_file
    from qa.answers import answer_errors
    from qa.understand.classify import load_type_rules
    from qa.understand.statistics_request import load_statistics_rules

    def own(load):
        def check(path: Path) -> list[InputError]:
            return list(load(path)[-1])

        return check

    def fewshot(path: Path) -> list[InputError]:
        return fewshot_errors(RuleFile.load(path, FEWSHOT_SCHEMA))

    return {
        "question_types.yaml": own(load_type_rules),
        "fields.yaml": own(load_field_file),
        "fewshot.yaml": fewshot,
        "answers.yaml": answer_errors,
        "statistics.yaml": own(load_statistics_rules),
        "headings.yaml": _foreign("parser.headings", "HeadingRules.load"),
        "members.yaml": _foreign("qa.data.cells", "MemberWords.load"),
        "statements.yaml": _foreign("core.statements", "StatementRules.load"),
        "laws.yaml": _foreign("qa.statutes.law_refs", "LawRules.load"),
        "documents.yaml": _foreign(
            "parser.metadata", "DocumentRules.load", "load_document_rules", "load_rules"
        ),
        **{f"{name}.yaml": _foreign("core.vocabulary", "load") for name in VOCABULARIES},
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


def check(rules_dir: Path | None = None, formulas_dir: Path | None = None) -> tuple[list[str], list[str]]:
    """Validate every rule and formula file (the active rule book's folders unless given); returns
    (problems, notes) as printable lines."""
    try:
        book = RuleBook.at(rules_dir or active().rules_dir, formulas_dir or active().formulas_dir)
    except InputError as exc:
        return [str(exc)], []
    with using(book):  # a loader that reads another rule file reads it from the folders checked
        return _check(book.rules_dir, book.formulas_dir)


def _check(rules_dir: Path, formulas_dir: Path) -> tuple[list[str], list[str]]:
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
        from core.fields import FieldDictionary
        from qa.formulas import check as check_formulas

        check_formulas(Path(formulas_dir), FieldDictionary.load(Path(rules_dir) / "fields.yaml"))
    except InputError as exc:
        problems.append(str(exc))
    return problems, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=FINQA if run_as_finqa() else "python -m qa.rules",
        description="Validate rules/*.yaml and formulas/*.yaml.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("check", help="schema-check every rule file; print file:line for each problem")
    default = active()
    run.add_argument("--rules", type=Path, help=f"rules directory (default: {default.rules_dir})")
    run.add_argument("--formulas", type=Path, help=f"formulas directory (default: {default.formulas_dir})")
    add_verbosity(run)
    args = parser.parse_args(argv)
    configure(args)
    problems, notes = check(args.rules, args.formulas)
    for line in notes:
        log.warning(line)
    for line in problems:
        print(line)
    count = sum(
        len(list(Path(folder or fallback).glob("*.yaml")))
        for folder, fallback in ((args.rules, default.rules_dir), (args.formulas, default.formulas_dir))
    )
    summary(args, f"{len(problems) or 'no'} problem{'s' if len(problems) != 1 else ''} in {count} files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
