"""search/elastic.py against a real Elasticsearch: reachability, the mapping, idempotent ids, foreign indices."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from core.errors import InputError
from search.backend import SearchQuery
from search.elastic import MAPPING_VERSION, ElasticIndex, connect
from search.settings import IndexSettings
from search.stores import open_text_index


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_server_is_one_line_naming_the_url_and_how_to_start_one(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(InputError) as error:
        connect(url)
    message = str(error.value)
    assert (
        message.startswith(f"{url}: ")
        and "bash docker/elasticsearch.sh start" in message
        and "\n" not in message
    )
    with pytest.raises(InputError, match="docker/elasticsearch.sh"):
        open_text_index(IndexSettings(tmp_path, backend="elasticsearch", es_url=url))


class NotElasticsearch(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"hello": "world"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


def test_a_server_that_is_not_elasticsearch_is_reported():
    server = http.server.HTTPServer(("127.0.0.1", 0), NotElasticsearch)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        with pytest.raises(InputError) as error:
            connect(url)
    finally:
        server.shutdown()
        server.server_close()
    assert str(error.value).startswith(f"{url}: the server here is not a usable Elasticsearch")


def test_connect_returns_a_working_client(es_url):
    client = connect(es_url)
    assert client.cluster.health()["status"] in {"green", "yellow"}
    client.close()


def test_the_index_has_the_explicit_mapping(es_settings, search_tokenizer):
    with ElasticIndex(es_settings, search_tokenizer) as index:
        assert index.name == f"{es_settings.es_prefix}-chunks"
        mapping = index.client.indices.get_mapping(index=index.name)[index.name]["mappings"]
    assert mapping["dynamic"] == "strict" and mapping["_meta"]["finqa_mapping"] == MAPPING_VERSION
    fields = mapping["properties"]
    for name in ("chunk_id", "doc_id", "doc_prefixes", "company", "year", "kind"):
        assert fields[name]["type"] == "keyword", name
    for name in ("body", "titles"):
        assert (fields[name]["type"], fields[name]["analyzer"]) == ("text", "whitespace"), name
    assert fields["chunk"]["enabled"] is False


def test_chunks_are_stored_under_their_chunk_id_with_pre_tokenized_text(
    es_settings, search_tokenizer, corpus
):
    with ElasticIndex(es_settings, search_tokenizer) as index:
        index.add(corpus)
        index.add(corpus)  # the same ids again: replaced, not duplicated
        index.commit()
        assert index.count() == len(corpus)
        stored = index.client.get(index=index.name, id=corpus[0].chunk_id)["_source"]
    assert stored["body"].split() == search_tokenizer.tokens(corpus[0].text)
    assert stored["doc_prefixes"] == ["annual", "annual/600519_2022"] and stored["year"] == "2022"


def test_a_second_open_sees_the_same_index(es_settings, search_tokenizer, corpus):
    with ElasticIndex(es_settings, search_tokenizer) as first:
        first.add(corpus[:4])
        first.commit()
    with open_text_index(es_settings, search_tokenizer) as again:
        assert isinstance(again, ElasticIndex) and again.count() == 4
        assert again.search(SearchQuery(text="负债合计"))[0].chunk.kind == "table"


def test_bulk_requests_are_split_by_bulk_size(es_settings, search_tokenizer, corpus):
    with ElasticIndex(es_settings, search_tokenizer, bulk_size=3) as index:
        assert index.add(corpus) == len(corpus)
        index.commit()
        assert index.count() == len(corpus)
    with pytest.raises(InputError, match="bulk_size"):
        ElasticIndex(es_settings, search_tokenizer, bulk_size=0)


def test_an_index_made_by_something_else_is_refused(es_settings, search_tokenizer):
    client = connect(es_settings.es_url)
    client.indices.create(
        index=f"{es_settings.es_prefix}-chunks", mappings={"properties": {"body": {"type": "text"}}}
    )
    client.close()
    with pytest.raises(InputError, match="another version"):
        ElasticIndex(es_settings, search_tokenizer)


def test_an_index_whose_field_types_were_changed_is_refused_as_another_version(es_settings, search_tokenizer):
    from search.elastic import MAPPING

    name = f"{es_settings.es_prefix}-chunks"
    changed = {**MAPPING, "properties": {**MAPPING["properties"], "doc_id": {"type": "long"}}}
    client = connect(es_settings.es_url)
    client.indices.create(index=name, mappings=changed)  # the same _meta version, one field's type changed
    client.close()
    with pytest.raises(InputError, match="field doc_id has another type"):
        ElasticIndex(es_settings, search_tokenizer)
