"""Financial ratios from formulas/*.yaml: a safe expression grammar evaluated with Decimal.

Each formula names its operands by field (canonical names or synonyms from
rules/fields.yaml, resolved to canonical names when loaded):

    formulas:
      - name: 速动比率
        aliases: [速动比率]
        expression: (流动资产合计 - 存货) / 流动负债合计
        output: ratio            # ratio | percent
        precision: 2             # decimals kept unless the question asks otherwise
        optional: []             # operands that count as 0 when a report does not list them
        unit: ""                 # unit of the result (每股收益: 元)
        prefer_reported: false   # true: a figure the report prints under the formula's name wins
                                 # (每股收益 uses weighted shares, which tables do not give)
    field_formulas:              # for any field: "{field}" stands for the field's name
      - name: "{field}增长率"
        expression: ({field} - prev({field})) / prev({field})
        output: percent
        precision: 2

The grammar is numbers, field names, + - * / (also ＋ － × ÷ −), unary minus,
parentheses and prev(field) for the previous year's value. Names that are not
Python identifiers (「1株当たり純資産額」, 「研发投入（元）」) are written in
corner brackets. Expressions are parsed with `ast` and only those nodes are
accepted; nothing is ever evaluated as Python.

>>> book = FormulaBook.load()
>>> formula = book.get("资产负债比率")
>>> formula.evaluate({Operand("负债合计"): Decimal("677219000.0"),
...                   Operand("资产总计"): Decimal("6748073000.0")})
Decimal('0.1003573...')
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from decimal import Decimal, DivisionByZero, InvalidOperation, localcontext
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import RuleError
from core.rulebook import active, pattern_per_book, per_book
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

if TYPE_CHECKING:
    from core.fields import FieldDictionary

OUTPUTS = ("ratio", "percent")
# A real ratio is a few operands; the bounds keep a hostile file from nesting the tree past Python's recursion
# limit (a 3,000-term sum) or making a constant no context can hold (1e999999999).
MAX_EXPRESSION = 500  # characters
MAX_DIGITS = 30
MAX_DEPTH = 100  # syntax-tree levels: (a - b) / c is 5
_PLAIN_NUMBER = re.compile(rf"(?=[\d.]{{1,{MAX_DIGITS}}}$)\d+(?:\.\d+)?")
FIELD_PLACEHOLDER = "{field}"

_FORMULA_PROPS = {
    "name": {"type": "string", "minLength": 1},
    "aliases": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "expression": {"type": "string", "minLength": 1, "maxLength": MAX_EXPRESSION},
    "output": {"enum": list(OUTPUTS)},
    "precision": {"type": "integer", "minimum": 0, "maximum": 8},
    "optional": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "unit": {"type": "string"},
    "prefer_reported": {"type": "boolean"},
    "note": {"type": "string"},
}
_FORMULA = {
    "type": "object",
    "required": ["name", "expression", "output", "precision"],
    "additionalProperties": False,
    "properties": _FORMULA_PROPS,
}
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "formulas": {"type": "array", "items": _FORMULA},
        "field_formulas": {"type": "array", "items": _FORMULA},
    },
}

_PUNCTUATION = per_book(lambda: vocabulary("punctuation"))  # rules/punctuation.yaml
_OPERATORS = per_book(lambda: str.maketrans(_PUNCTUATION["formula_operators"]))
_OPEN = per_book(lambda: _PUNCTUATION["formula_quotes"][0])
_CLOSE = per_book(lambda: _PUNCTUATION["formula_quotes"][1])
_QUOTED = pattern_per_book(
    lambda: re.compile(
        f"{re.escape(_OPEN.value())}([^{re.escape(_OPEN.value() + _CLOSE.value())}]+){re.escape(_CLOSE.value())}"
    )
)
_PREVIOUS_YEAR = per_book(lambda: vocabulary("numbers")["previous_year"])  # rules/numbers.yaml


class FormulaError(Exception):
    """A formula cannot be computed for these values (a divisor is zero, an operand is missing)."""


@dataclass(frozen=True)
class Operand:
    """A field's value in the asked year (offset 0) or the year before (offset -1, from prev())."""

    field: str  # canonical field name
    offset: int = 0
    written: str = dataclass_field(default="", compare=False)  # the name as the formula writes it

    def label(self, prev_prefix: str | None = None) -> str:
        """How answers name it: the written name, with the previous-year prefix for prev()
        (rules/numbers.yaml previous_year unless given)."""
        name = self.written or self.field
        if not self.offset:
            return name
        return f"{_PREVIOUS_YEAR.value() if prev_prefix is None else prev_prefix}{name}"


