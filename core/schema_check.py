"""Whether a rule file's values meet its JSON schema, decided quickly for the keywords rule schemas use.

jsonschema's validator walks every value through generic machinery: about a fifth of what opening an engine
costs, paid again by every worker process, while rule files are almost always valid. `conforms` gives the same
verdict as `jsonschema.Draft202012Validator(schema, format_checker=FormatChecker())` for the keywords below, and
None (not sure) for anything else (another keyword, format or `$ref`, a value whose type the check does not
handle). Only a file it calls valid skips jsonschema: any other goes through jsonschema, which also words the
error a maintainer reads.

>>> conforms({"a": ["x"]}, {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}})
True
>>> conforms({"a": [1]}, {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}})
False
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Any

# Keywords that only describe: they never make a value invalid.
_ANNOTATIONS = frozenset(
    {"$defs", "$schema", "$id", "$comment", "title", "description", "default", "examples"}
)


_KINDS: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "object": dict,
    "array": list,
    "boolean": bool,
    "null": type(None),
}


class _Unsure(Exception):
    """The schema or the value is outside what this check decides; jsonschema must."""


def conforms(instance: Any, schema: dict) -> bool | None:
    """True when the value meets the schema, False when it does not, None when jsonschema must decide."""
    try:
        return _valid(instance, schema, schema)
    except _Unsure:
        return None
    except (re.error, TypeError):  # a bad pattern in the schema, a key that is no text: left to jsonschema
        return None


def _valid(instance: Any, schema: Any, root: dict) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise _Unsure
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise _Unsure
        if not check(instance, value, schema, root):
            return False
    return True


def _is_type(instance: Any, name: str) -> bool:
    kind = _KINDS.get(name)
    if kind is not None:
        return isinstance(instance, kind)
    if name not in ("integer", "number"):
        raise _Unsure
    if isinstance(instance, bool):
        return False  # jsonschema keeps booleans apart from numbers
    if isinstance(instance, int):
        return True
    if isinstance(instance, float) and name == "number":
        return True
    if isinstance(instance, (str, dict, list, type(None))):
        return False
    raise _Unsure  # 3.0 is an integer to jsonschema; Decimal and other numbers are left to it too


def _type(instance, value, schema, root) -> bool:
    names = [value] if isinstance(value, str) else value
    return any(_is_type(instance, name) for name in names)


def _enum(instance, value, schema, root) -> bool:
    if not isinstance(instance, str):
        raise _Unsure  # jsonschema's equality keeps 1 and True apart
    return instance in value


def _const(instance, value, schema, root) -> bool:
    if not isinstance(instance, str):
        raise _Unsure
    return instance == value


def _properties(instance, value, schema, root) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(_valid(instance[key], sub, root) for key, sub in value.items() if key in instance)


def _pattern_properties(instance, value, schema, root) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(
        _valid(item, sub, root)
        for pattern, sub in value.items()
        for key, item in instance.items()
        if re.search(pattern, key)
    )


def _additional_properties(instance, value, schema, root) -> bool:
    if not isinstance(instance, dict):
        return True
    known = schema.get("properties", {})
    patterns = "|".join(schema.get("patternProperties", {}))
    extras = [key for key in instance if key not in known and not (patterns and re.search(patterns, key))]
    if isinstance(value, dict):
        return all(_valid(instance[key], value, root) for key in extras)
    return bool(value) or not extras


def _property_names(instance, value, schema, root) -> bool:
    return not isinstance(instance, dict) or all(_valid(key, value, root) for key in instance)


def _required(instance, value, schema, root) -> bool:
    return not isinstance(instance, dict) or all(key in instance for key in value)


def _items(instance, value, schema, root) -> bool:
    if isinstance(value, list):
        raise _Unsure  # the items of older drafts
    if not isinstance(instance, list):
        return True
    return all(_valid(item, value, root) for item in instance[len(schema.get("prefixItems", [])) :])


def _prefix_items(instance, value, schema, root) -> bool:
    return not isinstance(instance, list) or all(
        _valid(item, sub, root) for item, sub in zip(instance, value)
    )


def _unique_items(instance, value, schema, root) -> bool:
    if not value or not isinstance(instance, list):
        return True
    if not all(isinstance(item, str) for item in instance):
        raise _Unsure
    return len(set(instance)) == len(instance)


def _pattern(instance, value, schema, root) -> bool:
    return not isinstance(instance, str) or bool(re.search(value, instance))


def _format(instance, value, schema, root) -> bool:
    if value != "regex":
        raise _Unsure
    if not isinstance(instance, str):
        return True
    try:
        re.compile(instance)
    except re.error:
        return False
    return True


def _ref(instance, value, schema, root) -> bool:
    prefix = "#/$defs/"
    if not isinstance(value, str) or not value.startswith(prefix) or "/" in value[len(prefix) :]:
        raise _Unsure
    target = root.get("$defs", {}).get(value[len(prefix) :])
    if target is None:
        raise _Unsure
    return _valid(instance, target, root)


def _not(instance, value, schema, root) -> bool:
    return not _valid(instance, value, root)


def _size(kind: type, holds: Callable[[int, int], bool]) -> Callable[..., bool]:
    """A bound on the size of a string, array or object; no constraint on other values."""

    def check(instance, value, schema, root) -> bool:
        return not isinstance(instance, kind) or holds(len(instance), value)

    return check


def _number(holds: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    """A bound on a number; no constraint on other values."""

    def check(instance, value, schema, root) -> bool:
        if isinstance(instance, bool) or not isinstance(instance, (int, float)):
            if isinstance(instance, numbers.Number) and not isinstance(instance, bool):
                raise _Unsure
            return True
        return holds(instance, value)

    return check


_KEYWORDS: dict[str, Callable[[Any, Any, dict, dict], bool]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "required": _required,
    "items": _items,
    "prefixItems": _prefix_items,
    "uniqueItems": _unique_items,
    "pattern": _pattern,
    "format": _format,
    "$ref": _ref,
    "not": _not,
    "minLength": _size(str, lambda n, limit: n >= limit),
    "maxLength": _size(str, lambda n, limit: n <= limit),
    "minItems": _size(list, lambda n, limit: n >= limit),
    "maxItems": _size(list, lambda n, limit: n <= limit),
    "minProperties": _size(dict, lambda n, limit: n >= limit),
    "maxProperties": _size(dict, lambda n, limit: n <= limit),
    "minimum": _number(lambda x, limit: x >= limit),
    "maximum": _number(lambda x, limit: x <= limit),
}
