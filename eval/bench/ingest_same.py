"""`python -m eval.bench ingest_same`: the checkout's ingest and an earlier revision's give the same outputs.

Speed work on ingestion must not change what it stores. This bench takes
the code of a git revision (`--ref`, default: where this branch left main,
`git merge-base HEAD main`) into a temporary folder (`git archive`), then, in
one run over the same copy of the PDFs, ingests them with `python -m
parser.ingest` once with that code and once with this checkout's, and
compares what the two indexes hold:

- chunks: every stored chunk of the text index (text, titles, pages, kind,
  company, year ...), by chunk id;
- facts: every row of the facts store and of its company-years;
- workbooks: every cell of every tables workbook (value, number format,
  hyperlink), and each sheet's frozen panes, by file, sheet and cell.

It prints each side's CPU seconds (the ingest process and its workers) and
their ratio, then the first differences of each kind; it exits 1 when
anything differs. Comparing two code paths in one run, rather than a stored
snapshot, keeps it right while other changes move the outputs on purpose
(pick a `--ref` that has them).

    python -m eval.bench ingest_same --set annual-cn
    python -m eval.bench ingest_same --set aicup --limit 20 --ref main
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from core.command_names import command_name
from core.rulefile import PROJECT_ROOT
from eval.bench.ingest import SETS, TEXT_LAYER_SET, copy_corpus, corpus_files

SHOWN = 5  # differences printed per kind


def old_code(ref: str, target: Path) -> str:
    """The project at git revision `ref`, unpacked into `target`; returns the revision's commit id."""
    commit = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "archive", "--format=tar", commit], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return commit


def default_ref() -> str:
    """Where this branch left main (main itself when the checkout is main)."""
    found = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "merge-base", "HEAD", "main"], capture_output=True, text=True
    )
    return found.stdout.strip() or "main"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ingest(code: Path, corpus: Path, index: Path, workers: int) -> tuple[float, float]:
    """Wall and CPU seconds of `python -m parser.ingest` run with the code in `code`."""
    started, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "parser.ingest",
            str(corpus),
            "--index",
            str(index),
            "--workers",
            str(workers),
        ],
        cwd=code,
        env=_env(code),
        capture_output=True,
        text=True,
    )
    if done.returncode not in (0, 3):  # 3: some files failed; the comparison shows whether the same ones did
        raise SystemExit(
            f"ingest with the code in {code} exited with {done.returncode}: "
            f"{done.stderr.strip().splitlines()[-1:]}"
        )
    return time.perf_counter() - started, children_cpu() - cpu


def _env(code: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(code)}


def stored_chunks(index: Path) -> dict[str, dict]:
    """Every chunk the text index stores, by chunk id (read with tantivy directly: both revisions' layout, the
    chunk's one stored field: JSON bytes of an object of its fields or, since issue 26, JSON text of an array of
    CHUNK_FIELD_NAMES)."""
    import tantivy

    from search.index_terms import CHUNK_FIELD_NAMES

    text = tantivy.Index.open(str(index / "text"))
    text.reload()
    searcher = text.searcher()
    found = searcher.search(tantivy.Query.all_query(), limit=max(1, searcher.num_docs))
    chunks = {}
    for _, address in found.hits:
        (values,) = searcher.doc(address).to_dict().values()
        stored = json.loads(values[0] if isinstance(values[0], str) else bytes(values[0]).decode("utf-8"))
        if isinstance(stored, list):
            stored = dict(zip(CHUNK_FIELD_NAMES, stored))
        chunks[stored["chunk_id"]] = stored
    return chunks


def fact_rows(index: Path) -> dict[str, Counter]:
    """How often each row occurs in the facts store's tables (facts, reports): row order is no output."""
    db = sqlite3.connect(f"file:{index / 'facts.sqlite'}?mode=ro", uri=True)
    try:
        return {
            table: Counter(db.execute(f"SELECT * FROM {table}").fetchall()) for table in ("facts", "reports")
        }
    finally:
        db.close()


