"""pdfplumber's characters and ruling edges read by pdfium, so that most pages never go through pdfminer.

pdfminer interprets a page's content stream in Python: about four fifths of
the time of ingesting an annual report. pdfium reads the same page in C,
ten times faster. `read_page` builds from it the two things the text lines
and both table finders read of a pdfplumber page:

- characters, as pdfplumber places them (x0 at the glyph's origin, x1 at its
  advance, bottom at the font's descent, top one font size above it),
  rounded to the decimals the PDF wrote (pdfium computes in single precision);
- ruling edges: each path cut into subpaths and read as a line, rectangle or
  curve exactly as pdfminer's `paint_path` does, then turned into edges as
  pdfplumber's own helpers do, so `TableFinder` finds the same cells; only the
  edges it reads are kept (across or down the page, `EDGE_MIN_LENGTH` long).

`PdfiumPage` holds them with the page's size, and parser/pdf.py hands it to
the same code as a pdfplumber page. A page goes to pdfminer instead when its
page box is rotated or not at the origin, or when text is set rotated or
vertical. Paths and text inside form XObjects are placed through the forms'
matrices, as pdfminer places them.

One difference is kept: pdfium does not hand out the stream's space
characters, only word breaks of its own, and where the gap is narrower than
pdfplumber's x tolerance it marks a break with or without a space in the
stream alike ("2019 年" holds none, "4 / 156" two). These breaks are left out,
so such a gap reads as no break ("4/ 156", "( 60,025,519)"); pdfplumber
finds every wider one from the gap, as before. tests/parser/test_pdfium_page.py
compares characters, edges, lines and tables with pdfplumber's on real reports.

>>> page = read_page(pdfium_page, pdfium_page.get_textpage(), plumber_page)  # None: read it with pdfminer
>>> page.find_tables(PDF_TABLE_SETTINGS), page.extract_words()
"""

from __future__ import annotations

import ctypes
import struct

import pypdfium2
import pypdfium2.raw as pdfium_c
from pdfplumber.table import Table, TableSettings
from pdfplumber.utils import curve_to_edges, extract_words

from parser.ruled_finder import RuledTableFinder

_DECIMALS = 4
# The shortest edge pdfplumber's table finder reads (TableSettings.edge_min_length_prefilter, its default): only
# such edges are kept, so a page read here finds tables only with settings that drop shorter ones first.
EDGE_MIN_LENGTH = TableSettings.edge_min_length_prefilter
_UPRIGHT_NOISE = 1e-3  # matrix entries b and c below this share of a and d: upright (see pdf._upright)


class PdfiumPage:
    """What parser/pdf.py and the table finders read of a pdfplumber page: size, characters, words, edges, tables."""

    def __init__(self, chars: list[dict], edges: list[dict], width: float, height: float, page_number: int):
        self.chars, self.edges = chars, edges
        self.width, self.height = width, height
        self.bbox = (0, 0, width, height)
        self.page_number = page_number

    def extract_words(self, **options) -> list[dict]:
        return extract_words(self.chars, **options)

    def find_tables(self, settings: dict) -> list[Table]:
        resolved = TableSettings.resolve(settings)
        if resolved.edge_min_length_prefilter < EDGE_MIN_LENGTH:
            raise ValueError(f"a page read by pdfium keeps no edge shorter than {EDGE_MIN_LENGTH}")
        return RuledTableFinder(self, resolved).tables


def read_page(page: pypdfium2.PdfPage, textpage: pypdfium2.PdfTextPage, plumber_page) -> PdfiumPage | None:
    """The page's characters and ruling from pdfium, or None when the page needs pdfminer (see the module doc)."""
    width, height = float(plumber_page.width), float(plumber_page.height)
    if plumber_page.rotation or tuple(plumber_page.mediabox) != (
        0,
        0,
        plumber_page.width,
        plumber_page.height,
    ):
        return None
    doctop = float(plumber_page.initial_doctop)
    edges = _edges(page, height, doctop)
    chars = None if edges is None else _chars(textpage, height, doctop, plumber_page.page_number)
    return None if chars is None else PdfiumPage(chars, edges, width, height, plumber_page.page_number)


