"""The Elasticsearch facts store: facts and company-years in the index `{es_prefix}-facts`.

Same contract and the same preference order as the SQLite store
(search.fact_rows.PREFERENCE: own report, name order, precision, page, table, cell id), so both
backends answer alike:

- keyword company / field / doc_id, integer year, double `num` for sorting;
  the exact Decimal text and the rest of the fact live in an unindexed object;
- lookups fetch the few candidate facts of (company, years, names) and order
  them in Python with the shared preference key;
- rankings read facts sorted by `num` page by page and stop as soon as no
  unseen company can enter the top N (search.fact_rows.rank_companies, shared
  with the SQLite store), so they touch only the top of the index.

No script, delete-by-query or mapper plugin is used: the minimal server
docker/elasticsearch.sh runs has none of them.

>>> store = ElasticFactStore.connect(IndexSettings(Path(".index"), backend="elasticsearch"))
>>> store.add(facts, reports); store.commit()
>>> store.ranking("营业收入", 2021, 10)
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal

import numpy as np
import pandas as pd
from elasticsearch import Elasticsearch, helpers

from core.errors import InputError
from core.records import Fact, ReportYear
from search.backend import CellFact, Condition, FactLookup
from search.elastic import ElasticStore, ensure_index
from search.fact_rows import (
    REPORT_COLUMNS,
    RESULT_COLUMNS,
    precision_of,
    rank_companies,
    report_year_of,
    row_of,
)
from search.settings import IndexSettings

MAPPING_VERSION = 2  # bump when the mapping changes; an index of another version is refused

_KEYWORD = {"type": "keyword"}
_INTEGER = {"type": "integer"}
MAPPING = {
    "dynamic": "strict",
    "_meta": {"finqa_mapping": MAPPING_VERSION},
    "properties": {
        "kind": _KEYWORD,  # "fact" | "report"
        "company": _KEYWORD,
        "year": _INTEGER,
        "field": _KEYWORD,
        "num": {"type": "double"},
        "doc_id": _KEYWORD,
        "report_year": _INTEGER,
        "precision": _INTEGER,
        "page": _INTEGER,
        "table": _KEYWORD,
        "cell_id": _KEYWORD,
        "unit": _KEYWORD,
        "short_name": _KEYWORD,
        "code": _KEYWORD,
        "text": {"type": "keyword", "ignore_above": 1024},  # a text fact's value (addresses), for filters
        "statement": _KEYWORD,
        "scope": _KEYWORD,
        "period_kind": _KEYWORD,
        # value, exact number, raw, period: returned, never searched.
        "stored": {"type": "object", "enabled": False},
    },
}
_LOOKUP_SIZE = 10000  # candidate facts of a few companies, years and names: far fewer
# What picking a company-year's preferred fact reads (see _preference), and the value.
_PICK_SOURCE = ["company", "year", "field", "report_year", "precision", "page", "table", "cell_id", "num"]
_MAX_COMPANIES = 65536  # companies one count aggregates (Elasticsearch's default search.max_buckets)
_RANGE = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}


class ElasticFactStore(ElasticStore):
    """Facts in Elasticsearch; implements search.backend.FactStore.

    Facts are sent in bulk as they are added (ids derived from their content,
    so sending a fact again replaces it); commit() refreshes the index.
    `lookup_many` sends a batch of look-ups in `_msearch` requests of `msearch_size`.
    """

    suffix = "facts"

    def __init__(
        self,
        settings: IndexSettings,
        client: Elasticsearch | None = None,
        bulk_size: int = 2000,
        page_size: int = 200,
        msearch_size: int = 100,
    ):
        if bulk_size < 1 or page_size < 1 or msearch_size < 1:
            raise InputError(
                f"bulk_size, page_size and msearch_size must be positive, got {bulk_size}, {page_size}, "
                f"{msearch_size}"
            )
        super().__init__(settings, client, bulk_size)
        self.page_size = page_size
        self.msearch_size = msearch_size
        ensure_index(self.client, self.name, MAPPING, MAPPING_VERSION, self.settings.es_url)

    @classmethod
    def connect(cls, settings: IndexSettings) -> ElasticFactStore:
        return cls(settings)

    # -- writing -----------------------------------------------------------------------------------

    def add(self, facts: Iterable[Fact], reports: Iterable[ReportYear] = ()) -> int:
        """Store facts and company-years. A document's company-years given in the same call
        (as the ingest does) decide its facts' report years; others are read from the index."""
        reports = list(reports)
        given: dict[tuple[str, str], set[int]] = {}
        for r in reports:
            given.setdefault((r.doc_id, r.company), set()).add(int(r.year))
        actions = itertools.chain(self._report_actions(reports), self._fact_actions(facts, given))
        return self._bulk(actions, "facts and company-years") - len(reports)

    def commit(self) -> None:
        self._call(lambda: self.client.indices.refresh(index=self.name))

    # -- reading -----------------------------------------------------------------------------------

    def lookup(self, company: str, years: Iterable[int], fields: Sequence[str]) -> list[dict]:
        return self.lookup_many([FactLookup(company, tuple(years), tuple(fields))])[0]

    def lookup_many(self, lookups: Sequence[FactLookup]) -> list[list[dict]]:
        """The lookup of each (company, years, fields), in order, from one `_msearch` per `msearch_size`."""
        asked = [([int(y) for y in years], list(dict.fromkeys(fields))) for _, years, fields in lookups]
        pending = [
            (i, {"query": _facts_query(fields, company=[company], years=years), "size": _LOOKUP_SIZE})
            for i, ((company, _, _), (years, fields)) in enumerate(zip(lookups, asked))
            if years and fields
        ]
        found: list[list[dict]] = [[] for _ in lookups]
        for (i, _), response in zip(pending, self._msearch([body for _, body in pending], self.msearch_size)):
            rank = {name: n for n, name in enumerate(asked[i][1])}
            ordered = sorted(
                (_row(hit) for hit in response["hits"]["hits"]),
                key=lambda r: (r["year"], *_preference(r, rank)),
            )
            found[i] = [{column: row[column] for column in RESULT_COLUMNS} for row in ordered]
        return found

    def row_cells(self, rows: Sequence[str]) -> dict[str, tuple[CellFact, ...]]:
        """As search.backend.FactStore.row_cells: prefix queries on the cell id keyword."""
        rows = list(dict.fromkeys(rows))
        read: dict[str, list[CellFact]] = {row: [] for row in rows}
        for start in range(0, len(rows), 500):
            query = {
                "bool": {
                    "filter": [{"term": {"kind": "fact"}}],
                    "should": [{"prefix": {"cell_id": row + "c"}} for row in rows[start : start + 500]],
                    "minimum_should_match": 1,
                }
            }
            response = self._call(lambda: self.client.search(index=self.name, query=query, size=_LOOKUP_SIZE))  # noqa: B023 - called at once, in this iteration
            for hit in response["hits"]["hits"]:
                fact = _cell_fact(hit)
                facts = read.get(row_of(fact.cell_id))
                if facts is not None:  # else a cell of a row not asked whose id starts as an asked row's
                    facts.append(fact)
        return {row: tuple(sorted(facts, key=lambda f: f.cell_id)) for row, facts in read.items() if facts}

    def ranking(
        self,
        fields: str | Sequence[str],
        year: int,
        limit: int,
        descending: bool = True,
        unit: str | None = None,
    ) -> pd.DataFrame:
        fields = [fields] if isinstance(fields, str) else list(dict.fromkeys(fields))
        if limit < 1 or not fields:
            return _frame([])
        rank = {name: i for i, name in enumerate(fields)}
        query = _facts_query(fields, years=[int(year)], numeric=True, unit=unit)

        def pages() -> Iterator[list[tuple[str, float]]]:
            after, size = None, limit + 10  # the top is usually enough
            while True:
                response = self._call(
                    lambda: self.client.search(
                        index=self.name,
                        query=query,
                        size=size,  # noqa: B023 - called at once, in this iteration
                        source=["company", "num"],
                        sort=[{"num": "desc" if descending else "asc"}, {"company": "asc"}],
                        search_after=after,  # noqa: B023 - called at once, in this iteration
                    )
                )
                hits = response["hits"]["hits"]
                if not hits:
                    return
                yield [(h["_source"]["company"], h["_source"]["num"]) for h in hits]
                after, size = hits[-1]["sort"], self.page_size

        def preferred(companies: list[str]) -> list[tuple]:
            candidates = _facts_query(fields, company=companies, years=[int(year)], numeric=True, unit=unit)
            response = self._call(
                lambda: self.client.search(index=self.name, query=candidates, size=_LOOKUP_SIZE)
            )
            rows = sorted(
                map(_row, response["hits"]["hits"]), key=lambda r: (r["company"], *_preference(r, rank))
            )
            return [tuple(r[c] for c in RESULT_COLUMNS) + (r["num"],) for r in rows]

        rows = rank_companies(pages(), preferred, limit, descending)
        return _frame([dict(zip(RESULT_COLUMNS, row)) for row in rows])

    def company_values(
        self,
        fields: Sequence[str],
        years: Iterable[int],
        unit: str | None = None,
        companies: Sequence[str] | None = None,
        condition: Condition | None = None,
    ) -> pd.DataFrame:
        """As the SQLite store; the candidates are filtered here, each company-year's preferred one is
        picked with the shared preference key."""
        rows = self._picked(fields, years, unit, companies, condition, source=True)
        rows.sort(key=lambda r: (r["company"], r["year"]))
        return _frame(rows)

    def count_companies(
        self,
        fields: Sequence[str],
        year: int,
        unit: str | None = None,
        companies: Sequence[str] | None = None,
        condition: Condition | None = None,
    ) -> int:
        """Counted by aggregation: per company, its facts from its own report (the first preference),
        else all its facts, decide when they all meet the condition or none does; the few companies
        whose deciding facts disagree are settled by picking their preferred fact."""
        if condition is None:
            return len(self._picked(fields, [year], unit, companies, None, source=_PICK_SOURCE))
        fields = list(dict.fromkeys(fields))
        if not fields or (companies is not None and not companies):
            return 0
        query = _facts_query(
            fields,
            company=None if companies is None else list(companies),
            years=[int(year)],
            numeric=True,
            unit=unit,
        )
        meeting = {"filter": {"range": {"num": {_RANGE[condition.op]: condition.value}}}}
        aggs = {
            "companies": {
                "terms": {"field": "company", "size": _MAX_COMPANIES},
                "aggs": {
                    "meeting": meeting,
                    "own": {"filter": {"term": {"report_year": int(year)}}, "aggs": {"meeting": meeting}},
                },
            }
        }
        response = self._call(
            lambda: self.client.search(
                index=self.name,
                query=query,
                size=0,
                aggs=aggs,
                filter_path=[
                    "aggregations.companies.buckets.key",
                    "aggregations.companies.buckets.doc_count",
                    "aggregations.companies.buckets.meeting.doc_count",
                    "aggregations.companies.buckets.own",
                ],
            )
        )
        count, undecided = 0, []
        for bucket in response.get("aggregations", {}).get("companies", {}).get("buckets", []):
            tier = bucket["own"] if bucket["own"]["doc_count"] else bucket
            if tier["meeting"]["doc_count"] == tier["doc_count"]:
                count += 1
            elif tier["meeting"]["doc_count"]:
                undecided.append(bucket["key"])
        if undecided:
            count += len(self._picked(fields, [year], unit, undecided, condition, source=_PICK_SOURCE))
        return count

    def companies_with_text(self, fields: Sequence[str], words: Sequence[str]) -> set[str]:
        fields, words = list(dict.fromkeys(fields)), [w for w in dict.fromkeys(words) if w]
        if not fields or not words:
            return set()
        query = {
            "bool": {
                "filter": [{"term": {"kind": "fact"}}, {"terms": {"field": fields}}],
                "must_not": [{"term": {"company": ""}}],
                "should": [{"wildcard": {"text": {"value": f"*{w}*"}}} for w in words],
                "minimum_should_match": 1,
            }
        }
        response = self._call(
            lambda: self.client.search(
                index=self.name,
                query=query,
                size=0,
                aggs={"companies": {"terms": {"field": "company", "size": 65000}}},
            )
        )
        return {b["key"] for b in response["aggregations"]["companies"]["buckets"]}

    def _picked(
        self,
        fields: Sequence[str],
        years: Iterable[int],
        unit: str | None,
        companies: Sequence[str] | None,
        condition: Condition | None,
        source,
    ) -> list[dict]:
        """Each company-year's preferred candidate (rows as dicts), meeting `condition`. With a condition only
        the companies with a fact meeting it are read, then all their candidates (one may be preferred)."""
        fields, years = list(dict.fromkeys(fields)), sorted({int(y) for y in years})
        if not fields or not years or (companies is not None and not companies):
            return []
        companies = None if companies is None else list(dict.fromkeys(companies))
        if condition is not None:
            meeting = _facts_query(fields, company=companies, years=years, numeric=True, unit=unit)
            meeting["bool"]["filter"].append({"range": {"num": {_RANGE[condition.op]: condition.value}}})
            companies = sorted({r["company"] for r in self._all(meeting, ["company"])})
            if not companies:
                return []
        query = _facts_query(fields, company=companies, years=years, numeric=True, unit=unit)
        rank = {name: i for i, name in enumerate(fields)}
        best: dict[tuple[str, int], dict] = {}
        for row in self._all(query, source):
            row = _row({"_source": row}) if source is True else row
            key = (row["company"], row["year"])
            if key not in best or _preference(row, rank) < _preference(best[key], rank):
                best[key] = row
        return [r for r in best.values() if condition is None or condition.holds(r["num"])]

    def _all(self, query: dict, source) -> list[dict]:
        """Every matching document's source: one request when they fit in one, else a scroll."""
        response = self._call(
            lambda: self.client.search(
                index=self.name, query=query, size=_LOOKUP_SIZE, source=source, track_total_hits=True
            )
        )
        hits = response["hits"]["hits"]
        if response["hits"]["total"]["value"] > len(hits):
            hits = self._call(
                lambda: list(
                    helpers.scan(
                        self.client,
                        index=self.name,
                        query={"query": query},
                        _source=source,
                        size=_LOOKUP_SIZE,
                    )
                )
            )
        return [h["_source"] for h in hits]

    def reports(self, company: str | None = None) -> list[dict]:
        query: dict = {"bool": {"filter": [{"term": {"kind": "report"}}]}}
        if company is not None:
            query["bool"]["filter"].append({"term": {"company": company}})
        rows = [
            {c: hit["_source"].get(c, "") for c in REPORT_COLUMNS}
            for hit in self._call(
                lambda: list(helpers.scan(self.client, index=self.name, query={"query": query}, size=5000))
            )
        ]
        rows.sort(key=lambda r: (r["company"], r["year"], r["doc_id"]))
        return rows

    def count(self) -> int:
        return int(
            self._call(lambda: self.client.count(index=self.name, query={"term": {"kind": "fact"}}))["count"]
        )

    # -- internals ---------------------------------------------------------------------------------

    def _fact_actions(self, facts: Iterable[Fact], given: dict[tuple[str, str], set[int]]) -> Iterator[dict]:
        document_years = {key: frozenset(years) for key, years in given.items()}
        refreshed = False
        for fact in facts:
            key = (fact.doc_id, fact.company)
            if fact.doc_id and key not in document_years:
                if not refreshed:  # searches see only refreshed documents
                    self.commit()
                    refreshed = True
                document_years[key] = self._document_years(*key)
            year = int(fact.year)
            number = fact.number
            source = {
                "kind": "fact",
                "company": fact.company,
                "year": year,
                "field": fact.field,
                "doc_id": fact.doc_id,
                "report_year": report_year_of(year, document_years.get(key, frozenset())),
                "precision": precision_of(number, fact.raw),
                "page": int(fact.page or 0),
                "table": fact.table,
                "cell_id": fact.cell_id,
                "unit": fact.unit,
                "short_name": fact.short_name,
                "code": fact.code,
                "statement": fact.statement,
                "scope": fact.scope,
                "period_kind": fact.period_kind,
                "stored": {
                    "value": fact.value,
                    "number": None if number is None else str(number),
                    "raw": fact.raw,
                    "period": fact.period,
                },
            }
            if number is not None:
                source["num"] = float(number)
            else:
                source["text"] = fact.value
            yield {"_op_type": "index", "_index": self.name, "_id": _fact_id(fact), "_source": source}

    def _report_actions(self, reports: list[ReportYear]) -> Iterator[dict]:
        for r in reports:
            source = {
                "kind": "report",
                "company": r.company,
                "year": int(r.year),
                "short_name": r.short_name,
                "code": r.code,
                "doc_id": r.doc_id,
            }
            yield {
                "_op_type": "index",
                "_index": self.name,
                "_id": _digest("report", r.company, r.year, r.doc_id),
                "_source": source,
            }

    def _document_years(self, doc_id: str, company: str) -> frozenset[int]:
        query = {
            "bool": {
                "filter": [
                    {"term": {"kind": "report"}},
                    {"term": {"doc_id": doc_id}},
                    {"term": {"company": company}},
                ]
            }
        }
        response = self._call(
            lambda: self.client.search(index=self.name, query=query, size=1000, source=["year"])
        )
        return frozenset(int(h["_source"]["year"]) for h in response["hits"]["hits"])


