"""The parser processes count the pages they read into one shared counter, while a file is still parsing."""

from __future__ import annotations

from core.rulefile import PROJECT_ROOT
from ingestion.sources import find_sources
from ingestion.workers import ParserPool
from parser.metadata import MetadataFinder
from parser.settings import ParseSettings


def test_the_pages_every_worker_read_add_up_to_the_documents_pages():
    corpus = PROJECT_ROOT / "examples" / "corpus"
    sources = [s for s in find_sources(corpus)[0] if s.kind == "pdf"]
    finder = MetadataFinder.for_corpus(corpus, {s.doc_id: s.path for s in sources})
    with ParserPool(finder, ParseSettings(), workers=2) as pool:
        outcomes = list(pool.run(sources))
        assert pool.pages_read.value == sum(o.document.pages for o in outcomes) > len(sources)
