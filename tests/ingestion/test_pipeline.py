"""Ingestion: the CLI, document ids, incremental runs, resuming, bad input, a small real corpus, and
issue 15's cases of a careless or hostile user: lost stores, bad paths, resource bombs."""

from __future__ import annotations

import ctypes
import faulthandler
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from core.manifest import Manifest
from core.rulefile import PROJECT_ROOT
from ingestion import pipeline, workers, writer
from ingestion.cli import main
from ingestion.pipeline import ingest
from ingestion.sources import Source, find_sources
from ingestion.workers import parse_source
from parser.html import read_html
from parser.metadata import MetadataFinder
from parser.ocr import render_page
from parser.settings import ParseSettings, TableLimits
from search.backend import SearchQuery
from search.settings import IndexSettings
from search.sqlite_facts import SqliteFactStore
from search.stores import open_text_index

REPORT_A = "2022-04-20__甲乙科技股份有限公司__600001__甲乙科技__2021年__年度报告"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def small_pdf(path: Path, text: str = "Quarterly report page one", **canvas_options) -> Path:
    from reportlab.pdfgen import canvas

    path.parent.mkdir(parents=True, exist_ok=True)
    pdf = canvas.Canvas(str(path), **canvas_options)
    for line in range(3):
        pdf.drawString(72, 720 - 20 * line, f"{text} line {line}")
    pdf.showPage()
    pdf.save()
    return path


def make_corpus(root: Path) -> Path:
    write(
        root / f"{REPORT_A}.txt",
        "甲乙科技股份有限公司\n2021年年度报告\n\n第三节 管理层讨论与分析\n报告期内，公司主营业务为光伏组件的研发与销售。\n",
    )
    write(root / "bank" / "notes.md", "# 信用卡业务\n\n本行信用卡中心发行联名卡，年费减免政策延续。\n")
    write(
        root / "facts.csv",
        "company,year,field,value,unit\n甲乙科技股份有限公司,2021,营业收入,1000,元\n"
        "丙丁股份有限公司,2021,营业收入,800,元\n",
    )
    return root


def run(corpus: Path, index: Path, **options):
    options.setdefault("workers", 1)
    return ingest(corpus, IndexSettings(index), progress=False, **options)


def found(index: Path, text: str) -> set[str]:
    text_index = open_text_index(IndexSettings(index))
    try:
        return {hit.chunk.doc_id for hit in text_index.search(SearchQuery(text=text, limit=50))}
    finally:
        text_index.close()


def chunk_count(index: Path) -> int:
    text_index = open_text_index(IndexSettings(index))
    try:
        return text_index.count()
    finally:
        text_index.close()


def by_path(summary) -> dict:
    return {f.path: f for f in summary.files}


# -- the CLI ---------------------------------------------------------------------------------------