# The parsed expression: a tiny tree of numbers, operands and arithmetic.
@dataclass(frozen=True)
class _Num:
    value: Decimal


@dataclass(frozen=True)
class _Ref:
    operand: Operand


@dataclass(frozen=True)
class _Neg:
    arg: _Node


@dataclass(frozen=True)
class _Bin:
    op: str
    left: _Node
    right: _Node


_Node = _Num | _Ref | _Neg | _Bin


@dataclass(frozen=True)
class Formula:
    """One ratio: its expression tree, how to show the result, and where it was written."""

    name: str
    expression: str
    output: str
    precision: int
    aliases: tuple[str, ...] = ()
    optional: frozenset[str] = frozenset()
    unit: str = ""
    prefer_reported: bool = False
    where: str = ""  # "formulas/zh.yaml:12"
    tree: _Node = dataclass_field(default=_Num(Decimal(0)), repr=False, compare=False)

    @property
    def percent(self) -> bool:
        return self.output == "percent"

    def operands(self) -> tuple[Operand, ...]:
        """Operands in the order they are written, each once."""
        seen: dict[Operand, None] = {}
        _collect(self.tree, seen)
        return tuple(seen)

    def evaluate(self, values: Mapping[Operand, Decimal | None]) -> Decimal:
        """The result for these operand values; FormulaError when one is missing or a divisor is 0."""
        missing = [
            op.label() for op in self.operands() if values.get(op) is None and op.field not in self.optional
        ]
        if missing:
            raise FormulaError(f"missing {', '.join(missing)}")
        with localcontext() as ctx:
            ctx.prec = 34
            ctx.traps[DivisionByZero] = True
            ctx.traps[InvalidOperation] = True
            try:
                return _evaluate(self.tree, values)
            except (DivisionByZero, InvalidOperation):
                raise FormulaError(f"{self.name}: a divisor is 0") from None

    def text(self, prev_prefix: str | None = None) -> str:
        """The formula as answers state it: 速动比率=(流动资产-存货)/流动负债 (names as written)."""
        return f"{self.name}={self.right_side(prev_prefix)}"

    def right_side(self, prev_prefix: str | None = None) -> str:
        """The expression alone: (流动资产-存货)/流动负债."""
        return _render(self.tree, 0, prev_prefix)


