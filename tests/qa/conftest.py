"""The bundled examples corpus, ingested once for the engine-level tests."""
from __future__ import annotations

import pytest

from core.rulefile import data_dir
from ingestion.pipeline import ingest
from search.settings import IndexSettings

EXAMPLES = data_dir("examples")


@pytest.fixture(scope="session")
def examples_index(tmp_path_factory) -> IndexSettings:
    settings = IndexSettings(tmp_path_factory.mktemp("examples-index"))
    ingest(EXAMPLES / "corpus", settings, workers=1, progress=False)
    return settings
