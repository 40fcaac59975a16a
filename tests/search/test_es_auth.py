"""Elasticsearch credentials: read from the environment or a config file, handed to the client, never shown."""

from __future__ import annotations

import base64
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import InputError
from search.es_auth import ElasticAuth, public_url, scrub
from search.settings import IndexSettings

API_KEY = "finqa-test-id:VuaCfGcBCdbkQm-e5aOx"
PASSWORD = "s3cret-Pa55word"
ROOT = Path(__file__).resolve().parents[2]
# A port nothing listens on: connecting fails at once.
DEAD_URL = "http://127.0.0.1:9"


def _pem(tmp_path: Path) -> Path:
    path = tmp_path / "ca.pem"
    path.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", encoding="utf-8")
    return path


def test_api_key_and_ca_come_from_the_environment(tmp_path):
    ca = _pem(tmp_path)
    auth = ElasticAuth.load(
        {"FINQA_ES_API_KEY": API_KEY, "FINQA_ES_CA_CERTS": str(ca), "FINQA_ES_CONFIG": ""}
    )
    assert auth.client_options() == {"api_key": tuple(API_KEY.split(":")), "ca_certs": str(ca)}
    assert "FINQA_ES_API_KEY" in auth.source


def test_basic_auth_comes_from_a_config_file_and_the_environment_wins(tmp_path):
    _pem(tmp_path)
    config = tmp_path / "es.yaml"
    config.write_text(f"username: reader\npassword: {PASSWORD}\nca_certs: ca.pem\n", encoding="utf-8")
    auth = ElasticAuth.load({"FINQA_ES_CONFIG": str(config)})
    assert auth.client_options() == {"basic_auth": ("reader", PASSWORD), "ca_certs": str(tmp_path / "ca.pem")}
    again = ElasticAuth.load({"FINQA_ES_CONFIG": str(config), "FINQA_ES_PASSWORD": "other"})
    assert again.client_options()["basic_auth"] == ("reader", "other")


def test_no_credentials_means_an_open_server(tmp_path):
    auth = ElasticAuth.load({"FINQA_ES_CONFIG": "", "HOME": str(tmp_path)})
    assert auth.client_options() == {} and auth.source == "none"


@pytest.mark.parametrize(
    "env",
    [
        {"FINQA_ES_API_KEY": API_KEY, "FINQA_ES_USERNAME": "u", "FINQA_ES_PASSWORD": PASSWORD},
        {"FINQA_ES_USERNAME": "u"},
        {"FINQA_ES_CA_CERTS": "/no/such/ca.pem"},
    ],
)
def test_inconsistent_credentials_are_refused_without_showing_them(env):
    with pytest.raises(InputError) as caught:
        ElasticAuth.load({"FINQA_ES_CONFIG": "", **env})
    assert PASSWORD not in str(caught.value) and API_KEY not in str(caught.value)


def test_a_bad_config_file_names_file_and_line(tmp_path):
    config = tmp_path / "es.yaml"
    config.write_text(f"username: reader\npasword: {PASSWORD}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        ElasticAuth.load({"FINQA_ES_CONFIG": str(config)})
    assert str(caught.value).startswith(f"{config}:")


def test_secrets_print_as_a_mask_and_are_not_pickled():
    auth = ElasticAuth.load({"FINQA_ES_API_KEY": API_KEY, "FINQA_ES_CONFIG": ""})
    for shown in (str(auth), repr(auth), f"{auth.api_key}", str([auth])):
        assert API_KEY not in shown and "VuaCfGcBCdbkQm" not in shown
    with pytest.raises(TypeError):
        pickle.dumps(auth)


def test_scrub_masks_secrets_as_given_and_as_sent():
    auth = ElasticAuth.load(
        {"FINQA_ES_USERNAME": "reader", "FINQA_ES_PASSWORD": PASSWORD, "FINQA_ES_CONFIG": ""}
    )
    header = base64.b64encode(f"reader:{PASSWORD}".encode()).decode()
    text = scrub(f"failed: Basic {header} pw={PASSWORD} at http://reader:{PASSWORD}@es:9200/x", auth)
    assert PASSWORD not in text and header not in text and "reader" not in text.split("at ")[1]
    assert public_url(f"https://reader:{PASSWORD}@es.example:9200/") == "https://***@es.example:9200/"
    assert public_url("http://127.0.0.1:9200") == "http://127.0.0.1:9200"


def test_the_client_is_built_with_the_credentials(es_url, monkeypatch):
    from search.elastic import connect

    monkeypatch.setenv("FINQA_ES_API_KEY", API_KEY)
    monkeypatch.setenv("FINQA_ES_CONFIG", "")
    client = connect(es_url)  # the test server runs without security: it ignores the header and answers
    try:
        sent = client._headers.get("authorization")
        assert sent == "ApiKey " + base64.b64encode(API_KEY.encode()).decode()
        assert client.cluster.health()["status"] in ("green", "yellow")
    finally:
        client.close()


def test_a_wrong_url_error_does_not_show_the_credentials(monkeypatch):
    from search.elastic import connect

    monkeypatch.setenv("FINQA_ES_PASSWORD", PASSWORD)
    monkeypatch.setenv("FINQA_ES_USERNAME", "reader")
    monkeypatch.setenv("FINQA_ES_CONFIG", "")
    with pytest.raises(InputError) as caught:
        connect(DEAD_URL.replace("//", f"//reader:{PASSWORD}@"))
    message = str(caught.value)
    assert "does not answer" in message and PASSWORD not in message and "\n" not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_the_command_line_shows_no_secret_in_its_error_or_trace(tmp_path):
    questions = tmp_path / "q.json"
    questions.write_text('[{"id": "1", "question": "2022年示例科技的电子信箱是什么?"}]', encoding="utf-8")
    (tmp_path / "index").mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FINQA_ES_API_KEY": API_KEY, "FINQA_ES_CONFIG": ""}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "qa.run",
            str(questions),
            "--index",
            str(tmp_path / "index"),
            "--backend",
            "elasticsearch",
            "--es-index",
            "secret-test",
            "--es-url",
            f"http://admin:{PASSWORD}@127.0.0.1:9",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "127.0.0.1:9" in done.stderr
    for secret in (API_KEY, PASSWORD, API_KEY.split(":")[1]):
        assert secret not in done.stderr + done.stdout


def test_index_settings_do_not_show_a_password_in_the_url():
    settings = IndexSettings(Path("."), backend="elasticsearch", es_url=f"http://reader:{PASSWORD}@es:9200")
    assert PASSWORD not in repr(settings)


@pytest.mark.parametrize("url", ["htp://127.0.0.1:9200", "127.0.0.1:9200", "ftp://127.0.0.1:9200"])
def test_a_url_without_http_or_https_is_refused_at_once(url):
    from search.elastic import connect

    with pytest.raises(InputError, match="must start with http:// or https://"):
        connect(url)