class FormulaBook:
    """All formulas by name and alias, plus per-field formulas such as X增长率.

    >>> book = FormulaBook.load()
    >>> [(op.field, op.offset) for op in book.get("营业收入增长率").operands()]
    [('营业收入', 0), ('营业收入', -1)]
    """

    def __init__(
        self,
        formulas: Iterable[Formula],
        field_formulas: Iterable[Formula] = (),
        fields: FieldDictionary | None = None,
    ):
        self.formulas = {f.name: f for f in formulas}
        self.field_formulas = tuple(field_formulas)
        self.fields = fields
        self._by_alias: dict[str, Formula] = {}
        for formula in self.formulas.values():
            for alias in (formula.name, *formula.aliases):
                other = self._by_alias.get(alias)
                if other is not None and other.name != formula.name:
                    raise RuleError(
                        f"alias {alias!r} is also used by {other.name} ({other.where})",
                        *_split_where(formula.where),
                    )
                self._by_alias[alias] = formula
        # Traditional-character forms (資產負債率 for 资产负债率) come free, as for fields; a form
        # written out in a file wins (流動比率 is the Japanese formula and the Traditional form).
        for formula in self.formulas.values():
            for alias in (formula.name, *formula.aliases):
                self._by_alias.setdefault(traditional_form(alias), formula)
        patterns = {}
        for f in self.field_formulas:
            for alias in (f.name, *f.aliases):
                patterns.setdefault(alias, f)
        for f in self.field_formulas:
            for alias in (f.name, *f.aliases):
                patterns.setdefault(traditional_form(alias), f)
        # Longest affixes first, so "{field}同比增长率" wins over "{field}增长率".
        self._suffixes = sorted(
            (
                (alias.split(FIELD_PLACEHOLDER)[0], alias.split(FIELD_PLACEHOLDER)[1], f)
                for alias, f in patterns.items()
            ),
            key=lambda item: -len(item[0]) - len(item[1]),
        )

    @classmethod
    def load(cls, directory: Path | None = None, fields: FieldDictionary | None = None) -> FormulaBook:
        """Read every formulas/*.yaml; operand names (canonical names or synonyms) are resolved to
        canonical fields with `fields` (default: rules/fields.yaml). InputError file:line on any problem."""
        directory = Path(directory or active().formulas_dir)
        if fields is None:
            from core.fields import FieldDictionary

            fields = FieldDictionary.load()
        formulas: list[Formula] = []
        field_formulas: list[Formula] = []
        seen: dict[str, str] = {}
        paths = sorted(directory.glob("*.yaml"))
        if not paths:
            raise RuleError("no formula files (*.yaml)", str(directory))
        for path in paths:
            rules = RuleFile.load(path, SCHEMA)
            data = rules.data or {}
            for key, out in (("formulas", formulas), ("field_formulas", field_formulas)):
                for i, entry in enumerate(data.get(key, [])):
                    if entry["name"] in seen:
                        raise rules.error(
                            f"formula {entry['name']!r} is already defined at {seen[entry['name']]}",
                            key,
                            i,
                            "name",
                        )
                    formula = _build(entry, rules, (key, i), fields, per_field=key == "field_formulas")
                    seen[formula.name] = formula.where
                    out.append(formula)
        return cls(formulas, field_formulas, fields)

    def names_and_aliases(self) -> dict[str, str]:
        """Every way a question may name a formula -> the formula's name (for routing).

        Per-field formulas appear as patterns with "{field}" (see `field_patterns`)."""
        return {alias: formula.name for alias, formula in self._by_alias.items()}

    def field_patterns(self) -> dict[str, str]:
        """Per-field formula names and aliases with the "{field}" placeholder -> formula name."""
        return {prefix + FIELD_PLACEHOLDER + suffix: f.name for prefix, suffix, f in self._suffixes}

    def get(self, name: str, field_name: str = "") -> Formula | None:
        """A formula by name or alias; "X增长率" (X a field or synonym) gives the growth formula of X.

        `field_name` picks the field for a per-field formula named without one ("增长率")."""
        formula = self._by_alias.get(name)
        if formula is not None:
            return formula
        for prefix, suffix, template in self._suffixes:
            if name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix):
                written = name[len(prefix) : len(name) - len(suffix)]
                if self.fields is not None and self.fields.canonical(written):
                    return self.for_field(template, written)
        if field_name:
            for prefix, suffix, template in self._suffixes:
                if name == prefix + suffix:
                    return self.for_field(template, field_name)
        return None

    def for_field(self, template: Formula, written: str) -> Formula:
        """A per-field formula made concrete for one field (a canonical name or synonym)."""
        canonical = (self.fields.canonical(written) if self.fields is not None else None) or written
        return Formula(
            name=template.name.replace(FIELD_PLACEHOLDER, written),
            expression=template.expression.replace(FIELD_PLACEHOLDER, written),
            output=template.output,
            precision=template.precision,
            aliases=tuple(a.replace(FIELD_PLACEHOLDER, written) for a in template.aliases),
            optional=template.optional,
            unit=template.unit,
            prefer_reported=template.prefer_reported,
            where=template.where,
            tree=_substitute(template.tree, canonical, written),
        )

    def __len__(self) -> int:
        return len(self.formulas) + len(self.field_formulas)


