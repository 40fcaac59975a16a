"""Where a document's tables sit in its Excel workbook: the file under INDEX_DIR, the sheet and the cell.

Ingest writes one workbook per document (parser/workbook.py): a table's sheet holds its header on the first
row and its rows below, its columns from A. A fact read from a table without cell ids of its own (a PDF's)
carries the cell it sits in, so an answer's evidence can name the workbook, sheet and cell.

>>> workbook_cell(3, 2), workbook_file("finance/12")
('C5', 'tables/finance/12.xlsx')
>>> is_workbook_cell("C5"), is_workbook_cell("S100IXUZ-0105010-tab89-r25c9")
(True, False)
>>> table_place("finance/12", "p3t1", "C5"), table_place("S100IXUZ/0105010", "tab89", "tab89-r25c9")
(('tables/finance/12.xlsx', 'p3t1'), ('', ''))
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

TABLES_FOLDER = "tables"  # under INDEX_DIR
HEADER_ROWS = 1  # a table's sheet: its header row, then its rows
_FILE_NAME_MAX = 255  # bytes, as most file systems allow
_A1 = re.compile(r"[A-Z]{1,3}[1-9][0-9]*")


def workbook_file(doc_id: str) -> str:
    """The document's workbook, relative to INDEX_DIR."""
    return document_file(Path(TABLES_FOLDER), doc_id, ".xlsx").as_posix()


def document_file(folder: Path, doc_id: str, suffix: str) -> Path:
    """The file of a document in one of INDEX_DIR's folders: its id + suffix, or a shortened name with a hash
    when that is longer than a file name may be."""
    path = folder / f"{doc_id}{suffix}"
    if len(os.fsencode(path.name)) > _FILE_NAME_MAX:
        short = path.name.encode()[:180].decode(errors="ignore")
        path = path.with_name(f"{short}-{name_digest(doc_id)}{suffix}")
    return path


def name_digest(text: str) -> str:
    """A short stable hash that keeps names apart when they are shortened."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def workbook_cell(row: int, column: int) -> str:
    """The sheet cell ("C5") of a table's frame row and column (both from 0)."""
    letters, n = "", column + 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{row + HEADER_ROWS + 1}"


def is_workbook_cell(cell_id: str) -> bool:
    """Whether a fact's cell id is its workbook cell (PDF tables), not the source's own id (HTML cell ids)."""
    return bool(_A1.fullmatch(cell_id))


def table_place(doc_id: str, table: str, cell_id: str) -> tuple[str, str]:
    """(workbook, sheet) holding a fact's cell, or ("", "") when its cell id is the source's own.

    A PDF table's id (p12t1) is a valid sheet name and unique in its document, so it is its sheet's name."""
    return (workbook_file(doc_id), table) if table and is_workbook_cell(cell_id) else ("", "")
