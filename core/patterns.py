"""Vet rule regexes before they run: a pattern that backtracks catastrophically on a long question or line
costs every question its whole time budget (`--question-seconds`), or hangs an ingest.

Three shapes make Python's backtracking engine try every way of splitting a text between repeats:

- a repeat inside a repeat where both may take more than one step, as in `^(\\w+\\s?)*$`, `(a+)+b` or
  `(.*a){20}x` (a counted repeat of 3 or more times counts as a repeat: 20 nested `.*` are n**20 ways);
- alternatives that can start with the same character inside an unbounded repeat, as in `^(?:a|a?)+$`:
  each character can be taken by either, 2**n ways;
- three or more unbounded repeats in a row over the same characters, as in `\\d*\\d*\\d*!` or
  `\\s*(?:的)?\\s*(?:年)?\\s*` (the optional words may be absent): n**3 ways at each start, and so on;
  `\\s*(?:的\\s*)?(?:年\\s*)?` matches the same texts in one way.

Such patterns are refused (`finqa check` names file:line); a bounded inner repeat (`(\\d{1,3},)*`),
a repeat whose rounds end in a mark it cannot take (`(\\d+,)*`), alternatives that start differently
(`(?:保留|小数)+`) and two repeats in a row (`.*年.*`) are fine.
Possessive and atomic repeats never backtrack and are never refused. The guard is static and cannot see
every shape: what it misses still stops at the question's time budget.
"""

from __future__ import annotations

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT)  # possessive and atomic ones never backtrack
_ZERO_WIDTH = (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT)
_UNBOUNDED_FROM = 50  # {0,50} and up counts as unbounded: long enough to explode
_COUNTED_FROM = 3  # an outer repeat of 3 or more times multiplies the ways of the unbounded repeats inside it
# This many unbounded repeats in a row over the same characters: n**3 ways at each start, so n**4 for a search
# (`\\s*(?:的)?\\s*(?:年)?\\s*x` took 2.8 s on 200 spaces; two in a row, as in `.*年.*`, take milliseconds).
_ADJACENT_FROM = 3
# Characters an item may start with are tried on these and on every character the pattern names itself.
_SAMPLES = "aZ0_ \t\n.,!-(/\u4e2d\u5e74\u30a2\u3042\u3001"  # two Han, a katakana, a hiragana, a CJK comma


def backtracking_risk(pattern: str) -> str:
    """Why `pattern` can backtrack catastrophically (one of the three shapes of the module), or "".

    >>> backtracking_risk(r"^(\\w+\\s?)*$")
    'an unbounded repeat (+, *, {n,}) inside another repeated group'
    >>> backtracking_risk(r"^(?:a|a?)+$")
    'alternatives that can start with the same character inside an unbounded repeat'
    >>> backtracking_risk(r"\\d*\\d*\\d*!")
    '3 unbounded repeats in a row over the same characters'
    >>> backtracking_risk(r"(?:第[一二三四五六七八九十]+[章节])")
    ''
    """
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - a bad pattern is reported by re.compile, not here
        return ""
    alphabet = _alphabet(pattern, parsed)
    return _nested(parsed, alphabet, False, frozenset()) or _scan(list(parsed), alphabet)


def _nested(items, alphabet: str, inside_repeat: bool, follow: frozenset) -> str:
    """An unbounded repeat inside a repeated group that can also take what follows it (the rest of the group,
    or the group's next round): `(\\w+\\s?)*`, not `(\\d+,)*` nor `(?:の\\d+)*` where a mark ends each round."""
    items = list(items)
    for i, (op, arg) in enumerate(items):
        rest = items[i + 1 :]
        after = _first(rest, alphabet) | (follow if _nullable(rest) else frozenset())
        if op in _REPEATS:
            low, high, body = arg
            if inside_repeat and high >= _UNBOUNDED_FROM and _first(body, alphabet) & after:
                return "an unbounded repeat (+, *, {n,}) inside another repeated group"
            counted = high >= _COUNTED_FROM
            found = _nested(body, alphabet, inside_repeat or counted, after | _first(body, alphabet))
        elif op is sre_constants.SUBPATTERN:
            found = _nested(arg[-1], alphabet, inside_repeat, after)
        elif op is sre_constants.BRANCH:
            found = next(
                (f for f in (_nested(branch, alphabet, inside_repeat, after) for branch in arg[1]) if f), ""
            )
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _nested(arg[1], alphabet, inside_repeat, frozenset(alphabet))
        else:
            found = ""
        if found:
            return found
    return ""


def _scan(items: list, alphabet: str) -> str:
    """Overlapping alternatives inside an unbounded repeat, or a run of overlapping unbounded repeats, in this
    sequence or any sequence within it."""
    run, shared = 0, frozenset()
    for op, arg in _flat(items):
        if op in _REPEATS and arg[1] >= _UNBOUNDED_FROM:
            starts = _first(arg[2], alphabet)
            run, shared = (run + 1, shared & starts) if run and shared & starts else (1, starts)
            if run >= _ADJACENT_FROM:
                return f"{run} unbounded repeats in a row over the same characters"
        elif op not in _ZERO_WIDTH and not _nullable([(op, arg)]):
            run, shared = 0, frozenset()
        for inner, unbounded in _children(op, arg):
            if unbounded and _overlap(_branches(inner), alphabet):
                return "alternatives that can start with the same character inside an unbounded repeat"
            found = _scan(inner, alphabet)
            if found:
                return found
    return ""


