"""The embedded facts store: long-form facts and company-years in one SQLite file.

Facts are never loaded whole: every question reads only the rows it needs
through an index: plain rows (dicts) for a look-up, CellFact tuples for the
cells of table rows, a small pandas DataFrame for the queries over many
companies.

    facts(company, year, field, value, number, num, unit, raw, period, short_name, code,
          doc_id, page, table_id, cell_id, report_year, precision, statement, scope, period_kind)
      index (company, year, field)   lookups
      index (field, year, num)       rankings
      index (doc_id)                 deleting a document
      index (cell_id)                the cells of a table row (row_cells)
      index (field, year, company, report_year, precision, page, table_id, cell_id, unit, num)
                                     each company's preferred fact for counts and lists, read from
                                     the index alone (no table row is visited)
    reports(company, year, short_name, code, doc_id)   the company-years the corpus covers
    meta(key, value)   the store's generation id (see generation())

Which fact answers when several do: search/fact_rows.py (PREFERENCE).

>>> store = SqliteFactStore(Path(".index/facts.sqlite"))
>>> store.add(facts, reports); store.commit()
>>> store.lookup("康希诺生物股份公司", [2020], ["负债合计", "总负债"])   # best row first per (year, field)
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
import operator
import os
import sqlite3
import uuid
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InputError, StoreError
from core.lru import LeastRecent
from core.records import Fact, ReportYear
from search.backend import CellFact, Condition, FactLookup
from search.fact_rows import (
    REPORT_COLUMNS,
    RESULT_COLUMNS,
    WHERE_COLUMNS,
    precision_of,
    rank_companies,
    report_year_of,
    row_of,
)

if TYPE_CHECKING:
    import pandas as pd

_ROWS_PER_QUERY = 200  # row prefixes per query (two bound parameters each)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    company TEXT NOT NULL,
    year INTEGER NOT NULL,
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    number TEXT,            -- exact decimal text, NULL for text values
    num REAL,               -- the same as a double, for sorting
    unit TEXT NOT NULL DEFAULT '',
    raw TEXT NOT NULL DEFAULT '',
    period TEXT NOT NULL DEFAULT '',
    short_name TEXT NOT NULL DEFAULT '',
    code TEXT NOT NULL DEFAULT '',
    doc_id TEXT NOT NULL DEFAULT '',
    page INTEGER NOT NULL DEFAULT 0,
    table_id TEXT NOT NULL DEFAULT '',
    cell_id TEXT NOT NULL DEFAULT '',
    report_year INTEGER NOT NULL,
    precision INTEGER NOT NULL DEFAULT 0,
    statement TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL DEFAULT '',
    period_kind TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS facts_company_year_field ON facts (company, year, field);
CREATE INDEX IF NOT EXISTS facts_field_year_num ON facts (field, year, num);
CREATE INDEX IF NOT EXISTS facts_doc ON facts (doc_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS facts_cell ON facts (cell_id);
CREATE INDEX IF NOT EXISTS facts_pick ON facts (field, year, company, report_year, precision, page, table_id, cell_id, unit, num);
CREATE TABLE IF NOT EXISTS reports (
    company TEXT NOT NULL,
    year INTEGER NOT NULL,
    short_name TEXT NOT NULL DEFAULT '',
    code TEXT NOT NULL DEFAULT '',
    doc_id TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (company, year, doc_id)
);
CREATE INDEX IF NOT EXISTS reports_doc ON reports (doc_id);
"""

_COLUMNS_SQL = (
    "company, year, field, value, number, unit, raw, period, short_name, code, doc_id, page, "
    'table_id AS "table", cell_id, report_year, precision, statement, scope, period_kind'
)
_SELECT = f"SELECT {_COLUMNS_SQL} FROM facts"
# CellFact's fields, in its order: the columns a table-cell answer reads (its `exact` is the `number` column's text)
_CELLS_SELECT = (
    "SELECT " + ", ".join("number" if name == "exact" else name for name in CellFact._fields) + " FROM facts"
)
_cell_id = operator.attrgetter("cell_id")
# CellFact._make without its length check (the query gives its fields): one C call a fact, not a Python one
_cell_fact = functools.partial(tuple.__new__, CellFact)


