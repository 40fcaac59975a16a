"""A real server (uvicorn on a free local port) over the bundled examples, on either backend."""

from __future__ import annotations

import socket
import threading
import time
import uuid

import pytest

from core.rulefile import data_dir
from qa.engine import EngineSettings
from search.settings import IndexSettings


class Served:
    """A running `finqa serve` application: its base URL, stopped when the test session ends."""

    def __init__(self, settings: IndexSettings):
        import uvicorn

        from serve.app import create_app

        with socket.socket() as probe:  # a free port; the server binds it a moment later
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        app = create_app(EngineSettings(index=settings))
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="session")
def served_embedded(examples_index):
    pytest.importorskip("starlette", reason="the serve extra (starlette, uvicorn) is not installed")
    served = Served(examples_index)
    yield served
    served.stop()


@pytest.fixture(scope="session")
def served_elastic(es_url, tmp_path_factory):
    pytest.importorskip("starlette", reason="the serve extra (starlette, uvicorn) is not installed")
    from ingestion.pipeline import ingest
    from search.elastic_manifest import delete_corpus

    settings = IndexSettings(
        tmp_path_factory.mktemp("examples-es"),
        backend="elasticsearch",
        es_url=es_url,
        es_prefix=f"finqa-serve-{uuid.uuid4().hex[:8]}",
    )
    ingest(data_dir("examples") / "corpus", settings, workers=1, progress=False)
    served = Served(settings)
    yield served
    served.stop()
    delete_corpus(settings)


@pytest.fixture(params=["embedded", "elasticsearch"])
def served(request):
    """The server over the examples, on each backend."""
    return request.getfixturevalue("served_embedded" if request.param == "embedded" else "served_elastic")
