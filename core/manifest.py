"""The ingest manifest: what is in the index, by document, so the next run only does what changed.

It is written after the index and the facts store have committed a batch
(write to a temporary file, then rename), so an interrupted run leaves a
manifest that lists at most what is durably indexed; the next run re-does
the rest.

It also records the generation id of each store it describes (`stores`:
an id each store makes when it is created), so a store that was lost,
emptied or made again is noticed and rebuilt instead of trusted. With a
server backend the manifest lives on the server next to the data (a
`ManifestMirror`, search/elastic_manifest.py) and the file only caches it.

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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from core.errors import StoreError, disk_error

VERSION = 1


@dataclass
class ManifestEntry:
    """One indexed document: the bytes and the metadata inputs it was indexed from."""

    doc_id: str
    path: str  # relative to the corpus, "/"-separated
    sha256: str
    size: int
    inputs_key: str = (
        ""  # what the content depends on besides the bytes: settings, rules, sidecar row, group cover
    )
    mtime_ns: int = 0  # modification time when hashed: same size and time, same hash
    pages: int = 0
    chunks: int = 0
    facts: int = 0
    tables: int = 0
    ocr_pages: int = 0


class ManifestMirror(Protocol):
    """Where the manifest really lives when the data is on a server; the file is then a cache."""

    def load(self) -> dict | None:
        """The manifest's header (`version`, `stores`, `corpus`, `root`) with its `documents`; None when there
        is none."""

    def save(self, header: dict, changed: dict[str, dict], removed: list[str]) -> None:
        """Store the header, these documents' entries, and forget the removed ones."""


@dataclass
class Manifest:
    path: Path
    entries: dict[str, ManifestEntry] = field(default_factory=dict)
    stores: dict[str, str] = field(default_factory=dict)  # store name -> generation id the entries are in
    corpus: str = ""  # the server-side name of the corpus (Elasticsearch index prefix), "" when embedded
    root: str = (
        ""  # the corpus folder's absolute path at the last ingest (`finqa serve` reads documents there)
    )
    mirror: ManifestMirror | None = None
    _changed: set[str] = field(default_factory=set, repr=False)
    _removed: set[str] = field(default_factory=set, repr=False)

    @classmethod
    def load(cls, path: Path, mirror: ManifestMirror | None = None) -> Manifest:
        """The manifest (from `mirror` when given, else the file at `path`), or an empty one when there is none
        yet; InputError when damaged."""
        path = Path(path)
        where = str(path)
        try:
            if mirror is not None:
                where = "the manifest on the server"
                data = mirror.load()
            elif path.exists():
                data = json.loads(path.read_text(encoding="utf-8"))
            else:
                data = None
            if data is None:
                return cls(path, mirror=mirror)
            if data.get("version") != VERSION:
                raise ValueError(f"version {data.get('version')!r}, expected {VERSION}")
            entries = {
                doc_id: ManifestEntry(doc_id=doc_id, **values) for doc_id, values in data["documents"].items()
            }
            return cls(
                path,
                entries,
                dict(data.get("stores", {})),
                data.get("corpus", ""),
                data.get("root", ""),
                mirror,
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise StoreError(
                f"damaged ingest manifest ({exc}); ingest again into a new INDEX_DIR (this one is kept)",
                where,
            ) from None

    @staticmethod
    def read_cache(path: Path) -> dict:
        """The cached header of the manifest at `path` (`corpus`, `stores`), {} when there is none."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: data[k] for k in ("corpus", "stores") if isinstance(data, dict) and k in data}

    def expected(self, name: str) -> int:
        """How many chunks/facts/pages... the entries say the stores hold."""
        return sum(getattr(entry, name) for entry in self.entries.values())

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
        self._changed.add(entry.doc_id)
        self._removed.discard(entry.doc_id)

    def forget(self, doc_id: str) -> None:
        if self.entries.pop(doc_id, None) is not None:
            self._removed.add(doc_id)
        self._changed.discard(doc_id)

    def forget_all(self, which: Callable[[str], bool] = lambda doc_id: True) -> None:
        """Forget every document (`which` of them: a shard forgets only its own)."""
        for doc_id in [d for d in self.entries if which(d)]:
            self.forget(doc_id)

    def save(self) -> None:
        """Write the mirror (what changed), then the file atomically: a crash leaves either the old or the
        new manifest, never half of one."""
        header = {
            "version": VERSION,
            "stores": dict(sorted(self.stores.items())),
            "corpus": self.corpus,
            "root": self.root,
        }
        if self.mirror is not None:
            self.mirror.save(
                header, {d: _values(self.entries[d]) for d in sorted(self._changed)}, sorted(self._removed)
            )
        self._changed.clear()
        self._removed.clear()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = dict(
            header, documents={doc_id: _values(entry) for doc_id, entry in sorted(self.entries.items())}
        )
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))


def _values(entry: ManifestEntry) -> dict:
    return {k: v for k, v in asdict(entry).items() if k != "doc_id"}


def atomic_write_text(path: Path, text: str) -> None:
    """Write a file through a temporary file in the same folder and a rename (with the umask's mode)."""
    handle, temp = temporary_file(path)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        exc.filename = exc.filename or str(path)
        raise disk_error(exc) or exc from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def temporary_file(path: Path) -> tuple[int, str]:
    """A new temporary file beside `path` (its name short, whatever the length of `path`'s), open for writing,
    with the mode a plain open() would give (mkstemp's is 0600): (descriptor, name)."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".finqa-", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(handle, 0o666 & ~umask)
    return handle, temp


def file_sha256(path: Path) -> str:
    """Content hash of a file, read in blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