def _flat(items) -> list:
    """The sequence with its plain groups opened: `(\\d*)(\\d*)` is two repeats in a row."""
    out = []
    for op, arg in items:
        if op is sre_constants.SUBPATTERN:
            out += _flat(arg[-1])
        else:
            out.append((op, arg))
    return out


def _children(op, arg) -> list[tuple[list, bool]]:
    """The sequences inside an item, each with whether an unbounded repeat holds it directly."""
    if op in _REPEATS:
        return [(list(arg[2]), arg[1] >= _UNBOUNDED_FROM)]
    if op is sre_constants.BRANCH:
        return [(list(branch), False) for branch in arg[1]]
    if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
        return [(list(arg[1]), False)]
    return []


def _branches(items: list) -> list[list]:
    """The alternatives a repeated body chooses between first (a body of one group holding them too)."""
    flat = _flat(items)
    return [list(b) for b in flat[0][1][1]] if flat and flat[0][0] is sre_constants.BRANCH else []


def _overlap(branches: list[list], alphabet: str) -> bool:
    firsts = [_first(branch, alphabet) for branch in branches]
    return any(a & b for i, a in enumerate(firsts) for b in firsts[i + 1 :])


def _first(items, alphabet: str) -> frozenset:
    """The characters (of `alphabet`) a match of this sequence can start with."""
    found: set = set()
    for op, arg in items:
        found |= _starts(op, arg, alphabet)
        if not _nullable([(op, arg)]):
            break
    return frozenset(found)


def _starts(op, arg, alphabet: str) -> set:
    if op is sre_constants.LITERAL:
        return {chr(arg)}
    if op is sre_constants.NOT_LITERAL:
        return {c for c in alphabet if c != chr(arg)}
    if op is sre_constants.ANY:
        return set(alphabet) - {"\n"}
    if op is sre_constants.IN:
        return {c for c in alphabet if _in(arg, c)}
    if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
        return set(_first(arg[2], alphabet))
    if op is sre_constants.SUBPATTERN or op is sre_constants.ATOMIC_GROUP:
        return set(_first(arg[-1] if op is sre_constants.SUBPATTERN else arg, alphabet))
    if op is sre_constants.BRANCH:
        return set().union(*(_first(branch, alphabet) for branch in arg[1]))
    if op in _ZERO_WIDTH:
        return set()
    return set(alphabet)  # a back reference, a conditional group: anything


def _in(items, char: str) -> bool:
    negate = bool(items) and items[0][0] is sre_constants.NEGATE
    hit = False
    for op, arg in items[negate:]:
        if op is sre_constants.LITERAL:
            hit = char == chr(arg)
        elif op is sre_constants.RANGE:
            hit = arg[0] <= ord(char) <= arg[1]
        elif op is sre_constants.CATEGORY:
            hit = _CATEGORIES.get(arg, lambda c: True)(char)
        if hit:
            break
    return hit != negate


_CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: str.isdecimal,
    sre_constants.CATEGORY_NOT_DIGIT: lambda c: not c.isdecimal(),
    sre_constants.CATEGORY_SPACE: str.isspace,
    sre_constants.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre_constants.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre_constants.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def _nullable(items) -> bool:
    """Whether the sequence can match the empty text."""
    for op, arg in items:
        if op in _ZERO_WIDTH:
            continue
        if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
            if arg[0] > 0 and not _nullable(arg[2]):
                return False
        elif op is sre_constants.SUBPATTERN:
            if not _nullable(arg[-1]):
                return False
        elif op is sre_constants.ATOMIC_GROUP:
            if not _nullable(arg):
                return False
        elif op is sre_constants.BRANCH:
            if not any(_nullable(branch) for branch in arg[1]):
                return False
        elif op not in (sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS):
            return False
    return True


def _alphabet(pattern: str, parsed) -> str:
    """The sample characters, every character the pattern writes, and the ends and middle of its ranges
    (`[\\u4e00-\\u9fff]` writes none of them)."""
    chars = set(_SAMPLES) | set(pattern)
    for low, high in _ranges(parsed):
        chars |= {chr(low), chr(high), chr((low + high) // 2)}
    return "".join(sorted(chars))


def _ranges(items):
    for op, arg in items:
        if op is sre_constants.IN:
            yield from (range_ for kind, range_ in arg if kind is sre_constants.RANGE)
        else:
            for inner, _ in _children(op, arg):
                yield from _ranges(inner)
            if op is sre_constants.SUBPATTERN or op is sre_constants.ATOMIC_GROUP:
                yield from _ranges(arg[-1] if op is sre_constants.SUBPATTERN else arg)
