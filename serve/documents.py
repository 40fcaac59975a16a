"""The documents `finqa serve` shows: those the manifest lists, read from the corpus folder ingest recorded.

A document id is looked up in the manifest, never joined to a path as given:
the file is the manifest's path for it under the recorded corpus root, and it
must still lie inside that root once symlinks are resolved. So no request can
make the server read a file the index does not list.

- `page_png(doc, n, highlight)`: page n of a PDF rendered by pdfium, with the
  boxes of what `highlight` (an evidence text) quotes drawn on it
  (serve/highlight.py over the page layout kept at ingest);
- `table_html(doc, cell_id)`: the HTML report's table holding that cell, rebuilt
  from its text alone (no markup, script or link of the source is copied),
  with the cell marked.
"""

from __future__ import annotations

import html
import io
import threading
from dataclasses import dataclass
from pathlib import Path

import pypdfium2
from lxml import etree
from lxml import html as lxml_html
from PIL import ImageDraw

from core.layout import read_layout
from core.manifest import Manifest
from search.settings import IndexSettings
from serve.highlight import locate

RENDER_SCALE = 2.0  # pixels per PDF point: 144 dpi, readable on a laptop screen
MAX_HIGHLIGHT = 2000  # characters of a highlight text; an evidence item is far shorter
BOX_COLOUR = (220, 30, 30)
_PDFIUM = threading.Lock()  # pdfium is not thread-safe: one page renders at a time


class NotFound(Exception):
    """A document or page the index does not have (HTTP 404)."""


class BadRequest(Exception):
    """A request the server cannot serve as asked (HTTP 400)."""


@dataclass(frozen=True)
class DocumentInfo:
    doc: str
    path: str  # relative to the corpus folder
    kind: str  # "pdf" | "html" | "other": what the server can show of it
    pages: int


class Library:
    """The manifest's documents and the files they were ingested from."""

    def __init__(self, index: IndexSettings):
        self.index = index
        manifest = _manifest(index)
        self.root = Path(manifest.root).resolve() if manifest.root else None
        self.documents = {
            doc: DocumentInfo(doc, e.path, _kind(e.path), e.pages)
            for doc, e in sorted(manifest.entries.items())
        }

    def listing(self) -> list[dict]:
        return [
            {"doc": d.doc, "path": d.path, "kind": d.kind, "pages": d.pages} for d in self.documents.values()
        ]

    def page_png(self, doc: str, page: int, highlight: str = "") -> bytes:
        """Page `page` (1-based) of PDF `doc` as PNG, with the boxes `highlight` quotes drawn."""
        info = self._document(doc, "pdf")
        if not 1 <= page <= info.pages:
            raise NotFound(f"{doc} has pages 1 to {info.pages}, not {page}")
        if len(highlight) > MAX_HIGHLIGHT:
            raise BadRequest(f"highlight is longer than {MAX_HIGHLIGHT} characters")
        boxes = locate(read_layout(self.index.layout_path(doc)), page, highlight) if highlight else []
        with _PDFIUM:
            pdf = pypdfium2.PdfDocument(str(self._file(info)))
            try:
                image = pdf[page - 1].render(scale=RENDER_SCALE).to_pil().convert("RGB")
            finally:
                pdf.close()
        draw = ImageDraw.Draw(image)
        for box in boxes:
            pad = 2
            draw.rectangle(
                [
                    box.x0 * RENDER_SCALE - pad,
                    box.top * RENDER_SCALE - pad,
                    box.x1 * RENDER_SCALE + pad,
                    box.bottom * RENDER_SCALE + pad,
                ],
                outline=BOX_COLOUR,
                width=3,
            )
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()

    def table_html(self, doc: str, cell_id: str) -> str:
        """The table of HTML report `doc` holding cell `cell_id`, as a page of its own, the cell marked."""
        info = self._document(doc, "html")
        tree = lxml_html.parse(str(self._file(info)))
        cell = next((c for c in tree.iter("td", "th") if cell_id in (c.get("cell-id"), c.get("id"))), None)
        if cell is None:
            raise NotFound(f"{doc} has no table cell {cell_id!r}")
        table = next(cell.iterancestors("table"))
        rows = []
        for tr in table.iter("tr"):
            cells = []
            for td in tr.iter("td", "th"):
                spans = "".join(
                    f' {name}="{int(td.get(name))}"'
                    for name in ("colspan", "rowspan")
                    if (td.get(name) or "").isdigit()
                )
                mark = ' class="evidence"' if td is cell else ""
                text = html.escape(" ".join(etree.tostring(td, method="text", encoding="unicode").split()))
                cells.append(f"<{td.tag}{spans}{mark}>{text}</{td.tag}>")
            rows.append(f"<tr>{''.join(cells)}</tr>")
        return (
            f"<!doctype html><meta charset=utf-8><title>{html.escape(doc)}</title>"
            "<style>table{border-collapse:collapse;font:14px sans-serif}td,th{border:1px solid #999;"
            "padding:2px 6px}.evidence{outline:3px solid rgb(220,30,30);background:#fee}</style>"
            f"<table>{''.join(rows)}</table>"
        )

    def _document(self, doc: str, kind: str) -> DocumentInfo:
        info = self.documents.get(doc)
        if info is None:
            raise NotFound(f"no document {doc!r} in the index")
        if info.kind != kind:
            raise BadRequest(f"{doc} is not a {kind.upper()} document")
        return info

    def _file(self, info: DocumentInfo) -> Path:
        if self.root is None:
            raise NotFound("the index does not record its corpus folder; ingest it again to show documents")
        path = (self.root / info.path).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            raise NotFound(f"{info.path} is no longer in the corpus folder {self.root}")
        return path


def _manifest(index: IndexSettings) -> Manifest:
    """The index's manifest: on Elasticsearch the server's (INDEX_DIR may hold no copy, or an old one)."""
    if index.backend != "elasticsearch":
        return Manifest.load(index.manifest_path)
    from search.elastic_manifest import ElasticManifest

    mirror = ElasticManifest(index)
    try:
        return Manifest.load(index.manifest_path, mirror)
    finally:
        mirror.close()


def _kind(path: str) -> str:
    suffix = Path(path).suffix.lower()
    return "pdf" if suffix == ".pdf" else "html" if suffix in (".html", ".htm") else "other"
