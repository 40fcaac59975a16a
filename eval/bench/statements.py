"""`python -m eval.bench statements [--limit N]`: how many quarterly-report PDFs have their statements read.

The AI CUP finance PDFs (../shared/data/aicup/reference/finance, 108 with questions, and
unlabelled/finance, 150 without) are excerpts of Taiwanese quarterly reports; many print their
statements without ruling lines. For each PDF with a text layer this benchmark finds its statement
pages from the text alone (pdfium): a line under 40 characters naming a primary statement
(rules/statements.yaml `kinds`: 資產負債表, 綜合損益表, 現金流量表, 權益變動表) on a page with at least
`MIN_AMOUNTS` amounts written with thousands separators. It then parses the PDF as ingestion does
(OCR off: scanned pages have no text to find statements on) and counts the PDFs that have a statement
page with facts read from it. Figures: the share per folder and overall, and the PDFs without.
Compare runs of two checkouts for before and after (the parser is what changes).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tqdm import tqdm

from core.command_names import command_name
from core.folding import nfkc
from core.records import DocumentMeta
from core.statements import STATEMENTS, shared_statement_rules
from eval.bench._data import shared_data
from parser.page_texts import pdf_page_texts
from parser.pdf import parse_pdf
from parser.settings import ParseSettings

FOLDERS = (("reference", "finance"), ("unlabelled", "finance"))
MIN_AMOUNTS = 8
TITLE_CHARS = 40
_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+")


def statement_pages(path: Path) -> set[int]:
    """The 1-based pages whose text names a primary statement in a short line and holds many amounts."""
    kinds = [pattern for name, pattern in shared_statement_rules().kinds if name in STATEMENTS]
    pages = set()
    for number, text in enumerate(map(nfkc, pdf_page_texts(path, sys.maxsize)), start=1):
        lines = [line.replace(" ", "") for line in text.splitlines()]
        titled = any(len(line) < TITLE_CHARS and any(k.search(line) for k in kinds) for line in lines)
        if titled and len(_AMOUNT.findall(text)) >= MIN_AMOUNTS:
            pages.add(number)
    return pages


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} statements", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--limit", type=int, default=0, help="PDFs per folder (0: all)")
    ap.add_argument("--show", type=int, default=10, help="PDFs without facts listed per folder")
    args = ap.parse_args(argv)
    aicup = shared_data("aicup")
    if aicup is None:
        return 0
    settings = ParseSettings(ocr=False)
    totals = [0, 0]
    for parts in FOLDERS:
        folder = aicup.joinpath(*parts)
        paths = sorted(folder.glob("*.pdf"), key=lambda p: (len(p.stem), p.stem))[: args.limit or None]
        with_statements, read, unread = 0, 0, []
        for path in tqdm(paths, desc="/".join(parts), unit="pdf", file=sys.stderr):
            pages = statement_pages(path)
            if not pages:
                continue
            with_statements += 1
            doc = parse_pdf(path, DocumentMeta(f"{parts[0]}/{path.stem}"), settings)
            if any(f.page in pages for f in doc.facts):
                read += 1
            else:
                unread.append(f"{path.stem} (pages {sorted(pages)})")
        totals[0] += with_statements
        totals[1] += read
        print(
            f"{'/'.join(parts)}: {len(paths)} PDFs, {with_statements} with a statement page, facts read on one "
            f"in {read}: {read / max(with_statements, 1):.3f}"
        )
        if unread:
            print("  without: " + ", ".join(unread[: args.show]))
    print(f"overall: {totals[1]}/{totals[0]} = {totals[1] / max(totals[0], 1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
