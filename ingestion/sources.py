"""Find the documents of a corpus: every readable file of a known kind below the folder, with its id.

A document's id is its path relative to the corpus without the extension
("finance/12"); a `metadata.csv` is the user's sidecar, not a document. A path
that cannot be read fails alone, as a FileReport row.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from core.records import FileReport
from parser.metadata import SIDECAR_NAME

DOCUMENT_KINDS = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".md": "text",
    ".xlsx": "facts",
    ".csv": "facts",
    ".xml": "statute",
}


@dataclass(frozen=True)
class Source:
    """One document file of the corpus."""

    path: Path
    rel: str  # path relative to the corpus, "/"-separated
    doc_id: str
    kind: str  # pdf | html | text | facts | statute


def find_sources(
    corpus: Path, exclude: Iterable[Path] = ()
) -> tuple[list[Source], list[FileReport], dict[str, int]]:
    """Document files under `corpus` in path order, files that cannot be documents (with the reason), and
    ignored types.

    Hidden files and folders, Office lock files (~$...), the sidecar
    metadata.csv and anything under `exclude` (an index inside the corpus)
    are skipped. A path problem (a symlink loop, a name that is not UTF-8,
    an unreadable folder) fails only that path.
    """
    excluded = [p.resolve() for p in exclude]
    sources: list[Source] = []
    problems: list[FileReport] = []
    ignored: Counter[str] = Counter()
    taken: dict[str, str] = {}
    found = sorted(_walk(corpus, excluded, {corpus.resolve()}), key=lambda item: os.fsencode(item[0]))
    for path, problem in found:
        rel = path.relative_to(corpus).as_posix()
        if problem:
            problems.append(FileReport(_printable(rel), _printable(rel), "failed", errors=[problem]))
            continue
        kind = DOCUMENT_KINDS.get(path.suffix.lower())
        if path.name == SIDECAR_NAME:
            continue
        if kind is None:
            ignored[_printable(path.suffix.lower())] += 1
            continue
        doc_id = rel[: -len(path.suffix)]
        if _printable(rel) != rel:
            problems.append(
                FileReport(
                    _printable(rel),
                    _printable(doc_id),
                    "failed",
                    errors=["the file name is not valid UTF-8 (a document id must be text); rename the file"],
                )
            )
            continue
        if doc_id in taken:
            problems.append(
                FileReport(
                    rel,
                    doc_id,
                    "failed",
                    errors=[f"document id {doc_id!r} is already used by {taken[doc_id]}; rename one"],
                )
            )
            continue
        taken[doc_id] = rel
        sources.append(Source(path, rel, doc_id, kind))
    return sources, problems, dict(ignored)


def _printable(name: str) -> str:
    """A file name that may hold undecodable bytes (surrogate escapes), printable and storable as JSON."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _walk(folder: Path, excluded: list[Path], seen: set[Path]) -> Iterator[tuple[Path, str]]:
    """(path, "") for each file below `folder`, (path, reason) for each path that cannot be read."""
    try:
        entries = list(os.scandir(folder))
    except OSError as exc:
        yield folder, f"cannot list this folder: {exc.strerror}"
        return
    for entry in entries:
        if entry.name.startswith((".", "~$")):
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
            real = path.resolve(strict=True) if is_dir else None
            is_file = not is_dir and entry.is_file(follow_symlinks=True)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python < 3.13
            reason = getattr(exc, "strerror", None) or "symlink loop"
            yield path, f"cannot read this path: {reason}"
            continue
        if is_dir:
            if real in excluded:
                continue
            if real in seen:
                yield path, f"a symlink loop (this folder is inside {real}), skipped"
                continue
            yield from _walk(path, excluded, seen | {real})
        elif is_file:
            yield path, ""
        elif entry.is_symlink():
            yield path, "a symlink to nothing (its target is missing)"
