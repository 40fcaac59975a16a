"""The Elasticsearch text index: the same tokens and BM25 as the embedded index, in a server.

Chunks are tokenized in Python (search.tokenize) and sent pre-tokenized; the
mapping analyzes body and titles with the whitespace analyzer only, so the
server scores exactly the tokens tantivy scores.

>>> index = ElasticIndex(IndexSettings(Path(".index"), backend="elasticsearch", es_url="http://127.0.0.1:9200"))
>>> index.add(chunks); index.commit()
>>> index.search(SearchQuery(text="売上高", doc_ids=("S100IXUZ",)))[0].chunk.chunk_id
>>> index.close()

Start a local server with `bash docker/elasticsearch.sh start`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from elasticsearch import ApiError, Elasticsearch, TransportError, helpers

from core.errors import InputError, StoreError
from core.records import Chunk
from search.backend import Hit, SearchQuery
from search.es_auth import ElasticAuth, public_url, scrub
from search.index_terms import (
    TIE_MARGIN,
    QueryTerms,
    best_first,
    chunk_from_stored,
    chunk_terms,
    chunk_to_stored,
    query_terms,
)
from search.settings import IndexSettings
from search.tokenize import Tokenizer

MAPPING_VERSION = 1  # bump when the mapping changes; an index of another version is refused
START_HINT = "start one with `bash docker/elasticsearch.sh start`"

_KEYWORD = {"type": "keyword"}
_TOKENS = {"type": "text", "analyzer": "whitespace"}
MAPPING = {
    "dynamic": "strict",
    "_meta": {"finqa_mapping": MAPPING_VERSION},
    "properties": {
        "chunk_id": _KEYWORD,
        "doc_id": _KEYWORD,
        "doc_prefixes": _KEYWORD,
        "company": _KEYWORD,
        "year": _KEYWORD,
        "kind": _KEYWORD,
        "body": _TOKENS,
        "titles": _TOKENS,
        # The whole Chunk, kept in _source to restore hits; not searchable.
        "chunk": {"type": "object", "enabled": False},
    },
}
# One shard so term statistics (BM25's idf and average length) are global, as in tantivy.
INDEX_SETTINGS = {"number_of_shards": 1, "number_of_replicas": 0}


def connect(url: str, timeout: float = 30.0, auth: ElasticAuth | None = None) -> Elasticsearch:
    """A client for the server at `url`, after checking it answers.

    Credentials come from `auth`, else from the environment or config file
    (search.es_auth). Unreachable or not Elasticsearch: InputError naming the
    URL (without credentials) and how to start one.
    """
    auth = auth if auth is not None else ElasticAuth.load()
    shown = public_url(url)
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme not in (
        "http",
        "https",
    ):  # the client reads htp://host as a host name and retries it for minutes
        raise InputError(
            f"not a valid Elasticsearch URL (it must start with http:// or https://, "
            f"got {scheme + '://' if scheme else 'no scheme'})",
            shown,
        )
    try:
        client = Elasticsearch(
            url, request_timeout=timeout, max_retries=3, retry_on_timeout=True, **auth.client_options()
        )
    except ValueError as exc:
        raise InputError(f"not a valid Elasticsearch URL ({scrub(str(exc), auth, url)})", shown) from None
    try:
        # Cluster health, not GET /: the minimal (integ-test) distribution answers only the former.
        client.options(request_timeout=5, max_retries=0).cluster.health()
    except TransportError as exc:
        client.close()
        raise StoreError(
            f"Elasticsearch does not answer ({type(exc).__name__}); {START_HINT}", shown
        ) from None
    except ApiError as exc:  # it answers, but not as an open Elasticsearch (security on, another server)
        client.close()
        detail = scrub(" ".join(str(exc.error).split())[:200], auth, url)
        hint = (
            "check the credentials (search/es_auth.py: FINQA_ES_API_KEY, FINQA_ES_USERNAME/PASSWORD)"
            if exc.meta.status in (401, 403)
            else START_HINT
        )
        raise StoreError(
            f"the server here is not a usable Elasticsearch ({exc.meta.status}: {detail}); {hint}", shown
        ) from None
    return client


def ensure_index(client: Elasticsearch, name: str, mappings: dict, version: int, url: str) -> None:
    """Create the index if missing; refuse one whose mapping another version of finqa made."""
    try:
        if not client.indices.exists(index=name):
            try:
                client.indices.create(index=name, settings=INDEX_SETTINGS, mappings=mappings)
            except ApiError as exc:
                if exc.error != "resource_already_exists_exception":  # another process created it first
                    raise
        mapping = client.indices.get_mapping(index=name)[name]["mappings"]
    except ApiError as exc:
        raise StoreError(f"cannot open index {name}: {exc.error}", public_url(url)) from None
    except TransportError as exc:
        raise request_failed(exc, url) from None
    found = mapping.get("_meta", {}).get("finqa_mapping")
    if found != version:
        raise StoreError(
            f"index {name} was made by another version of finqa (mapping {found}, "
            f"expected {version}); delete it and ingest again",
            public_url(url),
        )
    changed = _changed_fields(mapping, mappings)
    if changed:  # the version says ours, the fields do not: every search would fail with "all shards failed"
        raise StoreError(
            f"index {name} was made by another version of finqa or changed by hand (field "
            f"{', '.join(changed[:3])} has another type); delete it and ingest again",
            public_url(url),
        )


def _changed_fields(found: dict, expected: dict) -> list[str]:
    """The fields of `expected` whose type the index's mapping `found` lacks or gives otherwise."""
    have = found.get("properties", {})
    return [
        name
        for name, spec in expected.get("properties", {}).items()
        if have.get(name, {}).get("type", "object") != spec.get("type", "object")
    ]