def _edges(page: pypdfium2.PdfPage, height: float, doctop: float) -> list[dict] | None:
    """The edges of pdfplumber's `page.edges` that its table finder reads: those of its lines, rectangles and
    curves, from pdfminer's reading of each path, that run across or down the page at least `EDGE_MIN_LENGTH`
    long. The finder drops every other edge before it looks at them (`TableFinder.get_edges`); a statement
    page draws hundreds of hairline rectangles, whose two short sides are such edges.

    None, for pdfminer to read the page, when text is set rotated or vertical:
    pdfium's text page may leave such characters out.
    """
    lines, rects, curves = [], [], []
    for obj, kind, (a, b, c, d, e, f) in _objects(page):
        if kind == pdfium_c.FPDF_PAGEOBJ_TEXT:
            if not _upright(a, b, c, d):
                return None
            continue
        start = 0
        ops = _path(obj, (a, b, c, d, e, f))
        for end in [i for i, (op, _) in enumerate(ops) if op == "m"][1:] + [len(ops)]:
            _paint(ops[start:end], lines, rects, curves)
            start = end
    edges = [edge for pts in lines if _read_by_finder(edge := _line_edge(_object(pts, height, doctop)))]
    for pts in rects:
        edges += _rect_edges(_object(pts, height, doctop))
    for pts in curves:
        curve = {**_object(pts, height, doctop), "pts": [(px, height - py) for px, py in pts]}
        edges += [edge for edge in curve_to_edges(curve) if _read_by_finder(edge)]
    return edges


def _read_by_finder(edge: dict) -> bool:
    """Whether pdfplumber's table finder keeps the edge (`filter_edges` with its prefilter length)."""
    if edge["orientation"] == "h":
        return edge["width"] >= EDGE_MIN_LENGTH
    return edge["orientation"] == "v" and edge["height"] >= EDGE_MIN_LENGTH


def _rect_edges(rect: dict) -> list[dict]:
    """pdfplumber's `rect_to_edges(rect)` (top, bottom, left, right), only those its table finder reads: two
    dictionaries built instead of four for a hairline rectangle."""
    edges = []
    if rect["width"] >= EDGE_MIN_LENGTH:
        edges.append(
            {
                **rect,
                "object_type": "rect_edge",
                "height": 0,
                "y0": rect["y1"],
                "bottom": rect["top"],
                "orientation": "h",
            }
        )
        edges.append(
            {
                **rect,
                "object_type": "rect_edge",
                "height": 0,
                "y1": rect["y0"],
                "top": rect["top"] + rect["height"],
                "doctop": rect["doctop"] + rect["height"],
                "orientation": "h",
            }
        )
    if rect["height"] >= EDGE_MIN_LENGTH:
        edges.append({**rect, "object_type": "rect_edge", "width": 0, "x1": rect["x0"], "orientation": "v"})
        edges.append({**rect, "object_type": "rect_edge", "width": 0, "x0": rect["x1"], "orientation": "v"})
    return edges


_OPERATORS = {pdfium_c.FPDF_SEGMENT_MOVETO: "m", pdfium_c.FPDF_SEGMENT_LINETO: "l"}  # else "c": a curve
_POINT = (ctypes.c_float(), ctypes.c_float())
_POINT_REFS = tuple(map(ctypes.byref, _POINT))  # passed by reference as they are, not converted on every call


def _path(obj, matrix: tuple) -> list[tuple[str, tuple[float, float]]]:
    """pdfminer's path of a path object: operator and end point of each segment, transformed by `matrix`."""
    a, b, c, d, e, f = matrix
    bezier = pdfium_c.FPDF_SEGMENT_BEZIERTO
    segments = path_segments(obj)
    ops = []
    count, index = len(segments), 0
    px = py = 0.0
    while index < count:
        px, py, step, closes = segments[index]
        if step == bezier:  # three segments: two control points, then the end
            index += 2
            # (a path cut short: pdfium gives no third point, and the last one read stands)
            px, py, _, closes = segments[index] if index < count else (px, py, step, False)
        point = (round(a * px + c * py + e, _DECIMALS), round(b * px + d * py + f, _DECIMALS))
        ops.append((_OPERATORS.get(step, "c"), point))
        if closes:
            ops.append(("h", point))
        index += 1
    return ops


