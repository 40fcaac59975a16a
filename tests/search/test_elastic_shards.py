"""Split ingestion: N processes ingest disjoint shards of one corpus into one Elasticsearch corpus (real server)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from core.manifest import Manifest
from core.rulefile import PROJECT_ROOT
from ingestion.pipeline import IngestOptions, ingest
from search.backend import SearchQuery
from search.elastic_manifest import ElasticManifest, delete_corpus
from search.settings import IndexSettings, corpus_prefix, index_settings
from search.stores import open_fact_store, open_text_index

COMPANIES = ("甲乙科技股份有限公司", "丙丁制造股份有限公司", "戊己银行股份有限公司", "庚辛保险股份有限公司")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    for n, company in enumerate(COMPANIES):
        for year in (2021, 2022):
            write(
                root / "annual" / f"{company}-{year}.txt",
                f"{company}\n{year}年年度报告\n\n第三节 管理层讨论与分析\n报告期内公司营业收入{1000 + n * 100 + year - 2021}万元，"
                f"主营业务保持稳定。\n",
            )
        write(
            root / "facts" / f"{n}.csv",
            f"company,year,field,value,unit\n{company},2022,营业收入,{1000 + n},元\n"
            f"{company},2022,净利润,{100 + n},元\n",
        )
    return root


@pytest.fixture
def names(es_url):
    made = []

    def name(label: str) -> str:
        made.append(f"{label}-{uuid.uuid4().hex[:8]}")
        return made[-1]

    yield name
    for made_name in made:
        delete_corpus(
            IndexSettings(
                Path("unused"), backend="elasticsearch", es_url=es_url, es_prefix=corpus_prefix(made_name)
            )
        )


def contents(settings: IndexSettings) -> dict:
    """What a corpus holds on the server: its manifest's documents and counts, chunk hits, facts, company-years."""
    mirror = ElasticManifest(settings)
    manifest = Manifest.load(settings.manifest_path, mirror)
    mirror.close()
    text = open_text_index(settings)
    facts = open_fact_store(settings)
    try:
        hits = sorted(h.chunk.chunk_id for h in text.search(SearchQuery(text="营业收入 主营业务", limit=100)))
        return {
            "documents": {d: (e.sha256, e.chunks, e.facts) for d, e in manifest.entries.items()},
            "chunks": text.count(),
            "facts": facts.count(),
            "hits": hits,
            "reports": facts.reports(),
            "lookup": facts.lookup(COMPANIES[1], [2022], ["营业收入"]),
        }
    finally:
        text.close()
        facts.close()


def test_two_shard_processes_make_the_same_corpus_as_one(es_url, tmp_path, corpus, names):
    single = index_settings(tmp_path / "single", "elasticsearch", es_url, names("single"))
    ingest(corpus, single, workers=1, progress=False)

    split_name = names("split")
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "parser.ingest",
                str(corpus),
                "--index",
                str(tmp_path / f"shard{i}"),
                "--backend",
                "elasticsearch",
                "--es-url",
                es_url,
                "--es-index",
                split_name,
                "--shard",
                f"{i}/2",
                "--workers",
                "1",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (1, 2)
    ]
    outputs = [p.communicate(timeout=600) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    split = index_settings(tmp_path / "shard1", "elasticsearch", es_url, split_name)
    assert contents(split) == contents(single)
    assert len(contents(split)["documents"]) == 12

    # a shard run again does nothing, and another INDEX_DIR on "another machine" resumes from the server
    again = ingest(corpus, split, workers=1, progress=False, shard=(2, 2))
    assert again.counts["ingested"] == 0 and again.counts["unchanged"] > 0
    fresh = index_settings(tmp_path / "elsewhere", "elasticsearch", es_url, split_name)
    assert ingest(corpus, fresh, workers=1, progress=False).counts["unchanged"] == 12


def test_shards_are_disjoint_and_cover_the_corpus():
    ids = [f"annual/{n}" for n in range(200)]
    owners = [[i for i in (1, 2, 3) if IngestOptions(workers=1, shard=(i, 3)).owns(doc_id)] for doc_id in ids]
    assert all(len(found) == 1 for found in owners)
    assert {found[0] for found in owners} == {1, 2, 3}