def check(directory: Path | None = None, fields: FieldDictionary | None = None) -> int:
    """Validate formulas/*.yaml for `python -m qa.rules check`: the number of formulas, or InputError file:line."""
    return len(FormulaBook.load(directory, fields))


def parse_expression(text: str, where: tuple[str, int] = ("", 1)) -> _Node:
    """Parse one expression into the formula tree; InputError (file:line) for anything outside the grammar."""
    names: dict[str, str] = {}

    def quote(match: re.Match) -> str:
        key = f"_f{len(names)}"
        names[key] = match.group(1).strip()
        return key

    source = _QUOTED.sub(quote, text).translate(_OPERATORS).strip()
    if _OPEN.value() in source or _CLOSE.value() in source:
        raise RuleError(f"unbalanced {_OPEN.value()}{_CLOSE.value()} in expression {text!r}", *where)
    try:
        tree = ast.parse(source, mode="eval")
        if (
            _depth(tree) > MAX_DEPTH
        ):  # every step below (resolving, rendering, evaluating) recurses on the tree
            raise RecursionError
        return _convert(tree.body, source, names, text, where)
    except SyntaxError as exc:
        raise RuleError(f"cannot parse expression {text!r}: {exc.msg}", *where) from None
    except (RecursionError, MemoryError):
        raise RuleError(f"expression nested too deeply ({len(text)} characters)", *where) from None


