"""Records the parser hands to the index and facts stores.

Everything downstream (search/, qa/) reads these types; nothing downstream
reads PDFs or HTML. Keep them small and plain so they pickle cheaply across
the ingestion process pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True)
class DocumentMeta:
    """Who and when a document is about.

    >>> meta = DocumentMeta("finance/12", company="台灣積體電路製造股份有限公司", year=2023)
    """

    doc_id: str  # path relative to the corpus root, no extension, "/"-separated
    company: str = ""  # full legal name
    short_name: str = ""
    code: str = ""  # stock / securities code
    year: int | None = None  # fiscal year the report covers
    language: str = ""  # "zh" (Simplified or Traditional) or "ja"
    title: str = ""
    quarter: int = 0  # the quarter its period ends in (1-4), 0 unknown (core/identity.py)
    period: str = ""  # "2023Q3", "2023H1", "2023FY", or "" unknown
    kind: str = ""  # financial_report, insurance_policy, faq, annual_report, securities_report; "" unknown


# A key-value table's record (parser/records.py): one line per pair, the label, the separator of
# rules/punctuation.yaml `record_separator`, the value.
RECORD_KIND = "record"


@dataclass(frozen=True)
class Chunk:
    """A piece of text to search, with where it came from.

    `titles` is the heading path from the outermost heading down
    (["第三节 管理层讨论与分析", "二、报告期内公司从事的主要业务"]), so a title
    query finds every chunk below a heading.
    """

    chunk_id: str  # stable: f"{doc_id}#{kind}{n}", so re-indexing is idempotent
    doc_id: str
    text: str
    titles: tuple[str, ...] = ()
    page_start: int = 0  # 1-based; 0 when the source has no pages (HTML, text)
    page_end: int = 0
    company: str = ""
    year: int | None = None
    kind: str = "text"  # "text" | "section" | "table" | RECORD_KIND
    cell_id: str = ""  # for table-row sentences from sources with cell ids
    period: str = ""  # the document's period ("2023Q3"), as DocumentMeta.period


@dataclass(frozen=True)
class Fact:
    """One value of one field for one company-year, in long form.

    `value` is the plain string (numbers normalised: no thousands separators,
    scaled to the base unit, minus sign for ▲/△/parentheses); `number` is the
    same as a Decimal or None for text values (电子信箱, 本店の所在の場所).
    """

    company: str  # "" when the document names none: the fact is kept with its doc_id, never another company's
    year: int
    field: str  # cleaned row label; canonical names come from rules/fields.yaml
    value: str
    number: Decimal | None = None
    unit: str = ""  # 元, 円, %, 株, 人 ... after scaling
    raw: str = ""  # the cell as printed, before scaling ("1,234", "▲56", "(7.8)")
    period: str = ""  # the column label the value came from (本期, 上期, 2021年 ...)
    short_name: str = ""
    code: str = ""
    doc_id: str = ""
    page: int = 0
    table: str = ""  # table id within the document ("p12t1", "tab4")
    cell_id: str = ""
    statement: str = ""  # the table's kind (core/statements.py KINDS, "other"); "" when not from a table
    scope: str = ""  # "consolidated" | "parent" | "" (unknown)
    # "quarter" | "half" | "change" (a column's or a movement row's) | "" (a full year or a year end)
    period_kind: str = ""


@dataclass(frozen=True)
class ReportYear:
    """A company-year the corpus covers: the basis of negative answers."""

    company: str
    year: int
    short_name: str = ""
    code: str = ""
    doc_id: str = ""


@dataclass(frozen=True)
class LawRecord:
    """A statute's entry in the register of law titles (search/law_register.py)."""

    title: str  # 金融商品取引法
    law_num: str = ""  # 昭和二十三年法律第二十五号
    law_id: str = ""  # e-Gov law id (323AC0000000025)
    kind: str = ""  # acts, cabinet_orders, misc (as the source says)
    abbreviations: tuple[str, ...] = ()  # short names the source gives (e-Gov XML Abbrev)


@dataclass(frozen=True)
class Box:
    """Where a line of running text or a word of a table is printed on a PDF page: the evidence highlight.

    In PDF points from the page's top-left corner (pdfplumber's x0, top, x1, bottom).
    """

    page: int  # 1-based
    kind: str  # "line" | "cell"
    text: str
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class ParsedDocument:
    """Everything one source file yields."""

    meta: DocumentMeta
    chunks: list[Chunk] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    reports: list[ReportYear] = field(default_factory=list)
    table_list: list[Table] = field(default_factory=list)  # for the per-document Excel workbook
    pages: int = 0
    tables: int = 0
    ocr_pages: int = 0
    no_text_pages: int = 0
    warnings: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # rows left out of a facts workbook: "file:row: reason"
    law: LawRecord | None = None  # statutes: the law's title and number for the register
    identity: dict = field(default_factory=dict)  # per identity field: value, confidence, source line
    layout: list[Box] = field(default_factory=list)  # PDF pages: text lines and table words with their boxes
    # pdfium's text of each PDF page the parser read it for (None: not read), reused for identity;
    # emptied before the document leaves its worker
    page_texts: list[str | None] = field(default_factory=list, repr=False)


@dataclass
class FileReport:
    """One row of the JSON ingest report."""

    path: str
    doc_id: str
    status: str  # "ingested" | "unchanged" | "failed" | "removed"
    pages: int = 0
    tables: int = 0
    chunks: int = 0
    facts: int = 0
    ocr_pages: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # bad rows left out of an ingested facts workbook
    facts_without_company: int = 0  # kept with the document, answering questions that name it
    identity: dict = field(default_factory=dict)  # company, period, kind ...: value, confidence, source line


@dataclass(frozen=True)
class Line:
    """One line of running text, as parsers hand it to the chunker.

    `heading_level` is set where the source says the line is a heading (HTML
    structure); for PDFs the chunker asks parser/headings.py.
    """

    text: str
    page: int = 0
    heading_level: int | None = None


@dataclass
class Table:
    """A table as a DataFrame, with where it sits in the document.

    `frame` has flattened column labels (multi-row headers joined with "/")
    and the row label in the first column. `cell_ids`, where the source has
    them (HTML securities reports), is a same-shaped frame of element ids.
    """

    table_id: str  # "p12t1" (page 12, table 1) or the HTML table id
    page: int
    frame: pandas.DataFrame
    title: str = ""  # nearest heading or caption above the table
    titles: tuple[str, ...] = ()  # heading path at the table
    cell_ids: pandas.DataFrame | None = None
    unit: str = ""  # unit stated above the table (单位：元 / 単位：百万円)
    statement: str = (
        ""  # kind and scope read from titles and first rows (core/statements.py), set by add_tables
    )
    scope: str = ""