def _facts_query(
    fields: list[str],
    company: list[str] | None = None,
    years: list[int] | None = None,
    numeric: bool = False,
    unit: str | None = None,
) -> dict:
    filters: list[dict] = [{"term": {"kind": "fact"}}, {"terms": {"field": fields}}]
    query: dict = {"filter": filters}
    if company is not None:
        filters.append({"terms": {"company": company}})
    else:  # over companies: a fact of a document whose company is unknown is no company's
        query["must_not"] = [{"term": {"company": ""}}]
    if years is not None:
        filters.append({"terms": {"year": years}})
    if numeric:
        filters.append({"exists": {"field": "num"}})
    if unit is not None:
        filters.append({"term": {"unit": unit}})
    return {"bool": query}


def _preference(row: dict, rank: dict[str, int]) -> tuple:
    """search.fact_rows.PREFERENCE as a sort key (lower is better)."""
    return (
        row["report_year"] != row["year"],
        rank.get(row["field"], len(rank)),
        row["precision"],
        row["page"],
        row["table"],
        row["cell_id"],
    )


def _cell_fact(hit: dict) -> CellFact:
    """A hit as row_cells gives it, read as every query reads a hit (_row)."""
    row = _row(hit)
    return CellFact._make(row[name] for name in CellFact._fields)


