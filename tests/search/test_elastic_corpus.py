"""A corpus is a named thing on the Elasticsearch server, with its manifest next to its data (real server)."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from ingestion.cli import main
from ingestion.pipeline import ingest
from search.backend import SearchQuery
from search.elastic import connect
from search.elastic_manifest import delete_corpus
from search.settings import IndexSettings, corpus_prefix, index_settings
from search.stores import open_text_index


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def corpus_of(root: Path) -> Path:
    write(
        root / "annual" / "report.txt",
        "甲乙科技股份有限公司\n2021年年度报告\n\n公司主营业务为光伏组件的研发与销售。\n",
    )
    write(root / "bank" / "notes.md", "# 信用卡业务\n\n本行信用卡中心发行联名卡，年费减免政策延续。\n")
    write(root / "facts.csv", "company,year,field,value,unit\n甲乙科技股份有限公司,2021,营业收入,1000,元\n")
    return root


@pytest.fixture
def corpora(es_url, tmp_path):
    """make(name) -> a small corpus in a folder of that name (unique per test); their indices are deleted after."""
    made: list[IndexSettings] = []
    tag = uuid.uuid4().hex[:8]

    def make(name: str) -> Path:
        corpus = corpus_of(tmp_path / f"{name}-{tag}")
        made.append(
            IndexSettings(
                tmp_path / "unused",
                backend="elasticsearch",
                es_url=es_url,
                es_prefix=corpus_prefix(corpus.name),
            )
        )
        return corpus

    yield make
    for settings in made:
        delete_corpus(settings)


def run(corpus: Path, index: Path, es_url: str, es_index: str = ""):
    settings = index_settings(index, "elasticsearch", es_url, es_index, corpus)
    return ingest(corpus, settings, workers=1, progress=False)


def found(index: Path, es_url: str, text: str) -> set[str]:
    text_index = open_text_index(index_settings(index, "elasticsearch", es_url))
    try:
        return {hit.chunk.doc_id for hit in text_index.search(SearchQuery(text=text, limit=50))}
    finally:
        text_index.close()


def test_two_corpora_on_one_server_never_mix(es_url, tmp_path, corpora):
    a, b = corpora("a"), corpora("b")
    run(a, tmp_path / "ia", es_url)
    run(b, tmp_path / "ib", es_url)
    (b / "annual" / "report.txt").unlink()
    assert run(b, tmp_path / "ib", es_url).counts["removed"] == 1
    assert found(tmp_path / "ia", es_url, "光伏组件") == {"annual/report"}  # a's copy is untouched
    assert found(tmp_path / "ib", es_url, "光伏组件") == set()
    assert run(a, tmp_path / "ia", es_url).counts["unchanged"] == 3


def test_the_manifest_on_the_server_lets_any_index_dir_resume(es_url, tmp_path, corpora):
    corpus = corpora("shared")
    assert run(corpus, tmp_path / "first", es_url).counts["ingested"] == 3
    # another machine, another (empty) INDEX_DIR, the same corpus name: nothing is done twice
    summary = run(corpus, tmp_path / "second", es_url, es_index=corpus.name)
    assert summary.counts == {"ingested": 0, "unchanged": 3, "failed": 0, "removed": 0}


def test_a_wiped_server_is_noticed_and_the_corpus_rebuilt(es_url, tmp_path, corpora):
    corpus = corpora("wiped")
    index = tmp_path / "index"
    run(corpus, index, es_url)
    delete_corpus(index_settings(index, "elasticsearch", es_url))  # what a stop/start of the test server does
    summary = run(corpus, index, es_url)
    assert summary.counts["ingested"] == 3 and summary.counts["unchanged"] == 0
    assert found(index, es_url, "光伏组件") == {"annual/report"}


def test_a_lost_chunks_index_is_noticed_and_rebuilt(es_url, tmp_path, corpora):
    corpus = corpora("lost")
    index = tmp_path / "index"
    run(corpus, index, es_url)
    settings = index_settings(index, "elasticsearch", es_url)
    client = connect(es_url)
    client.indices.delete(index=f"{settings.es_prefix}-chunks")
    client.close()
    summary = run(corpus, index, es_url)
    assert summary.counts["ingested"] == 3
    assert any("text index" in w for w in summary.warnings)
    assert found(index, es_url, "光伏组件") == {"annual/report"}


def test_deleting_a_corpus_removes_its_data_and_manifest(es_url, tmp_path, corpora, capsys):
    corpus = corpora("deleted")
    index = tmp_path / "index"
    run(corpus, index, es_url)
    prefix = index_settings(index, "elasticsearch", es_url).es_prefix
    assert main(["--delete", "--index", str(index), "--backend", "elasticsearch", "--es-url", es_url]) == 0
    assert "deleted" in capsys.readouterr().out
    client = connect(es_url)
    try:
        assert not any(
            client.indices.exists(index=f"{prefix}-{suffix}") for suffix in ("chunks", "facts", "manifest")
        )
    finally:
        client.close()
    assert not (index / "manifest.json").exists()
    shutil.rmtree(index)