def test_cli_exits_0_when_every_file_is_ingested_and_writes_the_report(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus")
    assert main([str(corpus), "--index", str(tmp_path / "index"), "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 ingested, 0 unchanged, 0 failed, 0 removed" in out
    report = json.loads((tmp_path / "index" / "ingest_report.json").read_text(encoding="utf-8"))
    assert report["counts"] == {"ingested": 3, "unchanged": 0, "failed": 0, "removed": 0}
    assert {f["path"]: f["status"] for f in report["files"]} == {
        f"{REPORT_A}.txt": "ingested",
        "bank/notes.md": "ingested",
        "facts.csv": "ingested",
    }
    assert all(f["chunks"] > 0 for f in report["files"] if f["path"].endswith((".txt", ".md")))


def test_cli_exits_3_when_a_file_fails_and_keeps_the_others(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus")
    (corpus / "empty.pdf").write_bytes(b"")
    assert main([str(corpus), "--index", str(tmp_path / "index"), "--workers", "1"]) == 3
    out = capsys.readouterr().out
    assert "3 ingested, 0 unchanged, 1 failed" in out
    assert "failed: empty.pdf: empty file (0 bytes)" in out
    assert found(tmp_path / "index", "光伏组件") == {REPORT_A}


def test_cli_exits_2_on_a_missing_corpus_directory(tmp_path, capsys):
    assert main([str(tmp_path / "nowhere"), "--index", str(tmp_path / "index")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {tmp_path / 'nowhere'}: corpus directory not found"


def test_cli_exits_2_on_an_unknown_backend(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus")
    assert main([str(corpus), "--index", str(tmp_path / "index"), "--backend", "lucene"]) == 2
    assert "unknown backend 'lucene'" in capsys.readouterr().err


def test_cli_usage_errors_exit_2_from_the_command_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "parser.ingest", str(tmp_path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "--index" in done.stderr
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "parser.ingest",
            str(tmp_path / "missing"),
            "--index",
            str(tmp_path / "index"),
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.strip().endswith("corpus directory not found")
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_locked_index_is_one_clear_line_and_a_nonzero_exit(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus")
    holder = open_text_index(IndexSettings(tmp_path / "index"))
    holder.delete_documents([])  # takes the writer lock, as a running ingest does
    try:
        assert main([str(corpus), "--index", str(tmp_path / "index")]) == 2
    finally:
        holder.close()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "locked" in err


@pytest.mark.parametrize("damaged", ["facts.sqlite", "text/meta.json", "manifest.json"])
def test_a_damaged_index_directory_is_one_clear_line_and_a_nonzero_exit(tmp_path, capsys, damaged):
    corpus = make_corpus(tmp_path / "corpus")
    write(tmp_path / "index" / damaged, "this is not what belongs here " * 100)
    assert main([str(corpus), "--index", str(tmp_path / "index")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "damaged" in err, err


# -- document ids ----------------------------------------------------------------------------------


def test_document_ids_are_relative_paths_without_extension(tmp_path):
    write(tmp_path / "finance" / "12.pdf", "x")
    write(tmp_path / "S100IXUZ" / "S100IXUZ-0101010.html", "x")
    write(tmp_path / "top.TXT", "x")
    write(tmp_path / "metadata.csv", "doc_id,company\n")
    write(tmp_path / ".hidden" / "a.txt", "x")
    write(tmp_path / "picture.png", "x")
    write(tmp_path / "index" / "tables" / "finance" / "12.xlsx", "x")
    sources, clashes, ignored = find_sources(tmp_path, exclude=[tmp_path / "index"])
    assert [s.doc_id for s in sources] == ["S100IXUZ/S100IXUZ-0101010", "finance/12", "top"]
    assert [s.kind for s in sources] == ["html", "pdf", "text"]
    assert clashes == [] and ignored == {".png": 1}


def test_two_files_with_the_same_id_fail_the_second_one(tmp_path):
    write(tmp_path / "a.md", "x")
    write(tmp_path / "a.txt", "x")
    sources, clashes, _ = find_sources(tmp_path)
    assert [s.rel for s in sources] == ["a.md"]
    assert clashes[0].path == "a.txt" and "already used by a.md" in clashes[0].errors[0]


def test_ingested_chunks_and_company_years_carry_the_document_metadata(tmp_path):
    corpus = make_corpus(tmp_path / "corpus")
    run(corpus, tmp_path / "index")
    text_index = open_text_index(IndexSettings(tmp_path / "index"))
    try:
        hits = text_index.search(
            SearchQuery(text="光伏组件", companies=("甲乙科技股份有限公司",), years=(2021,))
        )
    finally:
        text_index.close()
    assert hits and hits[0].chunk.doc_id == REPORT_A
    with SqliteFactStore(tmp_path / "index" / "facts.sqlite") as store:
        reports = store.reports("甲乙科技股份有限公司")
    assert {(row["year"], row["doc_id"]) for row in reports} >= {(2021, REPORT_A)}
    assert all(row["code"] == "600001" for row in reports if row["doc_id"] == REPORT_A)


def test_facts_of_a_report_whose_company_is_unknown_are_kept_with_their_document_and_counted(tmp_path):
    """A securities report section without its cover: no company, but the period its column says; its
    facts stay with the document (read by cell id within it) and the report counts them."""
    write(
        tmp_path / "corpus" / "S100ZZZZ" / "0105010.html",
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body>'
        '<h2>【連結損益計算書】</h2><p>（単位：百万円）</p><table table-id="S100ZZZZ-0105010-tab1">'
        "<tr><td></td><td>当連結会計年度(自　2023年４月１日　至　2024年３月31日)</td></tr>"
        '<tr><td cell-id="S100ZZZZ-0105010-tab1-r2c1">売上高</td>'
        '<td cell-id="S100ZZZZ-0105010-tab1-r2c2">1,234</td></tr></table></body></html>',
    )
    summary = run(tmp_path / "corpus", tmp_path / "index")
    row = by_path(summary)["S100ZZZZ/0105010.html"]
    assert row.status == "ingested" and row.facts >= 1 and row.facts_without_company == row.facts
    assert "without a company, kept with their documents" in summary.text()
    report = json.loads((tmp_path / "index" / "ingest_report.json").read_text(encoding="utf-8"))
    assert report["totals"]["facts_without_company"] == row.facts
    with SqliteFactStore(tmp_path / "index" / "facts.sqlite") as store:
        cells = store.row_cells(["S100ZZZZ-0105010-tab1-r2"])["S100ZZZZ-0105010-tab1-r2"]
        assert [(c.company, c.year, c.value, c.doc_id) for c in cells] == [
            ("", 2024, "1234000000", "S100ZZZZ/0105010")
        ]
        assert store.reports() == []  # no company-year is claimed for it


# -- incremental runs ------------------------------------------------------------------------------


def test_unchanged_files_are_skipped(tmp_path):
    corpus = make_corpus(tmp_path / "corpus")
    first = run(corpus, tmp_path / "index")
    chunks = chunk_count(tmp_path / "index")
    second = run(corpus, tmp_path / "index")
    assert second.counts == {"ingested": 0, "unchanged": 3, "failed": 0, "removed": 0}
    assert chunk_count(tmp_path / "index") == chunks
    assert {f.path: f.chunks for f in second.files} == {f.path: f.chunks for f in first.files}


def test_a_new_parser_output_version_parses_every_file_again(tmp_path, monkeypatch):
    corpus = make_corpus(tmp_path / "corpus")
    run(corpus, tmp_path / "index")
    chunks = chunk_count(tmp_path / "index")
    monkeypatch.setattr(pipeline, "OUTPUT_VERSION", pipeline.OUTPUT_VERSION + 1)
    again = run(corpus, tmp_path / "index")
    assert again.counts == {"ingested": 3, "unchanged": 0, "failed": 0, "removed": 0}
    assert chunk_count(tmp_path / "index") == chunks  # replaced, not added


def test_a_changed_file_replaces_its_chunks_and_facts_and_a_removed_file_is_removed(tmp_path):
    corpus = make_corpus(tmp_path / "corpus")
    index = tmp_path / "index"
    run(corpus, index)
    assert found(index, "光伏组件") == {REPORT_A}
    assert found(index, "联名卡") == {"bank/notes"}

    write(
        corpus / f"{REPORT_A}.txt",
        "甲乙科技股份有限公司\n2021年年度报告\n\n报告期内，公司主营业务转为储能电站的建设与运营。\n",
    )
    write(corpus / "facts.csv", "company,year,field,value,unit\n甲乙科技股份有限公司,2021,营业收入,2000,元\n")
    (corpus / "bank" / "notes.md").unlink()
    summary = run(corpus, index)

    assert {f.path: f.status for f in summary.files} == {
        f"{REPORT_A}.txt": "ingested",
        "facts.csv": "ingested",
        "bank/notes.md": "removed",
    }
    assert found(index, "光伏组件") == set()
    assert found(index, "储能电站") == {REPORT_A}
    assert found(index, "联名卡") == set()
    with SqliteFactStore(index / "facts.sqlite") as store:
        revenue = store.lookup("甲乙科技股份有限公司", [2021], ["营业收入"])
        assert [r["value"] for r in revenue] == ["2000"]
        assert store.lookup("丙丁股份有限公司", [2021], ["营业收入"]) == []
        assert "丙丁股份有限公司" not in {row["company"] for row in store.reports()}
    assert set(Manifest.load(index / "manifest.json").entries) == {REPORT_A, "facts"}


def test_editing_the_sidecar_reingests_the_document_it_names(tmp_path):
    corpus = make_corpus(tmp_path / "corpus")
    run(corpus, tmp_path / "index")
    write(corpus / "bank" / "metadata.csv", "file,company,year\nnotes.md,某某银行股份有限公司,2022\n")
    summary = run(corpus, tmp_path / "index")
    assert by_path(summary)["bank/notes.md"].status == "ingested"
    assert by_path(summary)["facts.csv"].status == "unchanged"
    with SqliteFactStore(tmp_path / "index" / "facts.sqlite") as store:
        assert [row["doc_id"] for row in store.reports("某某银行股份有限公司")] == ["bank/notes"]


# -- interrupted runs ------------------------------------------------------------------------------


def four_documents(root: Path) -> Path:
    for n, word in enumerate(["光伏组件", "储能电站", "风力发电", "氢燃料电池"]):
        write(root / f"d{n}.txt", f"第一节 业务概要\n公司专注于{word}领域。\n")
    return root


def consistent(index: Path) -> None:
    """The index holds exactly what the manifest lists, each chunk once."""
    manifest = Manifest.load(index / "manifest.json")
    assert chunk_count(index) == sum(e.chunks for e in manifest.entries.values())


def _text_segments(index: Path) -> int:
    import tantivy

    return tantivy.Index.open(str(IndexSettings(index).text_dir)).searcher().num_segments


def test_a_fresh_ingest_of_many_batches_leaves_one_text_segment_and_an_update_leaves_the_rest(tmp_path):
    corpus = make_corpus(tmp_path / "corpus")
    index = tmp_path / "index"
    run(corpus, index, batch_size=1)  # a commit, and a segment, per file
    assert _text_segments(index) == 1
    assert found(index, "光伏组件") == {REPORT_A} and found(index, "联名卡") == {"bank/notes"}
    write(corpus / "bank" / "notes.md", "# 信用卡业务\n\n本行信用卡中心推出分期付款。\n")
    run(corpus, index, batch_size=1)  # one file again: the other files' tokens were not kept this run
    assert _text_segments(index) == 2
    assert found(index, "光伏组件") == {REPORT_A} and found(index, "分期付款") == {"bank/notes"}


def test_a_run_interrupted_between_batches_resumes_where_it_stopped(tmp_path, monkeypatch):
    corpus = four_documents(tmp_path / "corpus")
    writes = []
    real_write = writer.BatchWriter.write

    def interrupted_after_first_batch(self, batch):
        if writes:
            raise KeyboardInterrupt
        writes.append(len(batch))
        return real_write(self, batch)

    monkeypatch.setattr(writer.BatchWriter, "write", interrupted_after_first_batch)
    with pytest.raises(KeyboardInterrupt):
        run(corpus, tmp_path / "index", batch_size=1)
    monkeypatch.undo()

    assert len(Manifest.load(tmp_path / "index" / "manifest.json").entries) == 1
    consistent(tmp_path / "index")
    summary = run(corpus, tmp_path / "index", batch_size=1)
    assert summary.counts == {"ingested": 3, "unchanged": 1, "failed": 0, "removed": 0}
    consistent(tmp_path / "index")
    assert found(tmp_path / "index", "氢燃料电池") == {"d3"}


def test_ctrl_c_while_the_text_index_is_written_again_keeps_every_file_ingested(tmp_path, monkeypatch):
    from search.added_chunks import AddedChunks

    corpus = four_documents(tmp_path / "corpus")
    real = AddedChunks.in_chunk_order

    def interrupted(self):
        records = real(self)
        yield next(records)
        raise KeyboardInterrupt

    monkeypatch.setattr(AddedChunks, "in_chunk_order", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(corpus, tmp_path / "index", batch_size=1)
    monkeypatch.undo()

    assert len(Manifest.load(tmp_path / "index" / "manifest.json").entries) == 4
    consistent(tmp_path / "index")
    assert _text_segments(tmp_path / "index") > 1  # as committed, batch by batch
    assert found(tmp_path / "index", "氢燃料电池") == {"d3"}
    again = run(corpus, tmp_path / "index", batch_size=1)
    assert again.counts == {"ingested": 0, "unchanged": 4, "failed": 0, "removed": 0}


def test_a_crash_after_a_commit_but_before_the_manifest_redoes_that_batch_without_duplicates(
    tmp_path, monkeypatch
):
    corpus = four_documents(tmp_path / "corpus")
    saves = []
    real_save = Manifest.save

    def crash_on_second_save(self):
        if saves:
            raise RuntimeError("power cut")
        saves.append(1)
        real_save(self)

    monkeypatch.setattr(Manifest, "save", crash_on_second_save)
    with pytest.raises(RuntimeError, match="power cut"):
        run(corpus, tmp_path / "index", batch_size=1)
    monkeypatch.undo()

    summary = run(corpus, tmp_path / "index", batch_size=1)
    assert summary.counts["unchanged"] == 1 and summary.counts["ingested"] == 3
    consistent(tmp_path / "index")


# -- bad input -------------------------------------------------------------------------------------


def test_each_bad_file_gets_a_clear_reason_and_the_good_ones_are_ingested(tmp_path):
    from reportlab.lib.pdfencrypt import StandardEncryption

    corpus = make_corpus(tmp_path / "corpus")
    (corpus / "empty.pdf").write_bytes(b"")
    whole = small_pdf(tmp_path / "whole.pdf").read_bytes()
    (corpus / "truncated.pdf").write_bytes(whole[: len(whole) // 2])
    small_pdf(corpus / "locked.pdf", encrypt=StandardEncryption("secret", ownerPassword="owner"))
    write(corpus / "fake.pdf", "<html><body>404 Not Found</body></html>")
    write(corpus / "huge.txt", "公司" * 20000)
    (corpus / "odd.txt").write_bytes(b"\xff\xfe\xfd" * 10 + "正文".encode() + b"\xff\xff")
    (corpus / "zero.txt").write_bytes(b"")
    small_pdf(corpus / "fine.pdf", "Interim statements of cash flows")

    summary = run(corpus, tmp_path / "index", max_file_mb=0.05, workers=2)
    files = by_path(summary)
    reasons = {path: " ".join(f.errors) for path, f in files.items() if f.status == "failed"}
    assert set(reasons) == {
        "empty.pdf",
        "truncated.pdf",
        "locked.pdf",
        "fake.pdf",
        "huge.txt",
        "odd.txt",
        "zero.txt",
    }
    assert "empty file (0 bytes)" in reasons["empty.pdf"]
    assert "truncated PDF" in reasons["truncated.pdf"]
    assert "encrypted" in reasons["locked.pdf"] and "password" in reasons["locked.pdf"]
    assert "not a PDF" in reasons["fake.pdf"]
    assert "over the limit of 0.05 MB" in reasons["huge.txt"]
    assert "not UTF-8" in reasons["odd.txt"]
    assert "empty file" in reasons["zero.txt"]
    assert {p for p, f in files.items() if f.status == "ingested"} == {
        f"{REPORT_A}.txt",
        "bank/notes.md",
        "facts.csv",
        "fine.pdf",
    }
    assert found(tmp_path / "index", "cash flows") == {"fine"}
    assert summary.exit_code == 3


def test_text_in_a_legacy_chinese_encoding_is_ingested(tmp_path):
    write(tmp_path / "corpus" / "placeholder.txt", "占位")
    (tmp_path / "corpus" / "gbk.txt").write_bytes(
        "第一节 公司简介\n本公司主要从事风力发电设备制造。\n".encode("gb18030")
    )
    summary = run(tmp_path / "corpus", tmp_path / "index")
    assert by_path(summary)["gbk.txt"].status == "ingested"
    assert found(tmp_path / "index", "风力发电") == {"gbk"}


def test_a_broken_new_version_keeps_the_indexed_one(tmp_path):
    corpus = tmp_path / "corpus"
    small_pdf(corpus / "report.pdf", "Consolidated balance sheet")
    run(corpus, tmp_path / "index")
    data = (corpus / "report.pdf").read_bytes()
    (corpus / "report.pdf").write_bytes(data[: len(data) // 2])
    summary = run(corpus, tmp_path / "index")
    row = by_path(summary)["report.pdf"]
    assert row.status == "failed"
    assert "truncated PDF" in row.errors[0] and "previously indexed version is kept" in row.errors[-1]
    assert found(tmp_path / "index", "balance sheet") == {"report"}
    # still failed (not "unchanged") next time, and still searchable
    assert by_path(run(corpus, tmp_path / "index"))["report.pdf"].status == "failed"
    assert found(tmp_path / "index", "balance sheet") == {"report"}


def test_a_worker_that_crashes_fails_only_its_file(tmp_path, monkeypatch):
    corpus = four_documents(tmp_path / "corpus")
    write(corpus / "crash.txt", "这个文件让解析进程崩溃。")
    real_check = workers.check_file

    def segfault_on_crash_txt(source, *settings):
        if source.path.name == "crash.txt":
            faulthandler.disable()  # pytest's crash dump, inherited by the fork, would only add noise
            ctypes.string_at(0)  # a real segmentation fault in the worker process
        return real_check(source, *settings)

    # the pool forks its workers, so they run the patched function
    monkeypatch.setattr(workers, "check_file", segfault_on_crash_txt)
    summary = run(corpus, tmp_path / "index", workers=2)
    files = by_path(summary)
    assert files["crash.txt"].status == "failed"
    assert "crashed" in files["crash.txt"].errors[0]
    assert {p for p, f in files.items() if f.status == "ingested"} == {f"d{n}.txt" for n in range(4)}
    consistent(tmp_path / "index")


# -- a small real corpus ---------------------------------------------------------------------------


def test_a_small_real_corpus_of_pdfs_and_a_securities_report(tmp_path, shared_data):
    corpus = tmp_path / "corpus"
    aicup = shared_data / "aicup" / "reference"
    (corpus / "finance").mkdir(parents=True)
    (corpus / "insurance").mkdir()
    for name in ("115.pdf", "137.pdf"):
        shutil.copy(aicup / "finance" / name, corpus / "finance" / name)
    shutil.copy(aicup / "insurance" / "10.pdf", corpus / "insurance" / "10.pdf")
    ntcir = shared_data / "ntcir18-u4" / "reports" / "S100IXUZ"
    (corpus / "S100IXUZ").mkdir()
    for name in ("S100IXUZ-0000000.html", "S100IXUZ-0200010.html"):
        shutil.copy(ntcir / name, corpus / "S100IXUZ" / name)

    summary = run(corpus, tmp_path / "index", workers=2)
    assert summary.counts == {"ingested": 5, "unchanged": 0, "failed": 0, "removed": 0}, summary.text()
    files = by_path(summary)
    assert files["finance/115.pdf"].pages == 2 and files["finance/115.pdf"].chunks > 0
    assert files["S100IXUZ/S100IXUZ-0000000.html"].facts > 0
    with SqliteFactStore(tmp_path / "index" / "facts.sqlite") as store:
        covered = {(row["company"], row["year"]) for row in store.reports()}
    assert {
        ("中國鋼鐵股份有限公司", 2022),
        ("台達電子工業股份有限公司", 2022),
        ("塩野義製薬株式会社", 2020),
    } <= covered
    assert "insurance/10" in found(tmp_path / "index", "滿期保險金")
    assert (tmp_path / "index" / "tables" / "S100IXUZ" / "S100IXUZ-0000000.xlsx").exists()
    assert run(corpus, tmp_path / "index", workers=2).counts["unchanged"] == 5


# -- Elasticsearch ---------------------------------------------------------------------------------


@pytest.fixture
def es_index_settings(es_url, tmp_path):
    """IndexSettings of fresh Elasticsearch indices of their own, deleted afterwards."""
    import uuid

    settings = IndexSettings(
        tmp_path / "index",
        backend="elasticsearch",
        es_url=es_url,
        es_prefix=f"finqa-test-ingest-{uuid.uuid4().hex[:10]}",
    )
    yield settings
    from search.elastic import connect

    client = connect(es_url)
    client.options(ignore_status=404).indices.delete(index=f"{settings.es_prefix}-*")
    client.close()


def test_ingest_into_elasticsearch_is_incremental_too(tmp_path, es_index_settings):
    corpus = make_corpus(tmp_path / "corpus")
    first = ingest(corpus, es_index_settings, workers=2, progress=False)
    assert first.counts["ingested"] == 3, first.text()

    def es_found(text: str) -> set[str]:
        index = open_text_index(es_index_settings)
        try:
            return {hit.chunk.doc_id for hit in index.search(SearchQuery(text=text, limit=50))}
        finally:
            index.close()

    assert es_found("联名卡") == {"bank/notes"}
    (corpus / "bank" / "notes.md").unlink()
    second = ingest(corpus, es_index_settings, workers=2, progress=False)
    assert second.counts == {"ingested": 0, "unchanged": 2, "failed": 0, "removed": 1}
    assert es_found("联名卡") == set()
    assert es_found("光伏组件") == {REPORT_A}


# -- issue 15: nothing lost, nothing hung ------------------------------------------------------------

COMPANY = "甲乙科技股份有限公司"


def corpus_of(root: Path) -> Path:
    write(
        root / "annual" / "report.txt",
        f"{COMPANY}\n2021年年度报告\n\n第三节 管理层讨论与分析\n公司主营业务为光伏组件的研发与销售。\n",
    )
    write(root / "bank" / "notes.md", "# 信用卡业务\n\n本行信用卡中心发行联名卡，年费减免政策延续。\n")
    write(root / "facts.csv", f"company,year,field,value,unit\n{COMPANY},2021,营业收入,1000,元\n")
    return root


def fact_count(index: Path) -> int:
    with SqliteFactStore(index / "facts.sqlite") as store:
        return store.count()


def blank_pdf(path: Path, pages: int, width: int = 595, height: int = 842) -> Path:
    """A real PDF of blank pages (no text layer), written by hand so its page size can be absurd."""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [" + " ".join(f"{3 + i} 0 R" for i in range(pages)) + f"] /Count {pages} >>",
    ]
    objects += [f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] >>"] * pages
    body, offsets = b"%PDF-1.4\n", []
    for number, text in enumerate(objects, 1):
        offsets.append(len(body))
        body += f"{number} 0 obj\n{text}\nendobj\n".encode()
    xref = len(body)
    body += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    body += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    body += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


def nested_tables_html(path: Path, units: int) -> Path:
    unit = (
        "<table><tr><td>营业收入</td><td>1,234</td></tr><tr><td><table><tr><td>净利润</td><td>567</td></tr>"
        "<tr><td><table><tr><td>资产总计</td><td>89</td></tr></table></td><td>x</td></tr></table></td>"
        "<td>y</td></tr></table>\n"
    )
    return write(path, f"<html><body><h1>报告</h1>{unit * units}</body></html>")


# -- stores verified against the manifest ----------------------------------------------------------


def test_a_deleted_text_index_is_rebuilt_not_trusted(tmp_path):
    corpus, index = corpus_of(tmp_path / "corpus"), tmp_path / "index"
    run(corpus, index)
    shutil.rmtree(index / "text")
    summary = run(corpus, index)
    assert summary.counts["ingested"] == 3 and summary.counts["unchanged"] == 0
    assert any("text index" in w for w in summary.warnings)
    assert found(index, "光伏组件") == {"annual/report"}
    assert run(corpus, index).counts["unchanged"] == 3  # and trusted again afterwards


def test_an_emptied_facts_store_is_rebuilt(tmp_path):
    corpus, index = corpus_of(tmp_path / "corpus"), tmp_path / "index"
    run(corpus, index)
    before = fact_count(index)
    (index / "facts.sqlite").write_bytes(b"")
    for extra in ("facts.sqlite-wal", "facts.sqlite-shm"):
        (index / extra).unlink(missing_ok=True)
    summary = run(corpus, index)
    assert summary.counts["ingested"] == 3
    assert before > 0 and fact_count(index) == before


def test_an_index_dir_that_is_a_file_is_a_one_line_error(tmp_path, capsys):
    corpus = corpus_of(tmp_path / "corpus")
    (tmp_path / "index").write_text("not a folder")
    assert main([str(corpus), "--index", str(tmp_path / "index"), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "INDEX_DIR is an existing file" in err


def test_a_read_only_index_is_called_read_only_never_damaged(tmp_path):
    corpus, index = corpus_of(tmp_path / "corpus"), tmp_path / "index"
    run(corpus, index)
    # a read-only bind mount: root ignores file modes, a read-only mount stops everyone
    script = (
        f"mount --bind -o ro {index} {index} && exec {sys.executable} -m parser.ingest {corpus} "
        f"--index {index} --workers 1"
    )
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    if "mount" in result.stderr and result.returncode != 2:
        pytest.skip(f"cannot make a read-only mount here: {result.stderr.strip()[:200]}")
    assert result.returncode == 2
    assert "read-only" in result.stderr and "damaged" not in result.stderr and "delete" not in result.stderr


# -- every path problem fails only its own file ---------------------------------------------------


def test_path_problems_fail_only_their_own_file(tmp_path):
    corpus = corpus_of(tmp_path / "corpus")
    (corpus / "self").symlink_to("self")  # a symlink loop
    (corpus / "annual" / "up").symlink_to("..")  # a folder that contains itself
    (corpus / "annual" / "gone.txt").symlink_to("nowhere.txt")
    with open(os.path.join(os.fsencode(corpus), b"bad-\xff\xfe.txt"), "wb") as fh:
        fh.write("营业收入".encode())
    write(
        corpus / f"{'长' * 80}.txt", "名字很长的文件，正文照常。"
    )  # 240 bytes: its workbook names are shortened
    summary = run(corpus, tmp_path / "index")
    failed = {f.path: f.errors[0] for f in summary.failed}
    assert summary.exit_code == 3
    assert "symlink loop" in failed["annual/up"] or "symbolic links" in failed["annual/up"]
    assert "symbolic links" in failed["self"] or "symlink loop" in failed["self"]
    assert "symlink to nothing" in failed["annual/gone.txt"]
    assert any("not valid UTF-8" in error for path, error in failed.items() if path.startswith("bad-"))
    assert {f.doc_id for f in summary.files if f.status == "ingested"} == {
        "annual/report",
        "bank/notes",
        "facts",
        "长" * 80,
    }


def test_an_index_inside_the_corpus_is_skipped_with_a_warning(tmp_path):
    corpus = corpus_of(tmp_path / "corpus")
    first = run(corpus, corpus / "idx")
    second = run(corpus, corpus / "idx")
    assert first.exit_code == 0 and second.counts == {
        "ingested": 0,
        "unchanged": 3,
        "failed": 0,
        "removed": 0,
    }
    assert any("inside the corpus" in w for w in second.warnings)


# -- limits per file ------------------------------------------------------------------------------


def source_of(path: Path, kind: str) -> Source:
    return Source(path, path.name, path.stem, kind)


def test_a_pdf_over_the_page_limit_fails_before_parsing(tmp_path):
    path = blank_pdf(tmp_path / "c" / "long.pdf", pages=3)
    outcome = parse_source(
        source_of(path, "pdf"),
        MetadataFinder.for_corpus(tmp_path / "c", {"long": path}),
        ParseSettings(max_pages=2, ocr=False),
    )
    assert outcome.document is None and "3 pages, over the limit of 2" in outcome.errors[0]


def test_a_huge_page_is_not_rendered_for_ocr(tmp_path):
    path = blank_pdf(tmp_path / "huge.pdf", pages=1, width=14400, height=14400)
    with pytest.raises(RuntimeError, match="over the limit of 50M"):
        render_page(path, 0, 200, max_pixels=50_000_000)


def test_ocr_pages_past_the_limit_are_skipped_and_reported(tmp_path):
    from parser.ocr import PageOcr

    if PageOcr(ParseSettings()).missing:
        pytest.skip(
            "Tesseract with chi_tra+chi_sim+jpn is not installed (bash docker/install-system-deps.sh)"
        )
    corpus = tmp_path / "corpus"
    blank_pdf(corpus / "blank.pdf", pages=4)
    summary = run(corpus, tmp_path / "index", parse=ParseSettings(max_ocr_pages=1))
    row = summary.files[0]
    assert row.ocr_pages == 1
    assert any("page 2 on" in e and "--max-ocr-pages" in e for e in row.errors)


def test_a_file_over_its_time_budget_fails_alone(tmp_path):
    path = nested_tables_html(tmp_path / "c" / "slow.html", units=400)
    outcome = parse_source(
        source_of(path, "html"),
        MetadataFinder.for_corpus(tmp_path / "c", {"slow": path}),
        ParseSettings(max_file_seconds=0.05),
    )
    assert outcome.document is None and "--max-file-seconds" in outcome.errors[0]


def test_a_span_bomb_table_is_skipped_with_a_warning(tmp_path):
    path = write(
        tmp_path / "bomb.html",
        '<html><body><table><tr><td rowspan="1000" colspan="1000">x</td>'
        "<td>1</td></tr>" + "<tr><td>b</td></tr>" * 999 + "</table></body></html>",
    )
    html = read_html(path, TableLimits(cells=10_000))
    assert html.tables == [] and "--max-table-cells" in html.warnings[0]


def test_html_nested_past_the_parser_depth_is_reported_not_silent(tmp_path):
    path = write(
        tmp_path / "deep.html",
        "<html><body>" + "<div>" * 600 + "<table><tr><td>a</td><td>1</td></tr>"
        "<tr><td>b</td><td>2</td></tr></table>" + "</div>" * 600 + "</body></html>",
    )
    assert "nested deeper than 256 levels" in read_html(path).warnings[0]


# -- output files follow the umask ----------------------------------------------------------------


def test_index_files_follow_the_umask(tmp_path):
    corpus, index = corpus_of(tmp_path / "corpus"), tmp_path / "index"
    previous = os.umask(0o022)
    try:
        run(corpus, index)
    finally:
        os.umask(previous)
    for name in ("manifest.json", "ingest_report.json"):
        assert (index / name).stat().st_mode & 0o777 == 0o644


def test_a_workbook_with_bad_rows_keeps_its_good_rows_reports_each_bad_one_and_exits_3(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    write(
        corpus / "facts.csv",
        "company,year,field,value,unit\n甲乙科技股份有限公司,2021,营业收入,1000,元\n"
        "甲乙科技股份有限公司,2021,营业成本,,元\n甲乙科技股份有限公司,2021,硕士员工人数,12,人\n"
        "甲乙科技股份有限公司,2021,研发费用,5,英镑\n",
    )
    index = tmp_path / "index"
    assert main([str(corpus), "--index", str(index), "--workers", "1"]) == 3
    out = capsys.readouterr().out
    assert (
        "rejected row: " in out
        and "facts.csv:3: empty value" in out
        and "facts.csv:5: unknown unit '英镑'" in out
    )
    with SqliteFactStore(index / "facts.sqlite") as store:
        assert store.count() == 2
        # the workbook's wording is stored under the canonical field name, as questions ask for it
        assert [r["value"] for r in store.lookup("甲乙科技股份有限公司", [2021], ["硕士"])] == ["12"]
    report = json.loads((index / "ingest_report.json").read_text(encoding="utf-8"))
    assert [len(f["rejected"]) for f in report["files"]] == [2]
    # read again (and reported again) on the next run, until the rows are fixed
    assert main([str(corpus), "--index", str(index), "--workers", "1"]) == 3


def test_files_with_the_most_pages_are_parsed_first(tmp_path, caplog):
    # A pool that ends on a long report leaves the other workers idle; pages come from the page tree.
    from reportlab.pdfgen import canvas

    corpus = tmp_path / "corpus"
    small_pdf(corpus / "a_one_page.pdf")
    write(corpus / "b_note.txt", "短い注記。\n")
    pdf = canvas.Canvas(str(corpus / "c_three_pages.pdf"))
    for number in range(3):
        pdf.drawString(72, 720, f"Annual report page {number + 1}")
        pdf.showPage()
    pdf.save()
    with caplog.at_level("INFO", logger="ingestion.pipeline"):
        run(corpus, tmp_path / "index", workers=1)
    parsed = [r.getMessage().split()[0] for r in caplog.records if " parsed in " in r.getMessage()]
    assert parsed == ["c_three_pages", "a_one_page", "b_note"]


def test_a_pdfs_workbook_stores_numbers_as_numbers_and_each_fact_names_the_cell_that_holds_it(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    report = next((PROJECT_ROOT / "examples" / "corpus" / "annual").glob("2023-03-28__示例科技*.pdf"))
    shutil.copy(report, corpus / "report.pdf")
    index = IndexSettings(tmp_path / "index")
    ingest(corpus, index, workers=1)
    book = openpyxl.load_workbook(index.tables_path("report"), read_only=True)
    facts = list(book["facts"].iter_rows(values_only=True))
    header, rows = facts[0], facts[1:]
    column = {name: i for i, name in enumerate(header)}
    numbers = [r for r in rows if isinstance(r[column["value"]], (int, float))]
    assert rows and len(numbers) >= len(rows) * 0.8, "the facts sheet holds its numbers as numbers"
    placed = [r for r in numbers if r[column["table"]] and r[column["cell_id"]]]
    assert len(placed) == len(numbers), "every number from a table names its cell"
    for row in placed:
        cell = book[row[column["table"]]][row[column["cell_id"]]].value
        unit = row[column["unit"]]
        if unit in ("元", ""):  # printed in base units: the cell shows the very number
            assert cell == pytest.approx(row[column["value"]]), row