def _row(hit: dict) -> dict:
    source = hit["_source"]
    stored = source.get("stored", {})
    number = stored.get("number")
    return {
        "company": source["company"],
        "year": source["year"],
        "field": source["field"],
        "value": stored.get("value", ""),
        "number": None if number is None else Decimal(number),
        "exact": number,  # the number's exact text, as stored (CellFact's)
        "unit": source.get("unit", ""),
        "raw": stored.get("raw", ""),
        "period": stored.get("period", ""),
        "short_name": source.get("short_name", ""),
        "code": source.get("code", ""),
        "doc_id": source.get("doc_id", ""),
        "page": source.get("page", 0),
        "table": source.get("table", ""),
        "cell_id": source.get("cell_id", ""),
        "report_year": source["report_year"],
        "precision": source["precision"],
        "statement": source.get("statement", ""),
        "scope": source.get("scope", ""),
        "period_kind": source.get("period_kind", ""),
        "num": source.get("num"),
    }


def _frame(rows: list[dict]) -> pd.DataFrame:
    """As search.sqlite_facts: one object block of Python values."""
    block = np.empty((len(rows), len(RESULT_COLUMNS)), dtype=object)
    if rows:
        block[:] = [tuple(r[c] for c in RESULT_COLUMNS) for r in rows]
    return pd.DataFrame(block, columns=list(RESULT_COLUMNS), dtype=object)  # dtype: no per-column inference


def _fact_id(fact: Fact) -> str:
    return _digest(
        "fact",
        fact.doc_id,
        fact.company,
        fact.year,
        fact.field,
        fact.period,
        fact.page,
        fact.table,
        fact.cell_id,
        fact.value,
    )


def _digest(*parts) -> str:
    return hashlib.sha1("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()