def index_generation(client: Elasticsearch, name: str, url: str) -> str:
    """The index's uuid: a new one whenever the index is made again (a wiped server, a deleted index)."""
    try:
        return client.indices.get_settings(index=name, name="index.uuid")[name]["settings"]["index"]["uuid"]
    except ApiError as exc:
        raise StoreError(f"cannot read index {name}: {exc.error}", url) from None
    except TransportError as exc:
        raise request_failed(exc, url) from None


def call_server(request, name: str, url: str):
    """`request()`, with the server's refusal or a failed connection as one InputError line."""
    try:
        return request()
    except ApiError as exc:
        raise StoreError(f"{name}: {exc.error}", public_url(url)) from None
    except TransportError as exc:
        raise request_failed(exc, url) from None


def request_failed(exc: Exception, url: str) -> InputError:
    """A failed request as one line naming the server and how to start one, credentials masked."""
    detail = scrub(" ".join(str(exc).split())[:300], ElasticAuth.load(), url)
    return StoreError(
        f"Elasticsearch request failed ({type(exc).__name__}: {detail}); is the server running? {START_HINT}",
        public_url(url),
    )


class ElasticStore:
    """One of the corpus's indices on the server: its client (own or shared), bulk writes, deletes by document.

    The text index, the facts store and the manifest mirror each hold one index
    named `{es_prefix}-{suffix}`; they share how they talk to it here.
    """

    suffix = ""

    def __init__(self, settings: IndexSettings, client: Elasticsearch | None = None, bulk_size: int = 500):
        self.settings = settings
        self.name = f"{settings.es_prefix}-{self.suffix}"
        self.bulk_size = bulk_size
        self._own_client = client is None
        self.client = client if client is not None else connect(settings.es_url)

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Delete every entry of these documents: find their ids by a scan and bulk-delete them.

        _delete_by_query lives in the reindex module, which the minimal distribution
        docker/elasticsearch.sh runs does not have.
        """
        doc_ids = list(dict.fromkeys(doc_ids))
        if not doc_ids:
            return
        # Searches see only refreshed documents: refresh first so entries added since are deleted too.
        self._call(lambda: self.client.indices.refresh(index=self.name))
        for start in range(0, len(doc_ids), 1000):
            query = {"query": {"terms": {"doc_id": doc_ids[start : start + 1000]}}}
            found = helpers.scan(self.client, index=self.name, _source=False, size=1000, query=query)
            actions = ({"_op_type": "delete", "_index": self.name, "_id": hit["_id"]} for hit in found)
            self._bulk(actions, "deletions", missing_ok=True)

    def generation(self) -> str:
        return index_generation(self.client, self.name, self.settings.es_url)

    def close(self) -> None:
        if self._own_client:
            self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def _call(self, request):
        return call_server(request, self.name, self.settings.es_url)

    def _msearch(self, bodies: Sequence[dict], per_request: int) -> list[dict]:
        """The response to each search body, in order, from one `_msearch` per `per_request` bodies."""
        responses: list[dict] = []
        for start in range(0, len(bodies), per_request):
            searches: list[dict] = []
            for body in bodies[start : start + per_request]:
                searches += [{"index": self.name}, body]
            try:
                part = self.client.msearch(searches=searches)["responses"]
            except TransportError as exc:
                raise request_failed(exc, self.settings.es_url) from None
            for response in part:
                if "error" in response:
                    error = response["error"]
                    reason = error.get("reason", error) if isinstance(error, dict) else error
                    raise StoreError(
                        f"a search in {self.name} failed: {reason}", public_url(self.settings.es_url)
                    )
            responses += part
        return responses

    def _bulk(self, actions: Iterable[dict], what: str, missing_ok: bool = False) -> int:
        """Send `actions` in bulk requests of `bulk_size` (retried when the server is busy); how many succeeded.

        One InputError names how many were refused and the first reason; with
        `missing_ok`, deleting what is already gone is not a failure.
        """
        ok, failures = 0, []
        try:
            for success, info in helpers.streaming_bulk(
                self.client,
                actions,
                chunk_size=self.bulk_size,
                max_retries=5,
                initial_backoff=1,
                raise_on_error=False,
                raise_on_exception=True,
            ):
                result = next(iter(info.values()))
                if success or (missing_ok and result.get("status") == 404):
                    ok += 1
                else:
                    failures.append(result)
        except TransportError as exc:
            raise request_failed(exc, self.settings.es_url) from None
        if failures:
            raise StoreError(
                f"{len(failures)} {what} were refused by {self.name}, first {failures[0].get('_id')}: "
                f"{failures[0].get('error')}",
                public_url(self.settings.es_url),
            )
        return ok


class ElasticIndex(ElasticStore):
    """Chunks in the index `{es_prefix}-chunks`; implements search.backend.TextIndex.

    Chunks are sent as they are added (bulk, `bulk_size` per request, retried
    when the server is busy); `commit` refreshes so they become searchable.
    `search_many` sends a batch of queries in `_msearch` requests of `msearch_size`.
    """

    suffix = "chunks"

    def __init__(
        self,
        settings: IndexSettings,
        tokenizer: Tokenizer | None = None,
        client: Elasticsearch | None = None,
        bulk_size: int = 500,
        msearch_size: int = 100,
    ):
        if bulk_size < 1 or msearch_size < 1:
            raise InputError(
                f"bulk_size and msearch_size must be at least 1, got {bulk_size}, {msearch_size}"
            )
        super().__init__(settings, client, bulk_size)
        self.msearch_size = msearch_size
        self.tokenizer = tokenizer or Tokenizer()
        self._titles_cache: dict = {}
        ensure_index(self.client, self.name, MAPPING, MAPPING_VERSION, self.settings.es_url)

    def add(self, chunks: Iterable[Chunk]) -> int:
        return self._bulk(self._actions(chunks), "chunks")

    def commit(self) -> None:
        try:
            self.client.indices.refresh(index=self.name)
        except TransportError as exc:
            raise request_failed(exc, self.settings.es_url) from None

    def compact(self) -> bool:
        """Nothing to do: the server merges its segments itself, and an ingest leaves them searchable."""
        return False

    def search(self, query: SearchQuery) -> list[Hit]:
        request = self._request(query)
        if request is None:
            return []
        try:
            response = self.client.search(index=self.name, **request)
        except TransportError as exc:
            raise request_failed(exc, self.settings.es_url) from None
        return self._hits(response, query)

    def search_many(self, queries: Sequence[SearchQuery]) -> list[list[Hit]]:
        """The hits of each query, in order, from one `_msearch` per `msearch_size` queries."""
        results: list[list[Hit]] = [[] for _ in queries]
        pending = [
            (i, query, request)
            for i, query in enumerate(queries)
            if (request := self._request(query)) is not None
        ]
        responses = self._msearch([request for _, _, request in pending], self.msearch_size)
        for (i, query, _), response in zip(pending, responses):
            results[i] = self._hits(response, query)
        return results

    def _request(self, query: SearchQuery) -> dict | None:
        """The body of one search (query, size, order, fields), or None when nothing can match."""
        if query.limit < 1:
            return None
        terms = query_terms(self.tokenizer, query)
        body = self._query(terms, query)
        if body is None:
            return None
        # Sorting by score and chunk_id in the server would score every match (3x slower):
        # fetch a margin and break ties here, as the embedded index does.
        order = (
            {"size": query.limit + TIE_MARGIN}
            if terms.scored
            else {"size": query.limit, "sort": [{"chunk_id": "asc"}]}
        )
        # No hit count: counting every match would keep the server from skipping non-competitive ones.
        return {"query": body, "_source": ["chunk"], "track_total_hits": False, **order}

    @staticmethod
    def _hits(response, query: SearchQuery) -> list[Hit]:
        hits = [
            Hit(chunk_from_stored(hit["_source"]["chunk"]), float(hit["_score"] or 0.0))
            for hit in response["hits"]["hits"]
        ]
        return best_first(hits, query.limit)

    def count(self) -> int:
        try:
            return int(self.client.count(index=self.name)["count"])
        except TransportError as exc:
            raise request_failed(exc, self.settings.es_url) from None

    def _actions(self, chunks: Iterable[Chunk]) -> Iterator[dict]:
        for chunk in chunks:
            terms = chunk_terms(self.tokenizer, chunk, self._titles_cache)
            source = {
                "chunk_id": chunk.chunk_id,
                "doc_id": chunk.doc_id,
                "doc_prefixes": list(terms.doc_prefixes),
                "kind": chunk.kind,
                "body": terms.body,
                "titles": terms.titles,
                "chunk": chunk_to_stored(chunk),
                "company": terms.company,
                "year": terms.year,
            }
            # chunk_id as _id: adding a chunk again replaces it.
            yield {"_op_type": "index", "_index": self.name, "_id": chunk.chunk_id, "_source": source}

    def _query(self, terms: QueryTerms, query: SearchQuery) -> dict | None:
        """Filters must match (scoring nothing); at least one should-clause must match when there are any."""
        filters = [
            {"terms": {field: list(values)}}
            for field, values in (
                ("company", terms.companies),
                ("year", terms.years),
                ("doc_prefixes", terms.doc_prefixes),
                ("kind", terms.kinds),
            )
            if values
        ]
        should = []
        if terms.body:
            should.append({"match": {"body": {"query": " ".join(terms.body)}}})
        for words, slop in terms.phrases:
            should.append(
                {
                    "match_phrase": {
                        "body": {"query": " ".join(words), "slop": slop, "boost": query.phrase_boost}
                    }
                }
            )
        if terms.titles:
            should.append(
                {"match": {"titles": {"query": " ".join(terms.titles), "boost": query.title_boost}}}
            )
        if not filters and not should:
            return None
        body: dict = {"filter": filters}
        if should:
            body.update(should=should, minimum_should_match=1)
        return {"bool": body}
