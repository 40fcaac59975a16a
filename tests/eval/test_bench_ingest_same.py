"""How the ingest_same bench reads two indexes and reports what differs; the segmenter bench's reference."""

from __future__ import annotations

import shutil
import sqlite3

import openpyxl

from core.rulefile import data_dir
from eval.bench.ingest_same import compare, fact_rows, stored_chunks, workbook_cells
from eval.bench.segmenter import PythonJieba
from ingestion.pipeline import ingest
from search.settings import IndexSettings
from search.tokenize import Tokenizer


def test_an_index_equals_its_copy_and_a_changed_cell_fact_or_chunk_is_reported(tmp_path, capsys):
    old = tmp_path / "old"
    ingest(data_dir("examples") / "corpus", IndexSettings(old), workers=1, progress=False)
    new = tmp_path / "new"
    shutil.copytree(old, new)
    assert stored_chunks(old) and sum(fact_rows(old)["facts"].values()) and workbook_cells(old)
    assert compare(old, new) == 0

    book_path = sorted((new / "tables").rglob("*.xlsx"))[0]
    book = openpyxl.load_workbook(book_path)
    sheet = book.worksheets[1]
    sheet["A2"] = "changed"
    book.save(book_path)
    db = sqlite3.connect(new / "facts.sqlite")
    db.execute("UPDATE facts SET value = 'changed' WHERE rowid = (SELECT min(rowid) FROM facts)")
    db.commit()
    db.close()
    capsys.readouterr()
    assert compare(old, new) == 1 + 2  # the cell; the fact row gone and its changed copy
    printed = capsys.readouterr().out
    assert f"('{book_path.relative_to(new / 'tables').as_posix()}', '{sheet.title}', 'A2')" in printed
    assert "chunks: " in printed and "0 differences" in printed.split("facts: ")[0]


def test_the_python_jieba_reference_takes_user_words_as_rjieba_does():
    text = "光寶科技營業收入与贵州茅台酒股份有限公司的资产负债表"
    words = ("光寶科技",)
    reference = Tokenizer()
    reference._jieba = PythonJieba()
    reference.add_words(words)
    ours = Tokenizer()
    ours.add_words(words)
    assert "光宝科技" in ours.tokens(text)
    assert reference.tokens(text) == ours.tokens(text)
