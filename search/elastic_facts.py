"""The Elasticsearch facts store: facts and company-years in the index `{es_prefix}-facts`.

Same contract and the same preference order as the SQLite store
(search.facts.PREFERENCE: own report, name order, precision, page, table, cell id), so both
backends answer alike:

- keyword company / field / doc_id, integer year, double `num` for sorting;
  the exact Decimal text and the rest of the fact live in an unindexed object;
- lookups fetch the few candidate facts of (company, years, names) and order
  them in Python with the shared preference key;
- rankings read facts sorted by `num` page by page and stop as soon as no
  unseen company can enter the top N (search.facts.rank_companies, shared
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
from decimal import Decimal
from typing import Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
from elasticsearch import ApiError, Elasticsearch, TransportError, helpers

from parser.errors import InputError
from parser.records import Fact, ReportYear
from search.elastic import connect, ensure_index, request_failed
from search.es_auth import public_url
from search.facts import REPORT_COLUMNS, RESULT_COLUMNS, precision_of, rank_companies, report_year_of
from search.settings import IndexSettings

MAPPING_VERSION = 1  # bump when the mapping changes; an index of another version is refused

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
        # value, exact number, raw, period: returned, never searched.
        "stored": {"type": "object", "enabled": False},
    },
}
_LOOKUP_SIZE = 10000  # candidate facts of a few companies, years and names: far fewer


class ElasticFactStore:
    """Facts in Elasticsearch; implements search.backend.FactStore.

    Facts are sent in bulk as they are added (ids derived from their content,
    so sending a fact again replaces it); commit() refreshes the index.
    """

    def __init__(self, settings: IndexSettings, client: Elasticsearch | None = None, bulk_size: int = 2000,
                 page_size: int = 200):
        if bulk_size < 1 or page_size < 1:
            raise InputError(f"bulk_size and page_size must be positive, got {bulk_size}, {page_size}")
        self.settings = settings
        self.name = f"{settings.es_prefix}-facts"
        self.bulk_size = bulk_size
        self.page_size = page_size
        self._own_client = client is None
        self.client = client if client is not None else connect(settings.es_url)
        ensure_index(self.client, self.name, MAPPING, MAPPING_VERSION, self.settings.es_url)

    @classmethod
    def connect(cls, settings: IndexSettings) -> "ElasticFactStore":
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

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        doc_ids = list(dict.fromkeys(doc_ids))
        if not doc_ids:
            return
        self.commit()  # searches see only refreshed documents: facts added since must be found too
        for start in range(0, len(doc_ids), 1000):
            found = helpers.scan(self.client, index=self.name, _source=False, size=1000,
                                 query={"query": {"terms": {"doc_id": doc_ids[start:start + 1000]}}})
            actions = ({"_op_type": "delete", "_index": self.name, "_id": hit["_id"]} for hit in found)
            self._bulk(actions, "deletions", missing_ok=True)

    def commit(self) -> None:
        self._call(lambda: self.client.indices.refresh(index=self.name))

    # -- reading -----------------------------------------------------------------------------------

    def lookup(self, company: str, years: Iterable[int], fields: Sequence[str]) -> pd.DataFrame:
        years, fields = [int(y) for y in years], list(dict.fromkeys(fields))
        if not years or not fields:
            return _frame([])
        query = _facts_query(fields, company=[company], years=years)
        response = self._call(lambda: self.client.search(index=self.name, query=query, size=_LOOKUP_SIZE))
        rank = {name: i for i, name in enumerate(fields)}
        rows = sorted((_row(hit) for hit in response["hits"]["hits"]), key=lambda r: (r["year"], *_preference(r, rank)))
        return _frame(rows)

    def ranking(self, fields: str | Sequence[str], year: int, limit: int, descending: bool = True,
                unit: str | None = None) -> pd.DataFrame:
        fields = [fields] if isinstance(fields, str) else list(dict.fromkeys(fields))
        if limit < 1 or not fields:
            return _frame([])
        rank = {name: i for i, name in enumerate(fields)}
        query = _facts_query(fields, years=[int(year)], numeric=True, unit=unit)

        def pages() -> Iterator[list[tuple[str, float]]]:
            after, size = None, limit + 10  # the top is usually enough
            while True:
                response = self._call(lambda: self.client.search(
                    index=self.name, query=query, size=size, source=["company", "num"],
                    sort=[{"num": "desc" if descending else "asc"}, {"company": "asc"}], search_after=after))
                hits = response["hits"]["hits"]
                if not hits:
                    return
                yield [(h["_source"]["company"], h["_source"]["num"]) for h in hits]
                after, size = hits[-1]["sort"], self.page_size

        def preferred(companies: list[str]) -> list[tuple]:
            candidates = _facts_query(fields, company=companies, years=[int(year)], numeric=True, unit=unit)
            response = self._call(lambda: self.client.search(index=self.name, query=candidates, size=_LOOKUP_SIZE))
            rows = sorted(map(_row, response["hits"]["hits"]), key=lambda r: (r["company"], *_preference(r, rank)))
            return [tuple(r[c] for c in RESULT_COLUMNS) + (r["num"],) for r in rows]

        rows = rank_companies(pages(), preferred, limit, descending)
        return _frame([dict(zip(RESULT_COLUMNS, row)) for row in rows])

    def reports(self, company: str | None = None) -> pd.DataFrame:
        query: dict = {"bool": {"filter": [{"term": {"kind": "report"}}]}}
        if company is not None:
            query["bool"]["filter"].append({"term": {"company": company}})
        rows = [{c: hit["_source"].get(c, "") for c in REPORT_COLUMNS}
                for hit in self._call(lambda: list(helpers.scan(self.client, index=self.name, query={"query": query},
                                                                size=5000)))]
        rows.sort(key=lambda r: (r["company"], r["year"], r["doc_id"]))
        return pd.DataFrame(rows, columns=list(REPORT_COLUMNS))

    def count(self) -> int:
        return int(self._call(lambda: self.client.count(index=self.name, query={"term": {"kind": "fact"}}))["count"])

    def close(self) -> None:
        if self._own_client:
            self.client.close()

    def __enter__(self) -> "ElasticFactStore":
        return self

    def __exit__(self, *_) -> None:
        self.close()

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
                "kind": "fact", "company": fact.company, "year": year, "field": fact.field,
                "doc_id": fact.doc_id, "report_year": report_year_of(year, document_years.get(key, frozenset())),
                "precision": precision_of(number, fact.raw), "page": int(fact.page or 0), "table": fact.table,
                "cell_id": fact.cell_id, "unit": fact.unit, "short_name": fact.short_name, "code": fact.code,
                "stored": {"value": fact.value, "number": None if number is None else str(number),
                           "raw": fact.raw, "period": fact.period},
            }
            if number is not None:
                source["num"] = float(number)
            yield {"_op_type": "index", "_index": self.name, "_id": _fact_id(fact), "_source": source}

    def _report_actions(self, reports: list[ReportYear]) -> Iterator[dict]:
        for r in reports:
            source = {"kind": "report", "company": r.company, "year": int(r.year), "short_name": r.short_name,
                      "code": r.code, "doc_id": r.doc_id}
            yield {"_op_type": "index", "_index": self.name, "_id": _digest("report", r.company, r.year, r.doc_id),
                   "_source": source}

    def _document_years(self, doc_id: str, company: str) -> frozenset[int]:
        query = {"bool": {"filter": [{"term": {"kind": "report"}}, {"term": {"doc_id": doc_id}},
                                     {"term": {"company": company}}]}}
        response = self._call(lambda: self.client.search(index=self.name, query=query, size=1000, source=["year"]))
        return frozenset(int(h["_source"]["year"]) for h in response["hits"]["hits"])

    def _bulk(self, actions: Iterable[dict], what: str, missing_ok: bool = False) -> int:
        ok, failures = 0, []
        try:
            for success, info in helpers.streaming_bulk(
                self.client, actions, chunk_size=self.bulk_size, max_retries=5, initial_backoff=1,
                raise_on_error=False, raise_on_exception=True,
            ):
                result = next(iter(info.values()))
                if success or (missing_ok and result.get("status") == 404):
                    ok += 1
                else:
                    failures.append(result)
        except TransportError as exc:
            raise request_failed(exc, self.settings.es_url) from None
        if failures:
            raise InputError(f"{len(failures)} {what} were refused by {self.name}, first {failures[0].get('_id')}: "
                             f"{failures[0].get('error')}", public_url(self.settings.es_url))
        return ok

    def _call(self, request):
        try:
            return request()
        except ApiError as exc:
            raise InputError(f"{self.name}: {exc.error}", public_url(self.settings.es_url)) from None
        except TransportError as exc:
            raise request_failed(exc, self.settings.es_url) from None



def _facts_query(fields: list[str], company: list[str] | None = None, years: list[int] | None = None,
                 numeric: bool = False, unit: str | None = None) -> dict:
    filters: list[dict] = [{"term": {"kind": "fact"}}, {"terms": {"field": fields}}]
    if company is not None:
        filters.append({"terms": {"company": company}})
    if years is not None:
        filters.append({"terms": {"year": years}})
    if numeric:
        filters.append({"exists": {"field": "num"}})
    if unit is not None:
        filters.append({"term": {"unit": unit}})
    return {"bool": {"filter": filters}}


def _preference(row: dict, rank: dict[str, int]) -> tuple:
    """search.facts.PREFERENCE as a sort key (lower is better)."""
    return (row["report_year"] != row["year"], rank.get(row["field"], len(rank)), row["precision"], row["page"],
            row["table"], row["cell_id"])


def _row(hit: dict) -> dict:
    source = hit["_source"]
    stored = source.get("stored", {})
    number = stored.get("number")
    return {
        "company": source["company"], "year": source["year"], "field": source["field"], "value": stored.get("value", ""),
        "number": None if number is None else Decimal(number), "unit": source.get("unit", ""), "raw": stored.get("raw", ""),
        "period": stored.get("period", ""), "short_name": source.get("short_name", ""), "code": source.get("code", ""),
        "doc_id": source.get("doc_id", ""), "page": source.get("page", 0), "table": source.get("table", ""),
        "cell_id": source.get("cell_id", ""), "report_year": source["report_year"], "precision": source["precision"],
        "num": source.get("num"),
    }


def _frame(rows: list[dict]) -> pd.DataFrame:
    """As search.facts: one object block of Python values."""
    block = np.empty((len(rows), len(RESULT_COLUMNS)), dtype=object)
    if rows:
        block[:] = [tuple(r[c] for c in RESULT_COLUMNS) for r in rows]
    return pd.DataFrame(block, columns=list(RESULT_COLUMNS), dtype=object)  # dtype: no per-column inference


def _fact_id(fact: Fact) -> str:
    return _digest("fact", fact.doc_id, fact.company, fact.year, fact.field, fact.period, fact.page, fact.table,
                   fact.cell_id, fact.value)


def _digest(*parts) -> str:
    return hashlib.sha1("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()
