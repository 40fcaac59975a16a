"""search/embedded.py: the tantivy index on disk — persistence, the writer lock, damaged directories."""

from __future__ import annotations

import dataclasses

import pytest
import tantivy

from core.errors import InputError
from core.records import Chunk
from search.added_chunks import AddedChunks
from search.backend import SearchQuery
from search.embedded import STORED_TOKENIZER, EmbeddedIndex
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


def test_every_field_of_a_chunk_comes_back_from_the_stored_form(settings, search_tokenizer):
    chunk = Chunk(
        "S100/0101#t7",
        "S100/0101",
        '売上高 1,234 "引用"\n次の行',
        titles=("第一部", "【経理の状況】"),
        page_start=3,
        page_end=4,
        company="甲株式会社",
        year=2023,
        kind="table",
        cell_id="S100-0101-tab7-r2c3",
        period="2023FY",
    )
    fill(settings, search_tokenizer, [chunk, dataclasses.replace(chunk, chunk_id="S100/0101#t8", year=None)])
    with EmbeddedIndex(settings, search_tokenizer) as index:
        found = {hit.chunk.chunk_id: hit.chunk for hit in index.search(SearchQuery(text="売上高"))}
    assert found == {
        "S100/0101#t7": chunk,
        "S100/0101#t8": dataclasses.replace(chunk, chunk_id="S100/0101#t8", year=None),
    }


@pytest.mark.parametrize(
    "stored",
    [
        None,
        "",
        "{not json",
        '{"chunk_id": "d#0"}',
        '["d#0", "d"]',
        '["d#0","d","x",3,0,0,"","","t","",""]',
        '["d#0","d","x",[],0,0,"",null,"t","",""]]',  # a whole chunk, then more
    ],
)
def test_a_damaged_stored_chunk_is_reported_not_raised_as_another_error(
    settings, search_tokenizer, corpus, stored
):
    fill(settings, search_tokenizer, corpus[:1])
    raw = tantivy.Index.open(str(settings.text_dir))
    raw.register_tokenizer(STORED_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw()).build())
    raw.reload()
    searcher = raw.searcher()
    (stored_field,) = searcher.doc(searcher.search(tantivy.Query.all_query()).hits[0][1]).to_dict()
    writer = raw.writer(heap_size=20_000_000, num_threads=1)
    writer.delete_all_documents()
    doc = tantivy.Document()
    for field, value in (
        ("chunk_id", "d#0"),
        ("doc_id", "d"),
        ("kind", "text"),
        ("body", "损坏"),
        ("titles", "∅"),
        (stored_field, stored),
    ):
        if value is not None:
            doc.add_text(field, value)
    writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    with EmbeddedIndex(settings, search_tokenizer) as index, pytest.raises(InputError) as error:
        index.search(SearchQuery(text="损坏"))
    assert "cannot read the text index" in str(error.value) and "ingest again" in str(error.value)


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


def test_writer_memory_and_the_chunks_kept_are_checked(settings, search_tokenizer):
    with pytest.raises(InputError, match="writer_heap_mb"):
        EmbeddedIndex(settings, search_tokenizer, writer_heap_mb=1)
    with pytest.raises(InputError, match="kept_chunks"):
        EmbeddedIndex(settings, search_tokenizer, kept_chunks=-1)


def _segments(settings) -> int:
    return tantivy.Index.open(str(settings.text_dir)).searcher().num_segments


def _ranked(index, texts) -> list[list[tuple[str, float]]]:
    return [[(h.chunk.chunk_id, h.score) for h in index.search(SearchQuery(text=t, limit=20))] for t in texts]


QUERIES = ("营业收入", "保單借款", "負債合計", "営業収益")


def test_compact_writes_an_index_of_many_commits_as_one_segment_that_answers_alike(
    settings, search_tokenizer, corpus
):
    with EmbeddedIndex(settings, search_tokenizer) as index:
        for chunk in corpus:  # one commit, one segment, per chunk, as an ingest's batches make them
            index.add([chunk])
            index.commit()
        before = _ranked(index, QUERIES)
        assert _segments(settings) > 1
        assert index.compact()
        assert _segments(settings) == 1 and index.count() == len(corpus)
        assert _ranked(index, QUERIES) == before
        assert not index.compact()  # one segment: nothing to do
    with EmbeddedIndex(settings, search_tokenizer) as reopened:
        assert _ranked(reopened, QUERIES) == before


def test_compact_keeps_the_live_copy_of_a_replaced_chunk_and_drops_deleted_documents(
    settings, search_tokenizer, corpus
):
    changed = dataclasses.replace(corpus[0], text="营业收入 储能电站")
    with EmbeddedIndex(settings, search_tokenizer) as index:
        index.add(corpus)
        index.commit()
        index.add([changed])
        index.delete_documents([corpus[-1].doc_id])
        index.commit()
        assert index.compact()
        assert _segments(settings) == 1 and index.count() == len(corpus) - 1
        assert [h.chunk for h in index.search(SearchQuery(text="储能电站"))] == [changed]
        assert not index.search(SearchQuery(text="", doc_ids=(corpus[-1].doc_id,)))
        assert index.search(SearchQuery(text="", doc_ids=(corpus[-2].doc_id,)))


def test_compact_leaves_an_index_holding_chunks_another_writer_added(settings, search_tokenizer, corpus):
    fill(settings, search_tokenizer, corpus[:3])
    with EmbeddedIndex(settings, search_tokenizer) as index:
        index.add(corpus[3:])
        index.commit()
        assert not index.compact()  # the first writer's tokens were not kept: tantivy's merges are theirs
        assert index.count() == len(corpus) and _segments(settings) == 2


def test_compact_is_left_to_tantivy_past_the_chunks_a_writer_keeps(settings, search_tokenizer, corpus):
    with EmbeddedIndex(settings, search_tokenizer, kept_chunks=len(corpus) - 1) as index:
        for start in range(0, len(corpus), 4):
            index.add(corpus[start : start + 4])
            index.commit()
        assert not index.compact()
        assert _segments(settings) > 1 and index.count() == len(corpus)


def test_compact_waits_for_a_commit(settings, search_tokenizer, corpus):
    with EmbeddedIndex(settings, search_tokenizer) as index:
        index.add(corpus[:3])
        index.commit()
        index.add(corpus[3:])
        assert not index.compact()
        index.commit()
        assert index.compact() and index.count() == len(corpus)


def test_an_interrupted_compaction_keeps_the_index_as_committed(
    settings, search_tokenizer, corpus, monkeypatch
):
    index = EmbeddedIndex(settings, search_tokenizer)
    for start in range(0, len(corpus), 4):  # fewer segments than tantivy merges (8): the layout stays put
        index.add(corpus[start : start + 4])
        index.commit()
    before, segments = _ranked(index, QUERIES), _segments(settings)
    assert segments > 1

    real = AddedChunks.in_chunk_order

    def interrupted(self):  # Ctrl-C once the rewrite has begun
        records = real(self)
        yield next(records)
        raise KeyboardInterrupt

    monkeypatch.setattr(AddedChunks, "in_chunk_order", interrupted)
    with pytest.raises(KeyboardInterrupt):
        index.compact()
    index.close()
    with EmbeddedIndex(settings, search_tokenizer) as reopened:
        assert reopened.count() == len(corpus) and _segments(settings) == segments
        assert _ranked(reopened, QUERIES) == before
