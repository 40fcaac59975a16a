"""finqa's public API: answer questions about financial reports from Python.

    import finqa
    finqa.ingest(corpus_dir, finqa.IndexSettings(index_dir))
    with finqa.Engine(finqa.EngineSettings(finqa.IndexSettings(index_dir))) as engine:
        print(engine.answer(finqa.Question("1", "2022年示例科技的电子信箱是什么?")).answer)

README.md runs this on the bundled examples (tests/test_doctests.py).

`Engine`, `ingest`, `Question` and `Answer` are the ones in qa.engine, ingestion.pipeline and qa.records,
re-exported so one import does. They load on first use: importing finqa stays cheap, and the
packages below may import finqa (for its data folders) without a cycle.
The data finqa ships (rules/, formulas/, examples/) sits in this package: see core.rulefile.data_dir.
"""

from __future__ import annotations

import importlib

# name -> the module that defines it
_EXPORTS = {
    "Engine": "qa.engine",
    "EngineSettings": "qa.engine",
    "Question": "qa.records",
    "Answer": "qa.records",
    "ingest": "ingestion.pipeline",
    "IndexSettings": "search.settings",
    "data_dir": "core.rulefile",
    "RuleBook": "core.rulebook",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'finqa' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
