import jsonschema
import pytest

from core.fields import FIELDS_SCHEMA
from core.rulefile import RuleFile
from core.schema_check import conforms
from core.vocabulary import SCHEMAS

RULES = {
    "type": "object",
    "required": ["rules"],
    "additionalProperties": False,
    "properties": {
        "rules": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["id"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z_]+$"},
                    "pattern": {"type": "string", "minLength": 1, "format": "regex"},
                    "weight": {"type": "number", "minimum": 0, "maximum": 1},
                    "count": {"type": "integer", "minimum": 1},
                    "kind": {"enum": ["a", "b"]},
                    "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
                    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                    "names": {"type": "object", "propertyNames": {"not": {"pattern": "Member$"}}},
                    "place": {"$ref": "#/$defs/place"},
                },
            },
        }
    },
    "$defs": {"place": {"type": "object", "minProperties": 1}},
}


def _jsonschema_valid(data, schema) -> bool:
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).is_valid(data)


@pytest.mark.parametrize(
    "rule",
    [
        {"id": "ok", "pattern": "年度?", "weight": 0.5, "count": 2, "kind": "a", "pair": ["x", 1]},
        {"id": "ok", "tags": ["a", "b"], "names": {"Sales": 1}, "place": {"k": 1}},
        {"id": "Bad"},
        {"id": "ok", "pattern": "年度("},  # no regex
        {"id": "ok", "pattern": ""},
        {"id": "ok", "weight": 2},
        {"id": "ok", "weight": True},  # a boolean is no number to jsonschema
        {"id": "ok", "count": 0},
        {"id": "ok", "kind": "c"},
        {"id": "ok", "pair": ["x", "y"]},
        {"id": "ok", "tags": ["a", "a"]},
        {"id": "ok", "names": {"SalesMember": 1}},
        {"id": "ok", "place": {}},
        {"id": "ok", "other": 1},
        {"pattern": "x"},
    ],
)
def test_the_quick_verdict_is_jsonschemas(rule):
    data = {"rules": [rule]}
    assert conforms(data, RULES) is _jsonschema_valid(data, RULES)


def test_what_it_does_not_decide_is_left_to_jsonschema():
    assert conforms({"a": 1}, {"type": "object", "dependentRequired": {"a": ["b"]}}) is None
    assert conforms("x", {"type": "string", "format": "email"}) is None
    assert conforms(3.0, {"type": "integer"}) is None  # an integer to jsonschema
    assert conforms([1, True], {"type": "array", "uniqueItems": True}) is None


def test_the_shipped_rule_files_conform_to_their_schemas():
    from core.rulebook import active

    for name, schema in SCHEMAS.items():
        path = active().rules_dir / f"{name}.yaml"
        if path.exists():
            assert conforms(RuleFile.load(path).data, schema) is True, name
    assert conforms(RuleFile.load(active().rules_dir / "fields.yaml").data, FIELDS_SCHEMA) is True


def test_a_file_the_check_rejects_still_gets_jsonschemas_error_at_its_line(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text("rules:\n  - id: ok\n  - id: ok\n    weight: 2\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"rules\.yaml:4: rules/1/weight: 2 is greater than the maximum of 1"):
        RuleFile.load(path, RULES)
