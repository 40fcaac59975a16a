"""Text of PDF pages that have no text layer: render with pypdfium2, read with Tesseract.

Tesseract is an optional system tool (`tesseract` on PATH, installed by
docker/install-system-deps.sh with the chi_sim, chi_tra and jpn packs). Where
it or a language pack is missing, `PageOcr.missing` says why and callers count
the page as having no text.

>>> ocr = PageOcr(ParseSettings(ocr_languages="chi_tra"))
>>> ocr.missing                     # "Tesseract not installed" on a machine without it
''
>>> lines = ocr.run(Path("finance/226.pdf"), page_index=0)   # a scanned income statement
>>> any("營業收入" in line for line in lines)
True
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pypdfium2

from core.errors import InputError
from parser.settings import ParseSettings

TIMEOUT_SECONDS = 600  # one page; a stuck Tesseract must not hold up the whole ingestion
_CJK = r"\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
# Tesseract puts a space between every pair of CJK characters it reads, and often after a
# thousands separator ("27, 809, 971").
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])")
_DIGIT_GROUP_GAP = re.compile(r"(?<=\d,)[ \t]+(?=\d{3}(?!\d))")


@functools.cache
def installed_languages(tesseract: str) -> frozenset[str]:
    """Language packs the given tesseract binary can load."""
    result = subprocess.run([tesseract, "--list-langs"], capture_output=True, text=True, timeout=60)
    lines = (result.stdout or result.stderr).splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip())


class PageOcr:
    """OCR of single PDF pages with the Tesseract command-line tool."""

    def __init__(self, settings: ParseSettings, tesseract: str = "tesseract"):
        self.languages = tuple(settings.ocr_languages.split("+"))
        if not all(re.fullmatch(r"[A-Za-z_]+", lang) for lang in self.languages):
            raise InputError(
                f"ocr_languages must be Tesseract language codes joined by '+', "
                f"got {settings.ocr_languages!r}"
            )
        self.dpi = settings.ocr_dpi
        self.max_pixels = settings.max_ocr_pixels
        self.binary = shutil.which(tesseract)
        self.missing = self._missing()

    def _missing(self) -> str:
        if self.binary is None:
            return "Tesseract not installed"
        absent = [lang for lang in self.languages if lang not in installed_languages(self.binary)]
        if absent:
            return f"Tesseract language pack {'+'.join(absent)} not installed"
        return ""

    def run(self, pdf_path: Path, page_index: int) -> list[str]:
        """The page's text lines, read from a rendering at `dpi`; [] when nothing was read."""
        if self.missing:
            raise RuntimeError(self.missing)
        image = render_page(pdf_path, page_index, self.dpi, self.max_pixels)
        png = io.BytesIO()
        image.save(png, format="PNG")
        # One thread per Tesseract: ingestion already runs one process per core.
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        result = subprocess.run(
            [
                self.binary,
                "stdin",
                "stdout",
                "-l",
                "+".join(self.languages),
                "--dpi",
                str(self.dpi),
                "--psm",
                "6",
            ],
            input=png.getvalue(),
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            env=env,
        )
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(message[-1] if message else f"tesseract exited with {result.returncode}")
        text = result.stdout.decode("utf-8", "replace")
        return [line for line in (clean_ocr_line(raw) for raw in text.splitlines()) if line]


def clean_ocr_line(text: str) -> str:
    """Tesseract's line without its gaps between CJK characters and inside numbers.

    >>> clean_ocr_line("營 業 收 入  $ 27, 809, 971")
    '營業收入  $ 27,809,971'
    """
    return _DIGIT_GROUP_GAP.sub("", _CJK_GAP.sub("", text)).strip()


def render_page(pdf_path: Path, page_index: int, dpi: int, max_pixels: int | None = None):
    """One page as a PIL image at `dpi` (pypdfium2 ships with pdfplumber); RuntimeError when it would have more
    than `max_pixels` pixels (a 14,400 pt square page takes 4.7 GB at 200 dpi)."""
    document = pypdfium2.PdfDocument(str(pdf_path))
    try:
        page = document[page_index]
        try:
            width, height = page.get_size()
            pixels = width * height * (dpi / 72) ** 2
            if max_pixels is not None and pixels > max_pixels:
                raise RuntimeError(
                    f"the page is {width:.0f} x {height:.0f} pt, {pixels / 1e6:.0f}M pixels at {dpi} dpi, "
                    f"over the limit of {max_pixels / 1e6:g}M (--max-ocr-pixels)"
                )
            return page.render(scale=dpi / 72).to_pil()
        finally:
            page.close()
    finally:
        document.close()
