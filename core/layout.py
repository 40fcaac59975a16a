"""A document's page layout file: the boxes of its text lines and table words, kept at ingest.

The parser records where each line and table word of a PDF page is printed
(`core.records.Box`); ingestion writes them to `INDEX_DIR/layout/<doc>.json`
and the server (serve/) reads them back to draw an answer's evidence on its
page. One JSON object: `{"version": 1, "boxes": [[page, kind, text, x0, top,
x1, bottom], ...]}`, coordinates rounded to 0.1 pt (rows are short, the file
small).

>>> write_layout(path, [Box(2, "line", "电子信箱：ir@example-tech.cn", 72.0, 90.5, 260.2, 101.3)])
>>> read_layout(path)[0].text
'电子信箱：ir@example-tech.cn'
"""

from __future__ import annotations

import json
from pathlib import Path

from core.errors import StoreError
from core.manifest import atomic_write_text
from core.records import Box

VERSION = 1
KINDS = ("line", "cell")


def write_layout(path: Path, boxes: list[Box]) -> None:
    """Write `boxes` to `path` atomically (no file when there are none, and an old one is removed)."""
    path = Path(path)
    if not boxes:
        path.unlink(missing_ok=True)
        return
    rows = [[b.page, b.kind, b.text, *(round(v, 1) for v in (b.x0, b.top, b.x1, b.bottom))] for b in boxes]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(
        path, json.dumps({"version": VERSION, "boxes": rows}, ensure_ascii=False, separators=(",", ":"))
    )


def read_layout(path: Path) -> list[Box]:
    """The boxes of a layout file, [] when there is none; StoreError naming the file when it is damaged."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise StoreError(f"damaged layout file ({exc}); ingest the document again", str(path)) from None
    if not (isinstance(data, dict) and isinstance(data.get("boxes"), list)) or data.get("version") != VERSION:
        raise StoreError(f"not a layout file of version {VERSION}; ingest the document again", str(path))
    boxes = []
    for number, row in enumerate(data["boxes"], start=1):
        try:
            page, kind, text, x0, top, x1, bottom = row
            if kind not in KINDS or not isinstance(page, int) or not isinstance(text, str):
                raise ValueError
            boxes.append(Box(page, kind, text, float(x0), float(top), float(x1), float(bottom)))
        except (TypeError, ValueError):
            raise StoreError(
                f"damaged layout file (box {number} is not [page, kind, text, x0, top, x1, bottom])",
                str(path),
            ) from None
    return boxes
