"""The register of law titles: one small JSON file per statute next to the index.

Ingestion writes an entry for every document that is a statute and removes
it with the document; the QA stage reads the whole register at start (a few
hundred bytes per law) to recognise law names in questions and to map a
title to its document id. It lives in INDEX_DIR for both backends, like the
tables workbooks.

>>> register = LawRegister(IndexSettings(Path(".index")).laws_dir)
>>> register.load()["laws/323AC0000000025"].title
'金融商品取引法'
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from core.manifest import atomic_write_text
from core.records import LawRecord


class LawRegister:
    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _path(self, doc_id: str) -> Path:
        return self.folder / f"{doc_id}.json"

    def write(self, doc_id: str, law: LawRecord | None) -> None:
        """Record the law of `doc_id`, or forget it when the document is not (or no longer) a statute."""
        path = self._path(doc_id)
        if law is None:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(dataclasses.asdict(law), ensure_ascii=False))

    def remove(self, doc_id: str) -> None:
        self._path(doc_id).unlink(missing_ok=True)

    def load(self) -> dict[str, LawRecord]:
        """doc_id -> LawRecord for every statute in the index."""
        laws = {}
        if not self.folder.is_dir():
            return laws
        for path in sorted(self.folder.rglob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            data["abbreviations"] = tuple(data.get("abbreviations", ()))
            laws[path.relative_to(self.folder).with_suffix("").as_posix()] = LawRecord(**data)
        return laws
