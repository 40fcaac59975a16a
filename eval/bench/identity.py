"""`python -m eval.bench identity`: how many finance PDFs ingestion gives both a company and a period.

    python -m eval.bench identity [--workers N] [--cache DIR] [--sample N] [--seed S]

The corpus is the AI CUP finance PDFs with questions (reference/finance) and the 150 without
(unlabelled/finance), linked under --cache (default .cache/bench/identity) as `reference/` and
`unlabelled/`, and ingested with the real ingest (incremental). Figures, from INDEX_DIR/identities.json:
- the share with a company, a period, and both, per folder and overall;
- where the company came from: the document's own pages, another excerpt of the same report (the same
  figures in a row), the register (its text names a register company), or nowhere;
- a fixed random sample (--sample, --seed) with company, period and the source line of each, for
  checking by hand against the PDFs' text.

There is no baseline to beat in the same run: the figure compared is the cover-page metadata
(parser/metadata.py alone), which the same ingest records before identity fills the gaps.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

from core.command_names import command_name
from core.rulefile import PROJECT_ROOT
from eval.bench._data import shared_data

DEFAULT_CACHE = PROJECT_ROOT / ".cache" / "bench" / "identity"
FOLDERS = {"reference": ("reference", "finance"), "unlabelled": ("unlabelled", "finance")}


def link_corpus(aicup: Path, corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    for name, parts in FOLDERS.items():
        link, target = corpus / name, aicup.joinpath(*parts)
        if not link.exists():
            link.symlink_to(target.resolve(), target_is_directory=True)


def source_of(row: dict) -> str:
    found = row.get("findings", {}).get("company")
    if not row.get("company"):
        return "none"
    if found is None:
        return "cover"
    text = found.get("source", "")
    for start, name in (
        ("register:", "register"),
        ("figures:", "same figures"),
        ("similar text:", "similar"),
    ):
        if text.startswith(start):
            return name
    return "own pages"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} identity", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    aicup = shared_data("aicup")
    if aicup is None:
        return 0
    from ingestion.pipeline import ingest
    from search.settings import IndexSettings

    corpus = args.cache / "corpus"
    link_corpus(aicup, corpus)
    index = IndexSettings(args.cache / "index")
    summary = ingest(corpus, index, workers=args.workers)
    print(summary.text().splitlines()[0], file=sys.stderr)
    rows = json.loads(index.identities_path.read_text(encoding="utf-8"))
    print(f"AI CUP finance PDFs: company and period from any page ({len(rows)} documents)")
    print(f"{'folder':<12}{'docs':>6}{'company':>9}{'period':>8}{'both':>7}")
    for folder in (*FOLDERS, None):
        chosen = {d: r for d, r in rows.items() if folder is None or d.startswith(folder + "/")}
        n = len(chosen) or 1
        company = sum(bool(r["company"]) for r in chosen.values())
        period = sum(bool(r["quarter"]) for r in chosen.values())
        both = sum(bool(r["company"] and r["quarter"]) for r in chosen.values())
        print(f"{folder or 'all':<12}{len(chosen):>6}{company / n:>9.3f}{period / n:>8.3f}{both / n:>7.3f}")
    print(
        "company from: "
        + ", ".join(f"{k} {v}" for k, v in Counter(source_of(r) for r in rows.values()).most_common())
    )
    sample = random.Random(args.seed).sample(sorted(rows), min(args.sample, len(rows)))
    print(f"\nsample of {len(sample)} (seed {args.seed}) to check by hand:")
    for doc_id in sample:
        row = rows[doc_id]
        findings = row.get("findings", {})
        print(f"  {doc_id}: {row['company'] or '-'} | {row['period'] or '-'}")
        for name in ("company", "period"):
            if name in findings:
                print(f"      {name} ({findings[name]['confidence']}): {findings[name]['source']}")
    return 0