# pdfium's path segment (CFX_Path::Point): its point (two floats), its type (FPDF_SEGMENT_*) and whether it
# closes the figure, 12 bytes; the segments of a path lie in one array.
_SEGMENT = struct.Struct("<ffB?2x")
_ARRAY_READ: list[bool] = []  # [whether reading the array gives what pdfium's calls give], once checked


def path_segments(obj) -> list[tuple[float, float, int, bool]]:
    """(x, y, FPDF_SEGMENT_* type, closes) of each segment of a path object, in path space.

    Tens of thousands of segments on a report's statement pages, four pdfium calls each: the segments are
    read as the one array pdfium keeps them in. That this pdfium lays them out so is checked on the first
    path of two segments or more against its calls, segment by segment (else the calls read every path),
    and for each path that its last segment is where the array puts it.
    """
    count = pdfium_c.FPDFPath_CountSegments(obj)
    if count <= 0:
        return []
    get_segment = pdfium_c.FPDFPath_GetPathSegment
    if _ARRAY_READ == [True] or (not _ARRAY_READ and count >= 2):
        start = ctypes.cast(get_segment(obj, 0), ctypes.c_void_p).value
        last = ctypes.cast(get_segment(obj, count - 1), ctypes.c_void_p).value
        if start and last == start + (count - 1) * _SEGMENT.size:
            segments = list(_SEGMENT.iter_unpack(ctypes.string_at(start, count * _SEGMENT.size)))
            if _ARRAY_READ:
                return segments
            by_calls = [_segment(get_segment(obj, index)) for index in range(count)]
            _ARRAY_READ.append(segments == by_calls)
            return by_calls
    return [_segment(get_segment(obj, index)) for index in range(count)]


def _segment(segment) -> tuple[float, float, int, bool]:
    """One segment's (x, y, type, closes) by pdfium's calls."""
    x, y = _POINT
    pdfium_c.FPDFPathSegment_GetPoint(segment, *_POINT_REFS)
    closes = bool(pdfium_c.FPDFPathSegment_GetClose(segment))
    return (x.value, y.value, pdfium_c.FPDFPathSegment_GetType(segment), closes)


_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _objects(page: pypdfium2.PdfPage):
    """(object, type, matrix to page space) of the page's paths and text, in drawing order, inside forms too."""
    matrix = pdfium_c.FS_MATRIX()
    get_type, get_matrix = pdfium_c.FPDFPageObj_GetType, pdfium_c.FPDFPageObj_GetMatrix
    wanted = (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_TEXT)
    form = pdfium_c.FPDF_PAGEOBJ_FORM
    # a level: its object count, how to get its i-th object, whose, the matrix it is drawn with, the next index
    stack = [(pdfium_c.FPDFPage_CountObjects(page), pdfium_c.FPDFPage_GetObject, page, _IDENTITY, 0)]
    while stack:
        count, get, owner, outer, index = stack.pop()
        while index < count:
            obj = get(owner, index)
            index += 1
            kind = get_type(obj)
            if kind != form and kind not in wanted:
                continue
            get_matrix(obj, matrix)
            own = (matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f)
            if outer is not _IDENTITY:  # the page's own level: the object's matrix is the page's
                own = _times(own, outer)
            if kind == form:  # the rest of this level after the form's own objects
                stack.append((count, get, owner, outer, index))
                count, get, owner, outer, index = (
                    pdfium_c.FPDFFormObj_CountObjects(obj),
                    pdfium_c.FPDFFormObj_GetObject,
                    obj,
                    own,
                    0,
                )
                continue
            yield obj, kind, own


def _times(inner: tuple, outer: tuple) -> tuple:
    """The matrix applying `inner`, then `outer` (PDF's a b c d e f order)."""
    a, b, c, d, e, f = inner
    oa, ob, oc, od, oe, of = outer
    return (
        a * oa + b * oc,
        a * ob + b * od,
        c * oa + d * oc,
        c * ob + d * od,
        e * oa + f * oc + oe,
        e * ob + f * od + of,
    )


