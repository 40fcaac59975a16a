"""pdfplumber pages that build their object dicts in half the time: the same dicts as pdfplumber's.

pdfplumber's `Page.process_object` turns each pdfminer object into a dict
through a generic resolver (a closure, `filter`/`map` and a recursive
`resolve_all` on every attribute): about a quarter of the time of reading a
page of an annual report (~1,100 characters, hundreds of rectangles on a
statement page). Their attributes are mostly plain values (numbers, strings,
tuples of numbers) that need no resolving, so `fast_chars` builds the dicts
of characters, lines, rectangles and curves directly, step for step as
pdfplumber 0.11 does; tests/parser/test_plumber.py compares them with
pdfplumber's own on real pages, so a pdfplumber that builds them otherwise
fails it. Other objects (images) go through pdfplumber's own code.

>>> with pdfplumber.open("report.pdf") as pdf:
...     page = fast_chars(pdf.pages[0])
...     page.chars  # equal to pdfplumber's
"""

from __future__ import annotations

import re
import types
from unicodedata import normalize as normalize_unicode

from pdfminer.layout import LTChar, LTCurve
from pdfplumber.page import ALL_ATTRS, Page, fix_fontname_bytes, lt_pat
from pdfplumber.utils import resolve_all, resolve_and_decode

_PLAIN = {str, float, int, bool, type(None)}  # types whose values resolve_all returns as they are
_COLOUR_SPACES: dict[str, str] = {}  # a colour space's name decoded, once per name
_KINDS: dict[type, str] = {}  # pdfminer class -> pdfplumber's object_type ("char", "rect")


def fast_chars(page: Page) -> Page:
    """The page, its objects to be built by `_process_object` when it is parsed."""
    page.process_object = types.MethodType(_process_object, page)
    return page


def _resolved(value):
    """resolve_all(value), without walking values that hold nothing to resolve (equal, not always a copy)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if (kind is tuple or kind is list) and all(
        type(x) in _PLAIN or (type(x) is tuple and all(type(y) in _PLAIN for y in x)) for x in value
    ):
        return value if kind is tuple else list(value)
    return resolve_all(value)


def _process_object(page: Page, obj) -> dict:
    """`Page.process_object` for characters and lines, rectangles and curves, resolving only what needs it."""
    if not isinstance(obj, (LTChar, LTCurve)):  # images: pdfplumber's own code
        return Page.process_object(page, obj)
    cls = type(obj)
    kind = _KINDS.get(cls) or _KINDS.setdefault(cls, re.sub(lt_pat, "", cls.__name__).lower())
    attr = {k: _resolved(v) for k, v in obj.__dict__.items() if k in ALL_ATTRS}
    attr["object_type"] = kind
    attr["page_number"] = page.page_number
    for cs in ("ncs", "scs"):
        if hasattr(obj, cs):
            name = getattr(obj, cs).name
            if type(name) is not str:
                attr[cs] = resolve_and_decode(name)
            elif (decoded := _COLOUR_SPACES.get(name)) is not None:
                attr[cs] = decoded
            else:
                attr[cs] = _COLOUR_SPACES[name] = resolve_and_decode(name)
    if isinstance(obj, LTChar):
        text = obj.get_text()
        attr["text"] = (
            text if page.pdf.unicode_norm is None else normalize_unicode(page.pdf.unicode_norm, text)
        )
        state = obj.graphicstate
        attr["stroking_color"] = state.scolor if isinstance(state.scolor, tuple) else (state.scolor,)
        attr["non_stroking_color"] = state.ncolor if isinstance(state.ncolor, tuple) else (state.ncolor,)
        if isinstance(attr["fontname"], bytes):
            attr["fontname"] = fix_fontname_bytes(attr["fontname"])
    else:
        attr["pts"] = list(map(page.point2coord, attr["pts"]))
        attr["path"] = [(cmd, *map(page.point2coord, pts)) for cmd, *pts in obj.original_path]
        attr["dash"] = obj.dashing_style
    mb_x0, mb_top = page.mediabox[:2]
    if "y0" in attr:
        attr["top"] = (page.height - attr["y1"]) + mb_top
        attr["bottom"] = (page.height - attr["y0"]) + mb_top
        attr["doctop"] = page.initial_doctop + attr["top"]
    if "x0" in attr and mb_x0 != 0:
        attr["x0"] = attr["x0"] + mb_x0
        attr["x1"] = attr["x1"] + mb_x0
    return attr
