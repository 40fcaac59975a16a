"""The ingest manifest: what is in the index, by document, so the next run only does what changed.

It is written after the index and the facts store have committed a batch
(write to a temporary file, then rename), so an interrupted run leaves a
manifest that lists at most what is durably indexed; the next run re-does
the rest.

>>> manifest = Manifest.load(settings.manifest_path)
>>> manifest.is_current("finance/12", file_sha256(path), inputs_key="9f2c...")
>>> manifest.record(ManifestEntry("finance/12", "finance/12.pdf", sha, size, inputs_key="9f2c..."))
>>> manifest.save()
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from parser.errors import InputError

VERSION = 1


@dataclass
class ManifestEntry:
    """One indexed document: the bytes and the metadata inputs it was indexed from."""

    doc_id: str
    path: str  # relative to the corpus, "/"-separated
    sha256: str
    size: int
    inputs_key: str = ""  # what the content depends on besides the bytes: settings, rules, sidecar row, group cover
    mtime_ns: int = 0  # modification time when hashed: same size and time, same hash
    pages: int = 0
    chunks: int = 0
    facts: int = 0
    tables: int = 0
    ocr_pages: int = 0


@dataclass
class Manifest:
    path: Path
    entries: dict[str, ManifestEntry] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> "Manifest":
        """The manifest at `path`, or an empty one when there is none yet; InputError when damaged."""
        path = Path(path)
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != VERSION:
                raise ValueError(f"version {data.get('version')!r}, expected {VERSION}")
            entries = {doc_id: ManifestEntry(doc_id=doc_id, **values) for doc_id, values in data["documents"].items()}
            return cls(path, entries)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"damaged ingest manifest ({exc}); delete the index directory and ingest again",
                             str(path)) from None

    def is_current(self, doc_id: str, sha256: str, inputs_key: str) -> bool:
        """True when this document was indexed from these bytes and these other inputs."""
        entry = self.entries.get(doc_id)
        return entry is not None and entry.sha256 == sha256 and entry.inputs_key == inputs_key

    def known_sha256(self, doc_id: str, size: int, mtime_ns: int) -> str:
        """The recorded hash when the file has the recorded size and modification time, else ""."""
        entry = self.entries.get(doc_id)
        if entry is not None and entry.size == size and entry.mtime_ns == mtime_ns and mtime_ns:
            return entry.sha256
        return ""

    def record(self, entry: ManifestEntry) -> None:
        self.entries[entry.doc_id] = entry

    def forget(self, doc_id: str) -> None:
        self.entries.pop(doc_id, None)

    def save(self) -> None:
        """Write atomically: a crash leaves either the old or the new manifest, never half of one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "version": VERSION,
            "documents": {doc_id: {k: v for k, v in asdict(entry).items() if k != "doc_id"}
                          for doc_id, entry in sorted(self.entries.items())},
        }
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))


def atomic_write_text(path: Path, text: str) -> None:
    """Write a file through a temporary file in the same folder and a rename."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def file_sha256(path: Path) -> str:
    """Content hash of a file, read in blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
