"""The narrow interface both search backends implement.

Text is tokenized in Python (search/tokenize.py) and stored pre-tokenized
(whitespace-separated tokens), so the embedded index and Elasticsearch score
exactly the same tokens with BM25.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple, Protocol

from core.records import Chunk, Fact, ReportYear

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True)
class SearchQuery:
    """What to look for and where.

    Filters narrow the candidates; the should-clauses score them.

    >>> query = SearchQuery(text="保單借款的可借金額上限", doc_ids=("insurance/7", "insurance/241"))
    """

    text: str = ""  # free text, matched against body (tokenized by the backend's Tokenizer)
    phrases: tuple[str, ...] = ()  # key words that should appear as phrases in the body
    titles: tuple[str, ...] = ()  # terms matched against heading titles, boosted
    companies: tuple[str, ...] = ()  # filter: any of these company names
    years: tuple[int, ...] = ()  # filter: any of these years
    doc_ids: tuple[str, ...] = ()  # filter: document ids or id prefixes ("finance/" or "S100IXUZ")
    kinds: tuple[str, ...] = ()  # filter: chunk kinds ("text", "section", "table")
    language: str = ""  # "zh", "ja" or "latin": how every field is tokenized; "" reads it from `text`
    limit: int = 10
    title_boost: float = 2.0
    phrase_boost: float = 1.5


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float


class TextIndex(Protocol):
    """A chunk index. Implementations: search.embedded.EmbeddedIndex, search.elastic.ElasticIndex."""

    def add(self, chunks: Iterable[Chunk]) -> int:
        """Index chunks (replacing any with the same chunk_id); returns how many."""

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Remove every chunk of these documents."""

    def commit(self) -> None:
        """Make all additions and deletions durable and visible to search."""

    def compact(self) -> bool:
        """After an ingest's last commit: write the index again in the form searched fastest, when the backend
        can and that is cheap (every document added by this writer); an interruption keeps the index as it
        was. Whether it was written again."""

    def search(self, query: SearchQuery) -> list[Hit]:
        """Best hits first."""

    def search_many(self, queries: Sequence[SearchQuery]) -> list[list[Hit]]:
        """`search` of each query, in order, in as few round trips as the backend allows (a question batch)."""

    def count(self) -> int:
        """Number of chunks indexed."""

    def close(self) -> None: ...


class FactLookup(NamedTuple):
    """The arguments of one FactStore.lookup, as a key: a batch of them is sent at once by `lookup_many`."""

    company: str
    years: tuple[int, ...]
    fields: tuple[str, ...]


class CellFact(NamedTuple):
    """A fact of a table row as FactStore.row_cells gives it: what a table-cell answer weighs and prints.

    A tuple, not a dict or a Fact: a question reads the cells of 30-90 rows, a hundred or more new ones, and
    most are dropped on their row label and column header alone."""

    cell_id: str
    field: str  # the row label
    period: str  # the column's header path, "/"-joined
    year: int
    doc_id: str
    company: str
    value: str
    exact: str | None  # the number as exact decimal text, None for a text value: see `number`
    unit: str
    raw: str
    statement: str
    scope: str
    period_kind: str

    @property
    def number(self) -> Decimal | None:
        """The value as a Decimal, None for text (made when read: most cells' numbers never are)."""
        return None if self.exact is None else Decimal(self.exact)


class FactStore(Protocol):
    """Long-form facts and the company-years the corpus covers.

    Implementations: search.sqlite_facts.SqliteFactStore (embedded default),
    search.elastic_facts.ElasticFactStore. Query results have the columns
    of core.records.Fact plus `report_year` (the year of the report the value
    was printed in) and `precision` (RESULT_COLUMNS): pandas DataFrames for
    the queries over many companies, plain rows (dicts) from `lookup` and
    `reports`, CellFact tuples from `row_cells`. Every question's start-up
    reads the reports, a look-up question reads a few rows of one company,
    and a table-cell question weighs a few hundred cells one by one: none of
    them needs pandas, which takes 0.45 s to load.
    """

    def add(self, facts: Iterable[Fact], reports: Iterable[ReportYear] = ()) -> int: ...

    def delete_documents(self, doc_ids: Iterable[str]) -> None: ...

    def commit(self) -> None: ...

    def lookup(self, company: str, years: Iterable[int], fields: Sequence[str]) -> list[dict]:
        """Every candidate row for these names (tried in the order given), best first per year and field: dicts
        keyed by RESULT_COLUMNS, `number` a Decimal (None for text). The prefetching wrapper (search/prefetch.py)
        gives the same rows to every asker of a look-up of its batch: copy one before changing it."""

    def lookup_many(self, lookups: Sequence[FactLookup]) -> list[list[dict]]:
        """lookup() of each, in order; one round trip for the batch on a server."""

    def ranking(
        self,
        fields: str | Sequence[str],
        year: int,
        limit: int,
        descending: bool = True,
        unit: str | None = None,
    ) -> pandas.DataFrame:
        """Companies by the first of `fields` they report, top `limit` plus any tied with the last place."""

    def company_values(
        self,
        fields: Sequence[str],
        years: Iterable[int],
        unit: str | None = None,
        companies: Sequence[str] | None = None,
        condition: Condition | None = None,
    ) -> pandas.DataFrame:
        """Each company's preferred numeric fact per year (the lookup's preference), by company and year;
        only `companies` when given, only facts in `unit` when given, and only those whose preferred
        value meets `condition` when given."""

    def count_companies(
        self,
        fields: Sequence[str],
        year: int,
        unit: str | None = None,
        companies: Sequence[str] | None = None,
        condition: Condition | None = None,
    ) -> int:
        """How many companies company_values(fields, [year], ...) would give."""

    def companies_with_text(self, fields: Sequence[str], words: Sequence[str]) -> set[str]:
        """Companies with a text fact of one of `fields` (any year) containing one of `words`."""

    def row_cells(self, rows: Sequence[str]) -> Mapping[str, Sequence[CellFact]]:
        """Every fact of these table rows by row: the facts whose cell id is the row ("S100IXUZ-0105010-tab89-r25")
        followed by "c" and the column number (search.fact_rows.row_of), each row's in cell id order; a row
        without facts is left out. The rows given are shared with later calls: read them only."""
        ...

    def reports(self, company: str | None = None) -> list[dict]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Condition:
    """A threshold on a company's value: `op` one of > >= < <=, `value` in the fact's base unit."""

    op: str
    value: float

    def __post_init__(self):
        if self.op not in CONDITION_OPS:
            raise ValueError(f"unknown comparison {self.op!r}; one of {', '.join(CONDITION_OPS)}")

    def holds(self, number) -> bool:
        return {
            ">": number > self.value,
            ">=": number >= self.value,
            "<": number < self.value,
            "<=": number <= self.value,
        }[self.op]


CONDITION_OPS = (">", ">=", "<", "<=")
