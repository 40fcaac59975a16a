"""Every document table, PDF or HTML, is held to the same TableLimits as a facts workbook: a cell, a row, the
columns and the file's text; what is cut or skipped is a warning naming the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from core.errors import InputError
from core.records import DocumentMeta
from core.rulefile import PROJECT_ROOT, data_dir
from parser.html import parse_html
from parser.pdf import parse_pdf
from parser.settings import EXCEL_CELL_CHARS, ParseSettings, TableLimits
from parser.workbook import read_facts_workbook, write_tables_workbook

ANNUAL = next((data_dir("examples") / "corpus" / "annual").glob("*.pdf"))


def html_table(path: Path, rows: list[list[str]], cell: str = "td") -> Path:
    body = "".join("<tr>" + "".join(f"<{cell}>{text}</{cell}>" for text in row) + "</tr>" for row in rows)
    path.write_text(
        f"<html><head><meta charset='utf-8'></head><body><h1>资产负债表</h1><table id='big'>{body}</table>"
        "</body></html>",
        encoding="utf-8",
    )
    return path


def parse(path: Path, limits: TableLimits | None = None):
    settings = ParseSettings(tables=limits or TableLimits())
    return parse_html(path, DocumentMeta("doc", language="zh"), settings)


def test_an_html_cell_longer_than_excel_allows_is_cut_and_said(tmp_path):
    path = html_table(
        tmp_path / "long.html", [["项目", "2022年"], ["营业收入", "100"], ["附注", "说" * 100_000]]
    )
    doc = parse(path)
    table = doc.table_list[0]
    assert len(table.frame.iloc[-1, 1]) == EXCEL_CELL_CHARS
    assert doc.warnings == ["table big: 1 cell longer than 32,767 characters cut to 32,767"]
    assert max(len(chunk.text) for chunk in doc.chunks) < 2 * EXCEL_CELL_CHARS  # the row chunk is cut too
    out = tmp_path / "tables.xlsx"
    write_tables_workbook(doc.table_list, out, doc.facts)
    sheet = openpyxl.load_workbook(out, read_only=True)["big"]
    assert max(len(str(c.value or "")) for row in sheet.iter_rows() for c in row) == EXCEL_CELL_CHARS


def test_an_html_table_over_the_column_limit_is_skipped_before_its_grid_is_built(tmp_path):
    path = tmp_path / "wide.html"
    path.write_text(
        "<html><body><table id='wide'><tr><td>项目</td><td colspan='1000'>x</td><td colspan='900'>y</td></tr>"
        "<tr><td>营业收入</td><td>1</td></tr></table></body></html>",
        encoding="utf-8",
    )
    doc = parse(path)
    assert doc.table_list == [] and doc.warnings == [
        "table wide: skipped, 1901 columns, over the limit of 1000 (--max-table-columns)"
    ]


def test_a_row_over_the_row_limit_skips_its_table_and_the_others_stay(tmp_path):
    path = tmp_path / "rows.html"
    small = "<table id='small'><tr><td>项目</td><td>2022年</td></tr><tr><td>营业收入</td><td>100</td></tr></table>"
    long_row = "".join(f"<td>{'字' * 30_000}</td>" for _ in range(4))
    path.write_text(
        f"<html><body>{small}<table id='long'><tr><td>项目</td><td>a</td><td>b</td><td>c</td><td>d</td></tr>"
        f"<tr><td>附注</td>{long_row}</tr></table></body></html>",
        encoding="utf-8",
    )
    doc = parse(path)
    assert [t.table_id for t in doc.table_list] == ["small"]
    assert doc.warnings == ["table long: skipped, a row of 120,002 characters, over the limit of 100,000"]


def test_a_files_tables_past_its_text_budget_are_skipped_one_by_one(tmp_path):
    path = tmp_path / "many.html"
    tables = "".join(
        f"<table id='t{n}'><tr><td>项目</td><td>2022年</td></tr><tr><td>营业收入</td><td>{n}</td></tr></table>"
        for n in range(5)
    )
    path.write_text(f"<html><body>{tables}</body></html>", encoding="utf-8")
    doc = parse(path, TableLimits(expanded_bytes=30))
    assert [t.table_id for t in doc.table_list] == ["t0", "t1"]
    assert doc.warnings == [
        f"table t{n}: skipped, the file's tables pass the limit of 30 characters of text" for n in (2, 3, 4)
    ]


def test_a_pdfs_tables_are_held_to_the_same_limits():
    meta = DocumentMeta("annual/doc", language="zh")
    whole = parse_pdf(ANNUAL, meta, ParseSettings(ocr=False))
    assert whole.table_list and not any(w.startswith("table ") for w in whole.warnings)
    cut = parse_pdf(ANNUAL, meta, ParseSettings(ocr=False, tables=TableLimits(cell_chars=4)))
    assert max(len(v) for t in cut.table_list for v in t.frame.to_numpy().ravel()) == 4
    first = whole.table_list[0]
    assert any(
        w.startswith(f"table {first.table_id} (page {first.page}): ") and "cut to 4" in w
        for w in cut.warnings
    )
    narrow = parse_pdf(ANNUAL, meta, ParseSettings(ocr=False, tables=TableLimits(columns=1)))
    assert narrow.table_list == [] and not narrow.facts
    assert len([w for w in narrow.warnings if "columns, over the limit of 1" in w]) == len(whole.table_list)


def test_a_facts_workbook_takes_the_same_limits(tmp_path):
    path = tmp_path / "facts.csv"
    path.write_text(
        "company,year,field,value\n示例科技,2022,营业收入,100\n示例科技,2022,附注,很长的附注\n",
        encoding="utf-8",
    )
    doc = read_facts_workbook(path, "facts", limits=TableLimits(cell_chars=4))
    assert [f.field for f in doc.facts] == ["营业收入"]
    assert doc.rejected == [f"{path}:3: value longer than 4 characters"]
    with pytest.raises(InputError, match="more than 3 columns"):
        read_facts_workbook(path, "facts", limits=TableLimits(columns=3))


def test_limits_are_validated():
    with pytest.raises(InputError, match="at most Excel's 32,767"):
        TableLimits(cell_chars=40_000)
    with pytest.raises(InputError, match="columns must be at least 1"):
        TableLimits(columns=0)


def ingest(corpus: Path, index: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "parser.ingest", corpus, "--index", index, "--workers", "1", *options],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ingest_names_the_file_and_table_it_cut_on_one_line(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    html_table(corpus / "report.html", [["项目", "2022年"], ["营业收入", "100"], ["附注", "x" * 50]])
    result = ingest(corpus, tmp_path / "index", "--max-cell-chars", "10")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if "cut to 10" in line]
    assert warnings == ["warning: report.html: table big: 1 cell longer than 10 characters cut to 10"]
    bad = ingest(corpus, tmp_path / "index", "--max-cell-chars", "0")
    assert bad.returncode == 2 and bad.stderr.strip() == "error: cell_chars must be at least 1, got 0"
