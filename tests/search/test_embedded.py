"""search/embedded.py: the tantivy index on disk — persistence, the writer lock, damaged directories."""

from __future__ import annotations

import dataclasses

import pytest
import tantivy

from core.errors import InputError
from search.backend import SearchQuery
from search.embedded import EmbeddedIndex
from search.settings import IndexSettings
from search.stores import open_text_index


@pytest.fixture
def settings(tmp_path):
    return IndexSettings(tmp_path / "index")


def fill(settings, tokenizer, chunks):
    with EmbeddedIndex(settings, tokenizer) as index:
        index.add(chunks)
        index.commit()


def test_the_index_lives_in_text_dir_and_survives_reopening(settings, search_tokenizer, corpus):
    fill(settings, search_tokenizer, corpus)
    assert (settings.text_dir / "meta.json").is_file()
    with EmbeddedIndex(settings, search_tokenizer) as reopened:
        assert reopened.count() == len(corpus)
        assert reopened.search(SearchQuery(text="保單借款"))[0].chunk.doc_id in {
            "insurance/7",
            "insurance/241",
        }


def test_open_text_index_picks_the_embedded_backend(settings, search_tokenizer):
    index = open_text_index(settings, search_tokenizer)
    assert isinstance(index, EmbeddedIndex) and index.tokenizer is search_tokenizer
    index.close()


def test_changes_are_invisible_until_commit_and_dropped_on_close_without_it(
    settings, search_tokenizer, corpus
):
    index = EmbeddedIndex(settings, search_tokenizer)
    index.add(corpus[:3])
    assert index.count() == 0
    index.commit()
    assert index.count() == 3
    index.add(corpus[3:])
    index.close()
    with EmbeddedIndex(settings, search_tokenizer) as reopened:
        assert reopened.count() == 3


def test_a_chunk_replaced_in_another_process_is_read_anew_by_an_open_index(
    settings, search_tokenizer, corpus
):
    chunk = corpus[0]
    fill(settings, search_tokenizer, [chunk])
    with EmbeddedIndex(settings, search_tokenizer) as reader:
        query = SearchQuery(text=chunk.text[:20])
        assert reader.search(query)[0].chunk.text == chunk.text  # read once: kept decoded
        fill(settings, search_tokenizer, [dataclasses.replace(chunk, text=chunk.text[:20] + "（改訂）")])
        assert reader.search(query)[0].chunk.text == chunk.text[:20] + "（改訂）"
        assert reader.count() == 1


def test_a_second_writer_gets_a_clear_error_naming_the_directory(settings, search_tokenizer, corpus):
    with EmbeddedIndex(settings, search_tokenizer) as writer:
        writer.add(corpus[:1])
        with EmbeddedIndex(settings, search_tokenizer) as other:
            with pytest.raises(InputError) as error:
                other.add(corpus[1:2])
            assert str(error.value).startswith(f"{settings.text_dir}: ")
            assert "locked by another writer" in str(error.value)
            assert other.search(SearchQuery(text="营业收入")) == []  # reading is fine meanwhile
        writer.commit()
    with EmbeddedIndex(settings, search_tokenizer) as after:  # the lock goes with the writer
        after.add(corpus[1:2])
        after.commit()
        assert after.count() == 2


def test_a_damaged_directory_is_reported_not_overwritten(settings, search_tokenizer, corpus):
    fill(settings, search_tokenizer, corpus)
    meta = settings.text_dir / "meta.json"
    meta.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError) as error:
        EmbeddedIndex(settings, search_tokenizer)
    assert str(error.value).startswith(f"{settings.text_dir}: ") and "damaged" in str(error.value)
    assert "\n" not in str(error.value)
    assert meta.read_text(encoding="utf-8") == "{not json"


def test_a_missing_segment_file_is_reported(settings, search_tokenizer, corpus):
    fill(settings, search_tokenizer, corpus)
    for store in settings.text_dir.glob("*.store"):
        store.unlink()
    with pytest.raises(InputError, match="damaged"):
        EmbeddedIndex(settings, search_tokenizer)


def test_an_index_with_another_schema_is_refused(settings, search_tokenizer):
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=True)
    settings.text_dir.mkdir(parents=True)
    tantivy.Index(builder.build(), path=str(settings.text_dir))
    with pytest.raises(InputError, match="schema differs"):
        EmbeddedIndex(settings, search_tokenizer)


def test_an_unwritable_location_is_reported(tmp_path, search_tokenizer):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot create"):
        EmbeddedIndex(IndexSettings(blocker / "index"), search_tokenizer)


def test_writer_memory_is_checked(settings, search_tokenizer):
    with pytest.raises(InputError, match="writer_heap_mb"):
        EmbeddedIndex(settings, search_tokenizer, writer_heap_mb=1)
