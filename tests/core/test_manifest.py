"""The ingest manifest: round trip, change detection, atomic writes, damaged files."""

from __future__ import annotations

import hashlib

import pytest

from core.errors import InputError
from core.manifest import Manifest, ManifestEntry, file_sha256


def test_a_missing_manifest_is_empty(tmp_path):
    assert Manifest.load(tmp_path / "manifest.json").entries == {}


def test_entries_survive_a_save_and_load(tmp_path):
    manifest = Manifest.load(tmp_path / "manifest.json")
    manifest.record(ManifestEntry("finance/12", "finance/12.pdf", "ab" * 32, 1234, "k1", pages=3, chunks=20))
    manifest.save()
    again = Manifest.load(tmp_path / "manifest.json")
    assert again.entries == manifest.entries
    assert again.entries["finance/12"].chunks == 20


def test_a_document_is_current_only_with_the_same_bytes_and_inputs(tmp_path):
    manifest = Manifest(tmp_path / "m.json")
    manifest.record(ManifestEntry("a", "a.txt", "sha-1", 10, "key-1"))
    assert manifest.is_current("a", "sha-1", "key-1")
    assert not manifest.is_current("a", "sha-2", "key-1")
    assert not manifest.is_current("a", "sha-1", "key-2")
    assert not manifest.is_current("b", "sha-1", "key-1")
    manifest.forget("a")
    assert not manifest.is_current("a", "sha-1", "key-1")


def test_saving_leaves_no_temporary_files(tmp_path):
    manifest = Manifest(tmp_path / "m.json")
    manifest.record(ManifestEntry("a", "a.txt", "s", 1))
    manifest.save()
    manifest.save()
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_a_damaged_manifest_is_a_clear_error(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text('{"version": 1, "documents": {"a": ', encoding="utf-8")
    with pytest.raises(InputError, match="manifest.json: damaged ingest manifest"):
        Manifest.load(path)


def test_a_manifest_of_another_version_is_refused(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text('{"version": 99, "documents": {}}', encoding="utf-8")
    with pytest.raises(InputError, match="version 99"):
        Manifest.load(path)


def test_file_hash_is_the_sha256_of_the_bytes(tmp_path):
    path = tmp_path / "x.bin"
    data = bytes(range(256)) * 5000
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


def test_the_recorded_hash_stands_only_for_the_same_size_and_modification_time(tmp_path):
    manifest = Manifest(tmp_path / "m.json")
    manifest.record(ManifestEntry("a", "a.txt", "sha-1", 10, mtime_ns=111))
    assert manifest.known_sha256("a", 10, 111) == "sha-1"
    assert manifest.known_sha256("a", 11, 111) == ""
    assert manifest.known_sha256("a", 10, 112) == ""
    assert manifest.known_sha256("b", 10, 111) == ""
