"""What an index writer added in this session, kept so the index can be written again without tokenizing again.

An ingest commits a batch of documents at a time (an interruption loses nothing committed), so a fresh
embedded index ends as one tantivy segment per commit, some of them merged, and every search pays per
segment (UFO-2024's 24 reports: 7 segments; the same searches over one took half the time). tantivy-py
has no merge call, and tokenizing the chunks again costs half the ingest. So the writer keeps each
indexed document's fields (tokens and stored chunk) here as it adds them; when every live document of
the index is one of these, EmbeddedIndex.compact writes them again, as one commit.

The fields are spilled to an unnamed temporary file beside the index (gone with the process, whatever
ends it); only the chunk ids and where their fields are stay in memory.

>>> import tempfile
>>> added = AddedChunks(Path(tempfile.mkdtemp()))
>>> added.add("d1#0", "d1", ("d1#0", "body tokens"))
>>> added.add("d2#0", "d2", ("d2#0", "more tokens"))
>>> added.delete_documents(["d1"])
>>> len(added), list(added.in_chunk_order())
(1, [('d2#0', 'more tokens')])
>>> added.close()
"""

from __future__ import annotations

import marshal
import struct
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from core.errors import StoreError

# Chunks kept at most (their ids take ~250 bytes of memory each): a corpus past it has segments of thousands of
# chunks each already, and writing it again would take minutes
MAX_KEPT = 1_000_000
_LENGTH = struct.Struct("<I")  # each record: its length, then the marshalled tuple of field values


class AddedChunks:
    """The live documents one writer session added: chunk id -> (its document, where its fields are spilled)."""

    def __init__(self, directory: Path, limit: int = MAX_KEPT):
        self.directory = directory
        self.limit = limit
        # more than `limit` were added: none are kept, and compaction is left to tantivy
        self.overflowed = False
        self._file: IO[bytes] | None = None
        self._end = 0  # where the next record goes (a seek there would flush the file's buffer every time)
        self._at: dict[str, tuple[int, str]] = {}  # chunk id -> (offset of its record, its document)
        self._chunks_of: dict[str, set[str]] = {}  # doc id -> chunk ids added with it

    def add(self, chunk_id: str, doc_id: str, fields: tuple) -> None:
        """Keep a document's field values (strings, bytes and tuples of them), replacing an earlier one of the
        chunk id, as the index replaces it."""
        if self.overflowed:
            return
        if len(self._at) >= self.limit and chunk_id not in self._at:
            self._forget()
            self.overflowed = True
            return
        record = marshal.dumps(fields)
        record = _LENGTH.pack(len(record)) + record
        try:
            self._spill().write(record)
        except OSError as exc:
            raise self._unwritable(exc) from None
        self._at[chunk_id] = self._end, doc_id
        self._end += len(record)
        self._chunks_of.setdefault(doc_id, set()).add(chunk_id)

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Forget the documents' chunks, as the index deletes them: a chunk id added again with another
        document since is that document's."""
        for doc_id in doc_ids:
            for chunk_id in self._chunks_of.pop(doc_id, ()):
                if self._at.get(chunk_id, (0, ""))[1] == doc_id:
                    del self._at[chunk_id]

    def __len__(self) -> int:
        return len(self._at)

    def in_chunk_order(self) -> Iterator[tuple]:
        """Each live document's field values, by chunk id (an index written from them does not depend on the
        order the parsers finished in)."""
        spill = self._spill()
        try:
            for chunk_id in sorted(self._at):
                spill.seek(self._at[chunk_id][0])
                (length,) = _LENGTH.unpack(spill.read(_LENGTH.size))
                yield marshal.loads(spill.read(length))
        finally:
            if not spill.closed:  # a reading given up after close(): nothing to write anymore
                spill.seek(self._end)  # where add() writes next

    def close(self) -> None:
        """Forget everything (the spill file goes with it), ready for a new session."""
        self._forget()
        self.overflowed = False

    def _forget(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._end = 0
        self._at.clear()
        self._chunks_of.clear()

    def _spill(self) -> IO[bytes]:
        if self._file is None:
            try:
                self._file = tempfile.TemporaryFile(dir=self.directory, prefix=".added-")
            except OSError as exc:
                raise self._unwritable(exc) from None
        return self._file

    def _unwritable(self, exc: OSError) -> StoreError:
        return StoreError(f"cannot write beside the text index: {exc.strerror}", str(self.directory))
