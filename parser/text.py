"""Plain-text and Markdown documents -> chunks.

The encoding is UTF-8 (with or without a BOM); failing that, whichever of
GB18030, Big5 and Shift_JIS charset-normalizer finds the text reads best in.
Markdown `#` headings become heading lines (level = number of #); other
lines go through the heading rules like PDF lines; a blank line ends a
paragraph.

>>> doc = parse_text(Path("notes/公司简介.md"), DocumentMeta("notes/公司简介"), ParseSettings())
>>> doc.chunks[0].titles
('公司简介', '一、公司信息')
"""

from __future__ import annotations

import re
from pathlib import Path

from core.errors import InputError
from core.records import DocumentMeta, Line, ParsedDocument
from parser.chunking import Chunker
from parser.headings import HeadingRules
from parser.settings import ParseSettings

FALLBACK_ENCODINGS = ("gb18030", "big5", "shift_jis")
_MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def parse_text(
    path: Path, meta: DocumentMeta, settings: ParseSettings, rules: HeadingRules | None = None
) -> ParsedDocument:
    """Chunks of one .txt or .md file; InputError when it is not text in a known encoding."""
    path = Path(path)
    text = read_text(path)
    markdown = path.suffix.lower() in (".md", ".markdown")
    lines = markdown_lines(text) if markdown else [Line(line) for line in text.splitlines()]
    chunker = Chunker(settings, rules or HeadingRules.shared())
    return ParsedDocument(meta=meta, chunks=chunker.run(meta, lines))


def read_text(path: Path) -> str:
    """The file decoded: UTF-8 (BOM or not), else the best of GB18030 / Big5 / Shift_JIS."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    if b"\x00" in data[:4096]:
        raise InputError("not a text file (binary content)", str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        utf8_error = exc
    import charset_normalizer

    best = charset_normalizer.from_bytes(data, cp_isolation=list(FALLBACK_ENCODINGS)).best()
    if best is None:
        line = data[: utf8_error.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 (byte 0x{data[utf8_error.start]:02x}) and not GB18030, Big5 or Shift_JIS either",
            str(path),
            line,
        )
    return str(best)


def markdown_lines(text: str) -> list[Line]:
    """Lines of a Markdown text; `#` headings carry their level (not inside code fences)."""
    lines = []
    fenced = False
    for raw in text.splitlines():
        if _FENCE.match(raw):
            fenced = not fenced
            lines.append(Line(""))  # a code block is a paragraph of its own
            continue
        match = None if fenced else _MARKDOWN_HEADING.match(raw)
        if match:
            lines.append(Line(match.group(2), heading_level=len(match.group(1))))
        else:
            lines.append(Line(raw))
    return lines
