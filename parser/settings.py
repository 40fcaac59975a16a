"""Parser settings: one place, validated on construction (like pdfplumber's TableSettings)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import InputError
from core.rulebook import RuleBook, active

EXCEL_CELL_CHARS = 32_767  # the most one Excel cell holds: a tables workbook cell is never longer
# What the parsers make of a document, as a number: raise it with a change to parser/ that changes its chunks,
# facts or tables (`python -m eval.bench ingest_same` tells), so that an index made before the change parses
# its documents again on the next ingest rather than keeping what the old code made of them.
OUTPUT_VERSION = 3


@dataclass(frozen=True)
class TableLimits:
    """How large a table may be, whatever format it comes from (PDF and HTML tables, facts workbooks), so that
    one hostile file cannot take the machine: a 307 KB .xlsx can hold a 300 MB cell, a CSV header a million
    columns, an HTML cell with colspan=1000 repeats its text a thousand times in the tables workbook.

    A document's table over a limit is cut (a cell, to `cell_chars`) or skipped, each with a warning naming
    the table; a facts workbook's row over a limit is rejected (a cut value would be a wrong fact).

    >>> TableLimits(cells=10_000).columns
    1000
    """

    cell_chars: int = EXCEL_CELL_CHARS
    row_chars: int = 100_000  # one row's characters (a facts sheet has ten columns)
    columns: int = 1_000
    cells: int = 200_000  # rows x columns once row and column spans are expanded
    expanded_bytes: int = 200_000_000  # a file's tables as text, or an .xlsx unzipped (about a million facts)

    def __post_init__(self):
        for name in ("cell_chars", "row_chars", "columns", "cells", "expanded_bytes"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.cell_chars > EXCEL_CELL_CHARS:
            raise InputError(
                f"cell_chars must be at most Excel's {EXCEL_CELL_CHARS:,}, got {self.cell_chars:,}"
            )


@dataclass(frozen=True)
class ParseSettings:
    """How documents are cut into chunks and facts.

    >>> settings = ParseSettings(chunk_chars=400, overlap_sentences=1)
    """

    chunk_chars: int = 400  # most characters in one text chunk
    overlap_sentences: int = 1  # sentences repeated at the start of the next chunk
    section_chars: int = 1500  # sections up to this size also get one whole-section chunk
    header_footer_share: float = 0.5  # a line on at least this share of pages is a running header/footer
    ocr: bool = True  # OCR pages without a text layer when Tesseract is installed
    ocr_languages: str = "chi_tra+chi_sim+jpn"
    ocr_dpi: int = 200
    min_text_chars: int = 20  # fewer extracted characters than this: the page has no text layer
    # Limits per file, so one hostile or broken file cannot take the machine (each hit is reported on the file):
    max_pages: int = 5000  # a PDF with more pages fails
    max_ocr_pixels: int = (
        50_000_000  # a page that would render larger for OCR is not OCR'd (A0 at 200 dpi: 46M)
    )
    max_ocr_pages: int = 500  # pages past this many are not OCR'd (5,000 blank pages take an hour)
    tables: TableLimits = field(default_factory=TableLimits)  # a cell, a row, the columns, a file's tables
    max_file_seconds: float = 1800.0  # parsing one file longer than this fails it (0: no limit)
    # The rule folders the parsers read (core/rulebook.py); an ingest run makes them active, in each worker too.
    # Not in repr: the fingerprint of a parse hashes the rule files' contents, not where they lie.
    rules: RuleBook = field(default_factory=active, repr=False, compare=False)

    def __post_init__(self):
        if self.chunk_chars < 50:
            raise InputError(f"chunk_chars must be at least 50, got {self.chunk_chars}")
        if not 0 <= self.overlap_sentences <= 5:
            raise InputError(f"overlap_sentences must be 0..5, got {self.overlap_sentences}")
        if self.section_chars < self.chunk_chars:
            raise InputError("section_chars must be at least chunk_chars")
        if not 0 < self.header_footer_share <= 1:
            raise InputError("header_footer_share must be in (0, 1]")
        if self.ocr_dpi < 72:
            raise InputError("ocr_dpi must be at least 72")
        for name in ("max_pages", "max_ocr_pixels"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_ocr_pages < 0 or self.max_file_seconds < 0:
            raise InputError("max_ocr_pages and max_file_seconds must not be negative")
