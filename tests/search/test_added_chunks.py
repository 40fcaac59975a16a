"""search/added_chunks.py: what a writer session added, spilled beside the index, as the index holds it."""

from __future__ import annotations

import pytest

from core.errors import StoreError
from search.added_chunks import AddedChunks


def _fields(chunk_id: str, body: str) -> tuple:
    return (chunk_id, body, ("doc", "doc/a"), b'{"text": "\xe5\x96\xb6\xe6\xa5\xad"}')


def test_the_live_chunks_come_back_in_chunk_id_order_with_their_fields_whole(tmp_path):
    added = AddedChunks(tmp_path)
    added.add("doc/b#1", "doc/b", _fields("doc/b#1", "売上 高"))
    added.add("doc/a#0", "doc/a", _fields("doc/a#0", "営業 収益"))
    assert len(added) == 2
    assert list(added.in_chunk_order()) == [_fields("doc/a#0", "営業 収益"), _fields("doc/b#1", "売上 高")]
    added.close()
    assert len(added) == 0


def test_a_chunk_added_again_is_replaced_and_a_deleted_document_forgotten(tmp_path):
    added = AddedChunks(tmp_path)
    added.add("doc/a#0", "doc/a", _fields("doc/a#0", "old"))
    added.add("doc/b#0", "doc/b", _fields("doc/b#0", "kept"))
    added.add("doc/a#0", "doc/a", _fields("doc/a#0", "new"))
    assert [fields[1] for fields in added.in_chunk_order()] == ["new", "kept"]
    added.delete_documents(["doc/a", "doc/unknown"])
    assert [fields[0] for fields in added.in_chunk_order()] == ["doc/b#0"]
    added.close()


def test_a_chunk_id_moved_to_another_document_survives_the_old_documents_deletion(tmp_path):
    added = AddedChunks(tmp_path)
    added.add("shared#0", "doc/a", _fields("shared#0", "first"))
    added.add("shared#0", "doc/b", _fields("shared#0", "second"))
    added.delete_documents(["doc/a"])  # the index deletes by the doc_id term: the copy of doc/b stays
    assert [fields[1] for fields in added.in_chunk_order()] == ["second"]
    added.close()


def test_the_spill_file_is_unnamed_and_leaves_nothing_behind(tmp_path):
    added = AddedChunks(tmp_path)
    added.add("doc/a#0", "doc/a", _fields("doc/a#0", "body"))
    assert list(tmp_path.iterdir()) == []
    added.close()


def test_an_unwritable_folder_is_a_store_error_naming_it(tmp_path):
    with pytest.raises(StoreError, match="cannot write beside the text index"):
        AddedChunks(tmp_path / "missing").add("doc/a#0", "doc/a", _fields("doc/a#0", "body"))


def test_past_its_limit_nothing_is_kept_and_the_overflow_is_told(tmp_path):
    added = AddedChunks(tmp_path, limit=2)
    added.add("doc/a#0", "doc/a", _fields("doc/a#0", "one"))
    added.add("doc/a#1", "doc/a", _fields("doc/a#1", "two"))
    added.add("doc/a#1", "doc/a", _fields("doc/a#1", "two again"))  # a replacement is no new chunk
    assert len(added) == 2 and not added.overflowed
    added.add("doc/b#0", "doc/b", _fields("doc/b#0", "three"))
    assert added.overflowed and len(added) == 0 and list(added.in_chunk_order()) == []
    added.add("doc/c#0", "doc/c", _fields("doc/c#0", "four"))
    assert len(added) == 0
    added.close()
    assert not added.overflowed
