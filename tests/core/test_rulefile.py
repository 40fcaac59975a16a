"""core/rulefile.py: a rule file's schema verdict, kept in the user's cache once the file is valid."""

import jsonschema
import pytest

from core.errors import InputError
from core.rulefile import RuleFile

SCHEMA = {
    "type": "object",
    "properties": {"pattern": {"type": "string", "format": "regex"}},
    "required": ["pattern"],
    "additionalProperties": False,
}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "finqa" / "valid-rules"


@pytest.fixture
def validations(monkeypatch):
    """How many times jsonschema validates (the real validator, counted)."""
    made = []
    real = jsonschema.Draft202012Validator

    def counted(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(jsonschema, "Draft202012Validator", counted)
    return made


def test_a_valid_file_is_validated_once_then_its_verdict_is_read(tmp_path, cache, validations):
    rules = tmp_path / "rules.yaml"
    rules.write_text("pattern: 売上高\n", encoding="utf-8")
    assert RuleFile.load(rules, SCHEMA).data == {"pattern": "売上高"}
    assert RuleFile.load(rules, SCHEMA).data == {"pattern": "売上高"}
    assert len(validations) == 1
    assert len(list(cache.iterdir())) == 1


def test_an_edited_file_is_validated_again_and_its_error_names_the_line(tmp_path, cache, validations):
    rules = tmp_path / "rules.yaml"
    rules.write_text("pattern: 売上高\n", encoding="utf-8")
    RuleFile.load(rules, SCHEMA)
    rules.write_text("# edited\npattern: '(売上高'\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rules\.yaml:2: pattern: "):
        RuleFile.load(rules, SCHEMA)
    assert len(validations) == 2


def test_an_invalid_file_is_never_kept(tmp_path, cache, validations):
    rules = tmp_path / "rules.yaml"
    rules.write_text("pattern: 1\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError, match=r"rules\.yaml:1: pattern: 1 is not of type 'string'"):
            RuleFile.load(rules, SCHEMA)
    assert len(validations) == 2
    assert not cache.exists()


def test_the_same_text_is_validated_again_against_another_schema(tmp_path, cache):
    rules = tmp_path / "rules.yaml"
    rules.write_text("pattern: 売上高\n", encoding="utf-8")
    RuleFile.load(rules, SCHEMA)
    stricter = {**SCHEMA, "properties": {"pattern": {"type": "string", "maxLength": 2}}}
    with pytest.raises(InputError, match=r"rules\.yaml:1: pattern: '売上高' is too long"):
        RuleFile.load(rules, stricter)


def test_a_cache_that_cannot_be_written_still_validates(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    rules = tmp_path / "rules.yaml"
    rules.write_text("pattern: 売上高\n", encoding="utf-8")
    assert RuleFile.load(rules, SCHEMA).data == {"pattern": "売上高"}
    rules.write_text("pattern: 1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rules\.yaml:1:"):
        RuleFile.load(rules, SCHEMA)
