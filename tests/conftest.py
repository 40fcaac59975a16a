"""Shared test fixtures: where the real development data is, and the Elasticsearch URL."""
from __future__ import annotations

import os

import pytest

from eval.bench._data import SHARED_DATA


@pytest.fixture(scope="session")
def shared_data():
    """../shared/data, or skip with a message when it is absent."""
    if not SHARED_DATA.exists():
        pytest.skip(f"development data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def es_url():
    """URL of a real Elasticsearch server (started by docker/elasticsearch.sh); skip when none is set.

    CI sets FINQA_ES_URL through `docker/elasticsearch.sh run ...`, and
    FINQA_REQUIRE_ES=1 turns the skip into a failure so CI never silently skips.
    """
    url = os.environ.get("FINQA_ES_URL")
    if not url:
        if os.environ.get("FINQA_REQUIRE_ES") == "1":
            pytest.fail("FINQA_REQUIRE_ES=1 but FINQA_ES_URL is not set")
        pytest.skip("no Elasticsearch: run the tests through `bash docker/elasticsearch.sh run python -m pytest`")
    return url