def _paint(path: list[tuple[str, tuple[float, float]]], lines: list, rects: list, curves: list) -> None:
    """pdfminer's `PDFLayoutAnalyzer.paint_path` for one subpath: a line, a rectangle or a curve, by its points."""
    shape = "".join(op for op, _ in path)
    if shape[:1] != "m":
        return
    pts = [point if op != "h" else path[0][1] for op, point in path]
    if len(shape) > 3 and shape[-2:] == "lh" and pts[-2] == pts[0]:
        shape = shape[:-2] + "h"
        pts.pop()
    if shape in ("mlh", "ml"):
        lines.append(pts[:2])
    elif shape in ("mlllh", "mllll"):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3), _ = pts
        if pts[0] == pts[4] and (
            (x0 == x1 and y1 == y2 and x2 == x3 and y3 == y0)
            or (y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0)
        ):
            rects.append([pts[0], pts[2]])
        else:
            curves.append(pts)
    else:
        curves.append(pts)


def _object(pts: list[tuple[float, float]], height: float, doctop: float) -> dict:
    """The geometry pdfplumber gives a line, rectangle or curve through these points (PDF coordinates)."""
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    return {
        "x0": x0,
        "y0": y0,
        "x1": x1,
        "y1": y1,
        "width": x1 - x0,
        "height": y1 - y0,
        "top": height - y1,
        "bottom": height - y0,
        "doctop": doctop + height - y1,
    }


def _upright(a: float, b: float, c: float, d: float) -> bool:
    """A text matrix that sets characters upright, up to rounding noise (as parser.pdf._upright counts them)."""
    return a > 0 and d > 0 and abs(b) < _UPRIGHT_NOISE * a and abs(c) < _UPRIGHT_NOISE * d


def _line_edge(line: dict) -> dict:
    return {**line, "object_type": "line", "orientation": "h" if line["top"] == line["bottom"] else "v"}


def _chars(textpage, height: float, doctop: float, page_number: int) -> list[dict] | None:
    """pdfplumber-style character dicts without pdfium's word breaks (see the module doc); None when a
    character is not upright (pdfminer lays those out)."""
    chars = []
    matrix = pdfium_c.FS_MATRIX()
    origin_x, origin_y = ctypes.c_double(), ctypes.c_double()
    loose = pdfium_c.FS_RECTF()
    # Thousands of characters a page: the pdfium functions, the text page's handle and the references to the
    # output structures are made once.
    matrix_ref, loose_ref = ctypes.byref(matrix), ctypes.byref(loose)
    x_ref, y_ref = ctypes.byref(origin_x), ctypes.byref(origin_y)
    handle = textpage.raw
    get_unicode, is_generated = pdfium_c.FPDFText_GetUnicode, pdfium_c.FPDFText_IsGenerated
    get_matrix, get_box = pdfium_c.FPDFText_GetMatrix, pdfium_c.FPDFText_GetLooseCharBox
    get_origin, get_size = pdfium_c.FPDFText_GetCharOrigin, pdfium_c.FPDFText_GetFontSize
    for index in range(textpage.count_chars()):
        text = chr(get_unicode(handle, index))
        # pdfium generates only its word and line breaks: a space is the one character to ask about
        if text in "\r\n\x00" or (text == " " and is_generated(handle, index)):
            continue
        get_matrix(handle, index, matrix_ref)
        a, b, c, d = matrix.a, matrix.b, matrix.c, matrix.d
        if not _upright(a, b, c, d):
            return None
        get_box(handle, index, loose_ref)
        get_origin(handle, index, x_ref, y_ref)
        # pdfium computes in single precision: rounded, its coordinates are the decimals the PDF wrote.
        size = round(get_size(handle, index) * d, _DECIMALS)
        char_bottom = round(height - loose.bottom, _DECIMALS)
        x0 = round(origin_x.value, _DECIMALS)
        chars.append(
            {
                "text": text,
                "x0": x0,
                "x1": max(x0, round(loose.right, _DECIMALS)),
                "top": char_bottom - size,
                "bottom": char_bottom,
                "doctop": doctop + char_bottom - size,
                "size": size,
                "upright": True,
                "matrix": (a, b, c, d, matrix.e, matrix.f),
                "page_number": page_number,
            }
        )
    return chars