def workbook_cells(index: Path) -> dict[tuple, tuple]:
    """(file, sheet, cell) -> (value, number format, hyperlink target) of every tables workbook, and each
    sheet's frozen panes under the cell name "panes"."""
    import openpyxl

    cells = {}
    tables = index / "tables"
    for path in sorted(tables.rglob("*.xlsx")):
        name = path.relative_to(tables).as_posix()
        book = openpyxl.load_workbook(path)
        for sheet in book.worksheets:
            cells[(name, sheet.title, "panes")] = (sheet.freeze_panes,)
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.value is not None:
                        link = cell.hyperlink.location if cell.hyperlink else None
                        cells[(name, sheet.title, cell.coordinate)] = (cell.value, cell.number_format, link)
        book.close()
    return cells


def differences(old: dict, new: dict) -> list[str]:
    """Keys missing on one side or holding other values, as lines to print."""
    lines = [f"only in the old: {key}" for key in old.keys() - new.keys()]
    lines += [f"only in the new: {key}" for key in new.keys() - old.keys()]
    lines += [
        f"{key}: {old[key]!r} -> {new[key]!r}" for key in old.keys() & new.keys() if old[key] != new[key]
    ]
    return sorted(lines)


def compare(old: Path, new: Path) -> int:
    """Print how the two indexes differ; the number of differences."""
    total = 0
    old_facts, new_facts = fact_rows(old), fact_rows(new)
    kinds = (
        ("chunks", stored_chunks(old), stored_chunks(new)),
        ("facts", old_facts["facts"], new_facts["facts"]),
        ("company-years", old_facts["reports"], new_facts["reports"]),
        ("workbook cells", workbook_cells(old), workbook_cells(new)),
    )
    for kind, before, after in kinds:
        found = differences(before, after)
        total += len(found)
        sizes = [sum(side.values()) if isinstance(side, Counter) else len(side) for side in (before, after)]
        print(f"  {kind}: {sizes[0]} old, {sizes[1]} new, {len(found)} differences")
        for line in found[:SHOWN]:
            print(f"    {line[:300]}")
    return total


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} ingest_same", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--ref", default="", help="git revision to compare with (default: git merge-base HEAD main)"
    )
    ap.add_argument(
        "--set",
        choices=(*SETS, TEXT_LAYER_SET, "both"),
        default="both",
        help="annual-cn, aicup, aicup-text (its PDFs that need no OCR), or both (default: the first two)",
    )
    ap.add_argument("--limit", type=int, default=0, help="only the first N PDFs of each folder (0 = all)")
    ap.add_argument("--workers", type=int, default=2, help="ingestion processes of each run (default 2)")
    args = ap.parse_args(argv)
    if shutil.which("git") is None or not (PROJECT_ROOT / ".git").exists():
        print("skipped: the project is not a git checkout, so there is no earlier revision to compare with")
        return 0
    ref = args.ref or default_ref()
    differ = 0
    with tempfile.TemporaryDirectory(prefix="finqa-bench-same-") as temp:
        work = Path(temp)
        commit = old_code(ref, work / "old-code")
        print(f"old: {ref} ({commit[:10]}); new: this checkout ({PROJECT_ROOT})")
        for name in SETS if args.set == "both" else (args.set,):
            found = corpus_files(name, args.limit)
            if found is None:
                continue
            root, files = found
            corpus = work / name / "corpus"
            copy_corpus(root, files, corpus)
            print(f"\n[{name}] {len(files)} PDFs from {root}")
            old_wall, old_cpu = run_ingest(work / "old-code", corpus, work / name / "old-index", args.workers)
            new_wall, new_cpu = run_ingest(PROJECT_ROOT, corpus, work / name / "new-index", args.workers)
            print(
                f"  ingest CPU seconds: old {old_cpu:.1f}, new {new_cpu:.1f} = {old_cpu / new_cpu:.2f}x "
                f"per core "
                f"(wall {old_wall:.1f} s, {new_wall:.1f} s)"
            )
            differ += compare(work / name / "old-index", work / name / "new-index")
    print("\nsame outputs" if not differ else f"\n{differ} differences")
    return 1 if differ else 0