def _depth(tree: ast.AST) -> int:
    """How deeply the syntax tree nests, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse_number(text: str) -> Decimal | None:
    """A stored value as a Decimal ("-1191313.14" -> Decimal, "" or text -> None)."""
    try:
        number = Decimal(str(text).replace(",", "").strip())
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _build(entry: dict, rules: RuleFile, at: tuple, fields: FieldDictionary, per_field: bool) -> Formula:
    where = (str(rules.path), rules.line(*at, "expression"))
    name = entry["name"]
    aliases = tuple(dict.fromkeys(entry.get("aliases", [])))
    if per_field:
        for text, key in [(name, "name"), *((a, "aliases") for a in aliases)]:
            if text.count(FIELD_PLACEHOLDER) != 1:
                raise rules.error(f"{text!r} must contain {FIELD_PLACEHOLDER} once", *at, key)
        if FIELD_PLACEHOLDER not in entry["expression"]:
            raise rules.error(f"expression must use {FIELD_PLACEHOLDER}", *at, "expression")
        tree = parse_expression(
            entry["expression"].replace(FIELD_PLACEHOLDER, _OPEN.value() + "{field}" + _CLOSE.value()), where
        )
    else:
        tree = _resolve(parse_expression(entry["expression"], where), fields, where)
    optional = frozenset(fields.canonical(o) or o for o in entry.get("optional", []))
    names = {op.field for op in _operands(tree)}
    for extra in optional - names:
        raise rules.error(f"optional operand {extra!r} is not in the expression", *at, "optional")
    return Formula(
        name=name,
        expression=entry["expression"],
        output=entry["output"],
        precision=entry["precision"],
        aliases=aliases,
        optional=optional,
        unit=entry.get("unit", ""),
        prefer_reported=entry.get("prefer_reported", False),
        where=f"{where[0]}:{where[1]}",
        tree=tree,
    )


def _convert(node: ast.AST, source: str, names: dict[str, str], text: str, where: tuple[str, int]) -> _Node:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(node.op)]
        return _Bin(
            op,
            _convert(node.left, source, names, text, where),
            _convert(node.right, source, names, text, where),
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _Neg(_convert(node.operand, source, names, text, where))
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        written = ast.get_source_segment(source, node) or ""
        if not _PLAIN_NUMBER.fullmatch(
            written
        ):  # 0x10, 1_000, 1e999999999: Python reads them, a report never
            raise RuleError(
                f"write numbers in a formula as plain decimals of at most {MAX_DIGITS} characters "
                f"(1000, 0.5), not {written!r} in {text!r}",
                *where,
            )
        return _Num(Decimal(written))
    if isinstance(node, ast.Name):
        return _Ref(Operand(_name(node, source, names)))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "prev"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Name)
    ):
        return _Ref(Operand(_name(node.args[0], source, names), -1))
    shown = ast.get_source_segment(source, node) or type(node).__name__
    for key, name in names.items():
        shown = shown.replace(key, _OPEN.value() + name + _CLOSE.value())
    raise RuleError(
        f"not allowed in a formula: {shown!r} in {text!r} "
        "(use numbers, field names, + - * /, parentheses and prev(field))",
        *where,
    )


def _name(node: ast.Name, source: str, names: dict[str, str]) -> str:
    # The source text, not node.id: Python NFKC-normalises identifiers.
    written = ast.get_source_segment(source, node) or node.id
    return names.get(written, written)


def _resolve(tree: _Node, fields: FieldDictionary, where: tuple[str, int]) -> _Node:
    if isinstance(tree, _Ref):
        canonical = fields.canonical(tree.operand.field)
        if canonical is None:
            raise RuleError(f"unknown field {tree.operand.field!r} (not in rules/fields.yaml)", *where)
        return _Ref(Operand(canonical, tree.operand.offset, tree.operand.field))
    return _map(tree, lambda sub: _resolve(sub, fields, where))


def _substitute(tree: _Node, canonical: str, written: str) -> _Node:
    if isinstance(tree, _Ref):
        name = tree.operand.field.replace(FIELD_PLACEHOLDER, canonical)
        shown = tree.operand.field.replace(FIELD_PLACEHOLDER, written)
        return _Ref(Operand(name, tree.operand.offset, shown))
    return _map(tree, lambda sub: _substitute(sub, canonical, written))


def _map(tree: _Node, fn) -> _Node:
    if isinstance(tree, _Neg):
        return _Neg(fn(tree.arg))
    if isinstance(tree, _Bin):
        return _Bin(tree.op, fn(tree.left), fn(tree.right))
    return tree


def _operands(tree: _Node) -> tuple[Operand, ...]:
    seen: dict[Operand, None] = {}
    _collect(tree, seen)
    return tuple(seen)


def _collect(tree: _Node, seen: dict[Operand, None]) -> None:
    if isinstance(tree, _Ref):
        seen[tree.operand] = None
    elif isinstance(tree, _Neg):
        _collect(tree.arg, seen)
    elif isinstance(tree, _Bin):
        _collect(tree.left, seen)
        _collect(tree.right, seen)


def _evaluate(tree: _Node, values: Mapping[Operand, Decimal | None]) -> Decimal:
    if isinstance(tree, _Num):
        return tree.value
    if isinstance(tree, _Ref):
        value = values.get(tree.operand)
        return Decimal(0) if value is None else value  # only optional operands reach here unset
    if isinstance(tree, _Neg):
        return -_evaluate(tree.arg, values)
    left, right = _evaluate(tree.left, values), _evaluate(tree.right, values)
    if tree.op == "+":
        return left + right
    if tree.op == "-":
        return left - right
    if tree.op == "*":
        return left * right
    return left / right


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def _render(tree: _Node, parent: int, prev_prefix: str | None, right_side: bool = False) -> str:
    if isinstance(tree, _Num):
        return f"{tree.value}"
    if isinstance(tree, _Ref):
        return tree.operand.label(prev_prefix)
    if isinstance(tree, _Neg):
        return f"-{_render(tree.arg, 3, prev_prefix)}"
    mine = _PRECEDENCE[tree.op]
    left = _render(tree.left, mine, prev_prefix)
    right = _render(tree.right, mine, prev_prefix, right_side=True)
    needs = mine < parent or (right_side and mine == parent)
    return f"({left}{tree.op}{right})" if needs else f"{left}{tree.op}{right}"


def traditional_form(text: str) -> str:
    """The Traditional-character form of a name (OpenCC s2t, the converter the field dictionary uses)."""
    from core.folding import opencc

    return opencc("s2t").convert(text)


def _split_where(where: str) -> tuple[str, int | None]:
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, None)