def store_error(exc: sqlite3.Error, path: Path) -> StoreError | None:
    """What a failed statement means for the user, as one line: a full disk, a damaged file; None when it is
    neither (a lock is the caller's to explain)."""
    text = str(exc)
    if "disk is full" in text:
        return StoreError(f"cannot write the facts store: the disk is full ({text})", str(path))
    if "disk I/O error" in text:
        return StoreError(f"cannot read or write the facts store ({text})", str(path))
    if isinstance(exc, sqlite3.OperationalError) and "malformed" not in text:
        return None
    return StoreError(
        f"facts store is damaged ({text}); ingest again into a new INDEX_DIR (this one is kept)", str(path)
    )


def _one_line(method):
    """The method with a full disk or a damaged file as a StoreError naming the store (found when a page is
    read or written, long after the store opened)."""

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            error = store_error(exc, self.path)
            if error is None:
                raise
            raise error from None

    return wrapped


class SqliteFactStore:
    """Facts in one SQLite file (WAL journal: readers never block the writer).

    add() and delete_documents() run in one transaction that commit() ends;
    a crash before commit() leaves the store as it was. A document is
    replaced by deleting it and adding it again (what the ingest does).
    """

    def __init__(
        self,
        path: Path,
        batch_size: int = 5000,
        timeout: float = 30.0,
        cache_mb: int = 64,
        page_size: int = 200,
        cached_rows: int = 8192,
    ):
        """`timeout`: seconds to wait for another process's write transaction before giving up;
        `cache_mb`: SQLite's page cache (index pages stay cached while a corpus is added);
        `page_size`: (company, value) pairs a ranking reads per step;
        `cached_rows`: table rows whose cells row_cells keeps (questions about one report read the same rows)."""
        if batch_size < 1 or page_size < 1 or cached_rows < 1:
            raise InputError(
                f"batch_size, page_size and cached_rows must be positive, "
                f"got {batch_size}, {page_size}, {cached_rows}"
            )
        if timeout < 0:
            raise InputError(f"timeout must not be negative, got {timeout}")
        if cache_mb < 1:
            raise InputError(f"cache_mb must be positive, got {cache_mb}")
        self.path = Path(path)
        self.batch_size = batch_size
        self.page_size = page_size
        self._rows: LeastRecent[str, tuple[CellFact, ...]] = LeastRecent(cached_rows)
        self._data_version = -1  # SQLite's count of other connections' commits when _rows was last valid
        self.read_only = self.path.is_file() and not os.access(self.path.parent, os.W_OK)
        try:
            if (
                self.read_only
            ):  # a read-only folder (mount, permissions): no journal can be made; read as it is
                self._db = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?immutable=1",
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,
                )
                self._db.execute("SELECT COUNT(*) FROM facts")
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(
                    self.path, timeout=timeout, isolation_level=None, check_same_thread=False
                )
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.executescript(_SCHEMA)
                self._add_missing_columns()
            self._db.execute(f"PRAGMA cache_size=-{cache_mb * 1024}")
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) or StoreError(
                f"facts store cannot be opened ({exc}); is another ingest writing it?", str(self.path)
            ) from None

    # -- writing -----------------------------------------------------------------------------------

    @_one_line
    def add(self, facts: Iterable[Fact], reports: Iterable[ReportYear] = ()) -> int:
        """Store facts and company-years (in the open transaction); returns how many facts."""
        self._begin()
        reports = list(reports)
        self._db.executemany(
            "INSERT OR REPLACE INTO reports (company, year, short_name, code, doc_id) VALUES (?, ?, ?, ?, ?)",
            [(r.company, int(r.year), r.short_name, r.code, r.doc_id) for r in reports],
        )
        report_years = _ReportYears(self._db)
        count = 0
        batch: list[tuple] = []
        for fact in facts:
            batch.append(_row(fact, report_years.of(fact)))
            if len(batch) >= self.batch_size:
                count += self._insert(batch)
                batch = []
        if batch:
            count += self._insert(batch)
        return count

    @_one_line
    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Remove every fact and company-year of these documents (in the open transaction)."""
        self._begin()
        ids = [(d,) for d in doc_ids]
        self._db.executemany("DELETE FROM facts WHERE doc_id = ?", ids)
        self._db.executemany("DELETE FROM reports WHERE doc_id = ?", ids)

    @_one_line
    def commit(self) -> None:
        if self._db.in_transaction:
            self._db.execute("COMMIT")

    def rollback(self) -> None:
        self._rows.clear()
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    # -- reading -----------------------------------------------------------------------------------

    @_one_line
    def lookup(self, company: str, years: Iterable[int], fields: Sequence[str]) -> list[dict]:
        """Every fact of (company, year in years, field in fields), best first per (year, field), as
        RESULT_COLUMNS dicts (`number` a Decimal, None for text).

        `fields` are the names to try in order (a canonical name, then its synonyms); a row's `field` says which
        one matched."""
        years, fields = [int(y) for y in years], list(dict.fromkeys(fields))
        if not years or not fields:
            return []
        order = " ".join(f"WHEN ? THEN {i}" for i in range(len(fields)))
        sql = (
            f"{_SELECT} WHERE company = ? AND year IN ({_marks(years)}) AND field IN ({_marks(fields)}) "
            f"ORDER BY year, (report_year != year), CASE field {order} END, precision, page, table_id, cell_id, rowid"
        )
        rows = self._db.execute(sql, [company, *years, *fields, *fields]).fetchall()
        # Plain rows, not a frame: a question that looks up one value starts without pandas (0.45 s to load).
        return [dict(zip(RESULT_COLUMNS, row)) for row in _with_decimals(rows)]

    @_one_line
    def lookup_many(self, lookups: Sequence[FactLookup]) -> list[list[dict]]:
        """lookup() of each (company, years, fields): a local file gains nothing from a batch."""
        return [self.lookup(*lookup) for lookup in lookups]

    @_one_line
    def ranking(
        self,
        fields: str | Sequence[str],
        year: int,
        limit: int,
        descending: bool = True,
        unit: str | None = None,
    ) -> pd.DataFrame:
        """Companies by a numeric field in a year: the first `limit`, plus any tied with the last one.

        Each company counts once, with its preferred fact; `fields` as in lookup(). `unit` keeps
        only facts in that unit (元 and 円 amounts do not rank together)."""
        fields = [fields] if isinstance(fields, str) else list(dict.fromkeys(fields))
        if limit < 1 or not fields:
            return _frame([])
        rest = "year = ? AND num IS NOT NULL AND company != ''" + ("" if unit is None else " AND unit = ?")
        rest_args = [int(year)] + ([] if unit is None else [unit])
        where, args = f"field IN ({_marks(fields)}) AND {rest}", [*fields, *rest_args]
        # (company, num) down the (field, year, num) index, one cursor per name merged lazily:
        # one query over all names would sort every candidate first.
        cursors = [
            self._db.execute(
                f"SELECT company, num FROM facts WHERE field = ? AND {rest} "
                f"ORDER BY num {'DESC' if descending else 'ASC'}",
                [name, *rest_args],
            )
            for name in fields
        ]
        merged = heapq.merge(*cursors, key=lambda row: row[1], reverse=descending)
        sizes = itertools.chain([limit + 10], itertools.repeat(self.page_size))  # the top is usually enough
        pages = iter(lambda: list(itertools.islice(merged, next(sizes))), [])
        order = " ".join(f"WHEN ? THEN {i}" for i in range(len(fields)))

        def preferred(companies: list[str]) -> list[tuple]:
            # INDEXED BY: a few companies' facts, found by company (the planner would scan the field's rows).
            sql = (
                f"SELECT {_COLUMNS_SQL}, num FROM facts INDEXED BY facts_company_year_field "
                f"WHERE company IN ({_marks(companies)}) AND {where} "
                f"ORDER BY company, (report_year != year), CASE field {order} END, precision, page, table_id, "
                "cell_id, rowid"
            )
            return self._db.execute(sql, [*companies, *args, *fields]).fetchall()

        rows = rank_companies(pages, preferred, limit, descending)
        for cursor in cursors:
            cursor.close()
        return _frame([row[:-1] for row in rows])

    @_one_line
    def company_values(
        self,
        fields: Sequence[str],
        years: Iterable[int],
        unit: str | None = None,
        companies: Sequence[str] | None = None,
        condition: Condition | None = None,
    ) -> pd.DataFrame:
        """Each company's preferred numeric fact per year, picked and filtered in SQL (a window over
        the (field, year, num) index's rows), by company and year."""
        picked = self._picked(fields, years, unit, companies, condition)
        if picked is None:
            return _frame([])
        sql, args = picked
        rows = self._db.execute(
            f"{_SELECT} WHERE rowid IN (SELECT rid FROM ({sql})) ORDER BY company, year", args
        ).fetchall()
        return _frame(rows)

    @_one_line
    def count_companies(
        self,
        fields: Sequence[str],
        year: int,
        unit: str | None = None,
        companies: Sequence[str] | None = None,
        condition: Condition | None = None,
    ) -> int:
        picked = self._picked(fields, [year], unit, companies, condition)
        if picked is None:
            return 0
        sql, args = picked
        return self._db.execute(f"SELECT COUNT(*) FROM ({sql})", args).fetchone()[0]

    @_one_line
    def companies_with_text(self, fields: Sequence[str], words: Sequence[str]) -> set[str]:
        fields, words = list(dict.fromkeys(fields)), [w for w in dict.fromkeys(words) if w]
        if not fields or not words:
            return set()
        likes = " OR ".join("instr(value, ?) > 0" for _ in words)
        rows = self._db.execute(
            f"SELECT DISTINCT company FROM facts WHERE field IN ({_marks(fields)}) "
            f"AND num IS NULL AND company != '' AND ({likes})",
            [*fields, *words],
        )
        return {r[0] for r in rows}

    def _picked(
        self,
        fields: Sequence[str],
        years: Iterable[int],
        unit: str | None,
        companies: Sequence[str] | None,
        condition: Condition | None,
    ) -> tuple[str, list] | None:
        """SQL selecting the rowid (`rid`) of each company-year's preferred fact, and its arguments."""
        fields, years = list(dict.fromkeys(fields)), sorted({int(y) for y in years})
        if not fields or not years or (companies is not None and not companies):
            return None
        # over companies: a fact of a document whose company is unknown ("") is no company's
        where = [
            f"field IN ({_marks(fields)})",
            f"year IN ({_marks(years)})",
            "num IS NOT NULL",
            "company != ''",
        ]
        args: list = [*fields, *years]
        if unit is not None:
            where.append("unit = ?")
            args.append(unit)
        if companies is not None:
            where.append("company IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(list(companies), ensure_ascii=False))
        order = " ".join(f"WHEN ? THEN {i}" for i in range(len(fields)))
        args = [*fields, *args]  # the CASE's names come first in the text
        sql = (
            f"SELECT rid FROM (SELECT rowid AS rid, num, ROW_NUMBER() OVER (PARTITION BY company, year "
            f"ORDER BY (report_year != year), CASE field {order} END, precision, page, table_id, cell_id, rowid) "
            f"AS pick FROM facts INDEXED BY facts_pick WHERE {' AND '.join(where)}) WHERE pick = 1"
        )
        if condition is not None:
            sql += f" AND num {condition.op} ?"
            args.append(float(condition.value))
        return sql, args

    @_one_line
    def row_cells(self, rows: Sequence[str]) -> dict[str, tuple[CellFact, ...]]:
        """As search.backend.FactStore.row_cells: cell id ranges down the (cell_id) index, each row kept until
        the store changes (questions about one report read the same rows)."""
        self._forget_rows_if_changed()
        cells: dict[str, tuple[CellFact, ...]] = {}
        missing: list[str] = []
        for row in dict.fromkeys(rows):
            kept = self._rows.get(row)
            if kept is None:
                missing.append(row)
            elif kept:
                cells[row] = kept
        read: dict[str, list[CellFact]] = {row: [] for row in missing}
        for start in range(0, len(missing), _ROWS_PER_QUERY):
            part = missing[start : start + _ROWS_PER_QUERY]
            ranges = " OR ".join(["(cell_id >= ? AND cell_id < ?)"] * len(part))
            args = [bound for row in part for bound in (row + "c", row + "d")]
            for fact in map(_cell_fact, self._db.execute(f"{_CELLS_SELECT} WHERE {ranges}", args).fetchall()):
                facts = read.get(row_of(fact.cell_id))
                if facts is not None:  # else a cell of a row not asked whose id starts as an asked row's
                    facts.append(fact)
        for row, facts in read.items():
            facts.sort(key=_cell_id)
            self._rows[row] = kept = tuple(facts)
            if kept:
                cells[row] = kept
        return cells

    def _forget_rows_if_changed(self) -> None:
        """Drop the kept rows when another connection has committed since (an ingest while questions are
        answered); this connection's own writes drop them in _begin and rollback."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._rows.clear()
            self._data_version = version

    @_one_line
    def reports(self, company: str | None = None) -> list[dict]:
        """The company-years the corpus covers (all, or one company's), by company and year, as rows."""
        sql = "SELECT company, year, short_name, code, doc_id FROM reports"
        args: list = []
        if company is not None:
            sql += " WHERE company = ?"
            args.append(company)
        rows = self._db.execute(sql + " ORDER BY company, year, doc_id", args).fetchall()
        return [dict(zip(REPORT_COLUMNS, row)) for row in rows]

    @_one_line
    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM facts").fetchone()[0]

    @_one_line
    def generation(self) -> str:
        """An id made with the store (table meta): a new one when the file is made again or emptied."""
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        except sqlite3.OperationalError:  # a read-only store made before generations were kept
            return ""
        if row is None and not self.read_only:
            self._db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', ?)", (uuid.uuid4().hex,)
            )
            row = self._db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return row[0] if row else ""

    def close(self) -> None:
        self.rollback()
        self._db.close()

    def __enter__(self) -> SqliteFactStore:
        return self

    def __exit__(self, *_):
        self.close()

    def _begin(self) -> None:
        self._rows.clear()  # the rows kept may be about to change
        if not self._db.in_transaction:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"facts store is locked by another process: {exc}", str(self.path)) from None

    def _insert(self, rows: list[tuple]) -> int:
        self._db.executemany(
            "INSERT INTO facts (company, year, field, value, number, num, unit, raw, period, short_name, code, "
            "doc_id, page, table_id, cell_id, report_year, precision, statement, scope, period_kind) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return len(rows)

    def _add_missing_columns(self) -> None:
        """A store written before the WHERE_COLUMNS existed gets them, empty (its facts re-ingest to fill them)."""
        have = {row[1] for row in self._db.execute("PRAGMA table_info(facts)")}
        for name in WHERE_COLUMNS:
            if name not in have:
                self._db.execute(f"ALTER TABLE facts ADD COLUMN {name} TEXT NOT NULL DEFAULT ''")


class _ReportYears:
    """The year of the report each fact came from (`report_year`), from the reports of its document.

    A document covering one company-year gives that year. A facts workbook may
    cover many: a fact's own year when the workbook lists it, else the next
    year's report (a previous-year value), else the fact's own year.
    """

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        self._cache: dict[tuple[str, str], frozenset[int]] = {}

    def of(self, fact: Fact) -> int:
        year = int(fact.year)
        if not fact.doc_id:
            return year
        key = (fact.doc_id, fact.company)
        years = self._cache.get(key)
        if years is None:
            rows = self._db.execute("SELECT DISTINCT year FROM reports WHERE doc_id = ? AND company = ?", key)
            years = self._cache[key] = frozenset(r[0] for r in rows)
        return report_year_of(year, years)


def _row(fact: Fact, report_year: int) -> tuple:
    number = fact.number
    return (
        fact.company,
        int(fact.year),
        fact.field,
        fact.value,
        None if number is None else str(number),
        None if number is None else float(number),
        fact.unit,
        fact.raw,
        fact.period,
        fact.short_name,
        fact.code,
        fact.doc_id,
        int(fact.page or 0),
        fact.table,
        fact.cell_id,
        report_year,
        precision_of(number, fact.raw),
        fact.statement,
        fact.scope,
        fact.period_kind,
    )


def _frame(rows: list) -> pd.DataFrame:
    """Rows in RESULT_COLUMNS order as a DataFrame of Python values (one object block: cheap to
    build for the few rows of a question); `number` holds Decimals, None for text."""
    import numpy as np  # loaded by the first look-up: a question that makes none starts without pandas
    import pandas as pd

    block = np.empty((len(rows), len(RESULT_COLUMNS)), dtype=object)
    if rows:
        block[:] = _with_decimals(rows)
    return pd.DataFrame(block, columns=list(RESULT_COLUMNS), dtype=object)  # dtype: no per-column inference


def _with_decimals(rows: list) -> list[tuple]:
    """Rows in RESULT_COLUMNS order with `number` as a Decimal (stored as text: no float rounding)."""
    at = RESULT_COLUMNS.index("number")
    return [(*r[:at], None if r[at] is None else Decimal(r[at]), *r[at + 1 :]) for r in rows]


def _marks(values: Sequence) -> str:
    return ", ".join("?" * len(values))
