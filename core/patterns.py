"""Vet rule regexes before they run: Python's `re` cannot be interrupted, so a pattern that backtracks
catastrophically on a long question hangs the whole run.

The classic cause is a repeat inside a repeat where both may take more than
one step, as in `^(\\w+\\s?)*$` or `(a|aa)+`: on a text that almost matches,
the engine tries every way of splitting it between the inner and the outer
repeat. Such patterns are refused; a bounded inner repeat (`(\\d{1,3},)*`)
is fine.

>>> nested_quantifier(r"^(\\w+\\s?)*$")
'an unbounded repeat (+, *, {n,}) inside another repeated group'
>>> nested_quantifier(r"(?:第[一二三四五六七八九十]+[章节])")
''
"""

from __future__ import annotations

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT)  # possessive and atomic ones never backtrack
_UNBOUNDED_FROM = 50  # {0,50} and up counts as unbounded: long enough to explode


def nested_quantifier(pattern: str) -> str:
    """Why `pattern` can backtrack catastrophically (an unbounded repeat inside another one), or ""."""
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - a bad pattern is reported by re.compile, not here
        return ""
    return _scan(parsed, inside_repeat=False)


def _scan(items, inside_repeat: bool) -> str:
    for op, arg in items:
        if op in _REPEATS:
            low, high, body = arg
            unbounded = high >= _UNBOUNDED_FROM
            if inside_repeat and unbounded:
                return "an unbounded repeat (+, *, {n,}) inside another repeated group"
            found = _scan(body, inside_repeat or unbounded)
        elif op is sre_constants.SUBPATTERN:
            found = _scan(arg[-1], inside_repeat)
        elif op is sre_constants.BRANCH:
            found = next((f for f in (_scan(branch, inside_repeat) for branch in arg[1]) if f), "")
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _scan(arg[1], inside_repeat)
        else:
            found = ""
        if found:
            return found
    return ""
