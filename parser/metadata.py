"""Who and when a document is about: company, short name, stock code, year, language.

Each field is taken from the first source that has it (rules/documents.yaml
says the same for maintainers):

1. the user's sidecar ``metadata.csv`` - the user knows best;
2. the file name, by the regexes under ``file_names``;
3. the cover of the first document of the file's group (the report id the
   file's markup prints, ``printed_groups``, else ``groups`` on its id): a
   securities report split into one HTML file per section names its company
   and year on the cover section only, while a section's own text names
   other companies (its transfer agent, its auditor);
4. the file's own cover text (first page of a PDF, start of an HTML/text
   file), by the regexes under ``cover``.

The language ("zh" or "ja") always comes from the text.

>>> finder = MetadataFinder.for_corpus(Path("corpus"), {"finance/12": Path("corpus/finance/12.pdf")})
>>> finder.find("finance/12")
DocumentMeta(doc_id='finance/12', company='聯華電子股份有限公司', year=2023, language='zh', ...)
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from core.errors import InputError
from core.identity import IDENTITY_SCHEMA
from core.language import LANGUAGES, ZH, cjk_language, without_spaces_in_cjk
from core.numerals import cjk_number
from core.records import DocumentMeta
from core.rulebook import active
from core.rulefile import RuleFile
from core.vocabulary import vocabulary

SIDECAR_NAME = "metadata.csv"
FIELDS = ("company", "short_name", "code", "year", "title")
GROUP_NAMES = frozenset(FIELDS) | {"era", "era_year"}
SIDECAR_COLUMNS = ("doc_id", "file", "company", "short_name", "code", "year", "title", "language")
PRINTED_GROUP_BYTES = 1 << 20  # how much of a markup file is searched for the report id it prints

_PATTERN = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1},
        "era": {"type": "string"},
        "name": {"type": "string"},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}
SCHEMA = {
    "type": "object",
    "properties": {
        "eras": {"type": "object", "additionalProperties": {"type": "integer"}},
        "file_names": {"type": "array", "items": _PATTERN},
        "cover": {
            "type": "object",
            "properties": {
                "chars": {"type": "integer", "minimum": 100},
                "fields": {
                    "type": "object",
                    "properties": {name: {"type": "array", "items": _PATTERN} for name in FIELDS},
                    "additionalProperties": False,
                },
            },
            "required": ["fields"],
            "additionalProperties": False,
        },
        "groups": {"type": "array", "items": _PATTERN},
        "printed_groups": {"type": "array", "items": _PATTERN},
        "identity": IDENTITY_SCHEMA,  # core/identity.py
    },
    "required": ["file_names", "cover"],
    "additionalProperties": False,
}


def _compile_pattern(
    rule_file: RuleFile, item: dict, eras: dict, at: tuple, allowed, need: tuple[str, ...]
) -> _Pattern:
    """One pattern of the rule file, checked: a valid regex, only the allowed group names, the needed ones, an era
    that is listed; InputError pointing to file:line (`at`: the keys down to the item) otherwise."""
    try:
        regex = re.compile(item["pattern"])
    except re.error as exc:
        raise rule_file.error(f"bad regex: {exc}", *at, "pattern") from None
    unknown = set(regex.groupindex) - set(allowed)
    if unknown:
        raise rule_file.error(
            f"unknown group name(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(allowed))}",
            *at,
            "pattern",
        )
    missing = [n for n in need if n not in regex.groupindex]
    if missing:
        raise rule_file.error(f"pattern needs the group(s) {', '.join(missing)}", *at, "pattern")
    era = item.get("era", "")
    if era and era not in eras:
        raise rule_file.error(f"era {era!r} is not listed under eras", *at, "era")
    if "era_year" in regex.groupindex and not era and "era" not in regex.groupindex:
        raise rule_file.error("a pattern with era_year needs an era group or an era: key", *at, "pattern")
    return _Pattern(regex, era)


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern
    era: str = ""


@dataclass(frozen=True)
class DocumentRules:
    """The compiled patterns of rules/documents.yaml.

    >>> rules = DocumentRules.load()
    >>> rules.from_file_name("2020-03-24__北京鼎汉技术集团股份有限公司__300011__鼎汉技术__2019年__年度报告")["year"]
    2019
    """

    file_names: tuple[_Pattern, ...]
    cover: dict[str, tuple[_Pattern, ...]]
    cover_chars: int
    eras: dict[str, int]
    groups: tuple[_Pattern, ...] = ()
    printed_groups: tuple[_Pattern, ...] = ()

    @classmethod
    def load(cls, path: Path | None = None) -> DocumentRules:
        """Load and check the rules; InputError pointing to file:line on a bad regex or group name."""
        rule_file = RuleFile.load(path or active().rules_dir / "documents.yaml", SCHEMA)
        data = rule_file.data
        eras = dict(data.get("eras") or {})

        def compile_list(items, *at, allowed=GROUP_NAMES, need=()) -> tuple[_Pattern, ...]:
            return tuple(
                _compile_pattern(rule_file, item, eras, (*at, i), allowed, need)
                for i, item in enumerate(items or [])
            )

        cover = data["cover"]
        fields = {
            name: compile_list(items, "cover", "fields", name)
            for name, items in (cover.get("fields") or {}).items()
        }
        for name, patterns in fields.items():
            for i, pattern in enumerate(patterns):
                wanted = {"year", "era_year"} if name == "year" else {name}
                if not wanted & set(pattern.regex.groupindex):
                    raise rule_file.error(
                        f"a {name} pattern needs the group {' or '.join(sorted(wanted))}",
                        "cover",
                        "fields",
                        name,
                        i,
                        "pattern",
                    )
        return cls(
            file_names=compile_list(data["file_names"], "file_names"),
            cover=fields,
            cover_chars=int(cover.get("chars", 3000)),
            eras=eras,
            groups=compile_list(data.get("groups"), "groups", allowed={"group"}, need=("group",)),
            printed_groups=compile_list(
                data.get("printed_groups"), "printed_groups", allowed={"group"}, need=("group",)
            ),
        )

    def from_file_name(self, stem: str) -> dict:
        """Fields read from a file name without its extension (first matching pattern)."""
        name = unicodedata.normalize("NFKC", stem)
        for pattern in self.file_names:
            match = pattern.regex.search(name)
            if match:
                return self._fields(match, pattern)
        return {}

    def from_text(self, text: str) -> dict:
        """Fields read from cover text; each field from its first matching pattern."""
        text = normalise_cover(text[: self.cover_chars * 2])[: self.cover_chars]
        found: dict = {}
        for name, patterns in self.cover.items():
            for pattern in patterns:
                value = None
                for match in pattern.regex.finditer(text):
                    value = self._fields(match, pattern).get(name)
                    if value:
                        break
                if value:
                    found[name] = value
                    break
        return found

    def group_of(self, doc_id: str) -> str:
        """The group key of a document id ("" when in no group)."""
        for pattern in self.groups:
            match = pattern.regex.search(doc_id)
            if match:
                return match.group("group")
        return ""

    def printed_report(self, path: Path) -> str:
        """The report id a markup file prints in its head (`printed_groups`), "" when none (or not markup)."""
        if path.suffix.lower() not in (".html", ".htm", ".xhtml") or not self.printed_groups:
            return ""
        try:
            with path.open("rb") as fh:
                head = fh.read(PRINTED_GROUP_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return ""  # the parser reports an unreadable file
        for pattern in self.printed_groups:
            match = pattern.regex.search(head)
            if match:
                return match.group("group")
        return ""

    def _fields(self, match: re.Match, pattern: _Pattern) -> dict:
        groups = {k: v.strip() for k, v in match.groupdict().items() if v and v.strip()}
        out = {k: groups[k] for k in ("company", "short_name", "code", "title") if k in groups}
        year = _year(groups, pattern.era, self.eras)
        if year:
            out["year"] = year
        return out


def _year(groups: dict, fixed_era: str, eras: dict[str, int]) -> int | None:
    if "year" in groups:
        year = cjk_number(groups["year"])
    elif "era_year" in groups:
        era = groups.get("era") or fixed_era
        number = cjk_number(groups["era_year"])
        year = eras[era] + number if era in eras and number is not None else None
    else:
        return None
    return year if year is not None and 1900 <= year <= 2100 else None


def normalise_cover(text: str) -> str:
    """NFKC, plain newlines, no spaces inside CJK runs: what cover patterns are matched against."""
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")
    return without_spaces_in_cjk(text)


@dataclass(frozen=True)
class Sidecar:
    """Rows of the user's metadata.csv files, by document id.

    A metadata.csv may sit in any folder of the corpus; its `doc_id` (or
    `file`) column names documents relative to that folder, with or without
    the extension.
    """

    rows: dict[str, dict]

    @classmethod
    def load(cls, corpus: Path) -> Sidecar:
        rows: dict[str, dict] = {}
        for path in sorted(corpus.rglob(SIDECAR_NAME)):
            if any(part.startswith(".") for part in path.relative_to(corpus).parts):
                continue
            folder = path.parent.relative_to(corpus).as_posix()
            for doc_id, values in _read_sidecar(path, "" if folder == "." else folder):
                rows[doc_id] = values
        return cls(rows)

    def row(self, doc_id: str, rel_path: str = "") -> dict:
        """The row naming this document by id or by file name (relative to its metadata.csv); {} if none."""
        return dict(self.rows.get(doc_id) or self.rows.get(rel_path) or {})


def _read_sidecar(path: Path, folder: str):
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start}); save it as UTF-8", str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    reader = csv.DictReader(text.splitlines())
    columns = [c.strip() for c in reader.fieldnames or []]
    unknown = [c for c in columns if c not in SIDECAR_COLUMNS]
    if unknown:
        raise InputError(
            f"unknown column(s) {', '.join(unknown)}; known: {', '.join(SIDECAR_COLUMNS)}", str(path), 1
        )
    if "doc_id" not in columns and "file" not in columns:
        raise InputError("needs a doc_id or file column", str(path), 1)
    for row in reader:
        line = reader.line_num
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items() if k}
        key = row.pop("doc_id", "") or row.pop("file", "")
        row.pop("file", None)
        if not key:
            raise InputError("empty doc_id/file", str(path), line)
        key = key.replace("\\", "/").strip("/")
        values = {k: v for k, v in row.items() if v}
        if "year" in values:
            year = cjk_number(values["year"].removesuffix(vocabulary("numbers")["years"]["year"]))
            if year is None or not 1900 <= year <= 2100:
                raise InputError(f"year {values['year']!r} is not a year", str(path), line)
            values["year"] = year
        if values.get("language", ZH) not in LANGUAGES:
            raise InputError(
                f"language {values['language']!r} is not one of {', '.join(LANGUAGES)}", str(path), line
            )
        yield (f"{folder}/{key}" if folder else key), values


def merge(*sources: dict) -> dict:
    """Field by field, the first source that has a value wins."""
    out: dict = {}
    for source in sources:
        for key, value in source.items():
            if value and key not in out:
                out[key] = value
    return out


def cover_text(path: Path, chars: int = 3000, pdfium=None) -> str:
    """The first `chars` characters of a document's text, read cheaply; "" when unreadable.

    Only for finding metadata: the real parsers read the whole file and
    report problems properly. `pdfium`: the PDF's PdfiumDocument (parser/pdfium_document.py), whose
    pages read here stay loaded for the parser.
    """
    suffix = path.suffix.lower()
    try:
        if suffix == ".pdf":
            return _pdf_cover(path, chars, pdfium)
        if suffix in (".html", ".htm"):
            return _html_cover(path, chars)
        if suffix in (".txt", ".md"):
            with path.open("rb") as fh:
                return fh.read(chars * 4).decode("utf-8", errors="replace")[:chars]
    except Exception:  # noqa: BLE001 - a damaged file just has no cover; the parser reports why
        return ""
    return ""


def _pdf_cover(path: Path, chars: int, pdfium=None) -> str:
    from parser.pdfium_document import PdfiumDocument

    document = pdfium or PdfiumDocument(path)
    try:
        parts: list[str] = []
        for index in range(min(len(document), 2)):
            text = document.page_text(index)
            if text is None:
                return ""  # pdfium cannot read the page: no cover
            parts.append(text)
            if (
                sum(len(part.strip()) for part in parts) >= 200
            ):  # a real cover page; skip the slow second page
                break
        return "\n".join(parts)[:chars]
    finally:
        if document is not pdfium:
            document.close()


def _html_cover(path: Path, chars: int) -> str:
    import lxml.html

    with path.open("rb") as fh:
        data = fh.read(512 * 1024)
    # EDINET's XHTML starts with an XML declaration, which lxml refuses in a decoded string
    root = lxml.html.document_fromstring(_XML_DECLARATION.sub("", _decode_html_head(data), count=1))
    for element in root.xpath("//style|//script|//head"):
        element.drop_tree()
    for element in root.iter(*_BLOCKS):  # a label cell and its value cell: two lines, as two paragraphs
        element.tail = "\n" + (element.tail or "")
    return re.sub(r"[ \t\r\f\v]*\n\s*", "\n", root.text_content()).strip()[:chars]


_BLOCKS = ("p", "div", "br", "td", "th", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w-]+)""", re.I)


def _decode_html_head(data: bytes) -> str:
    """Decode the start of an HTML file: BOM or valid UTF-8 first, then the declared charset."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3:  # only the last character was cut by the read limit
            return data[: exc.start].decode("utf-8")
    declared = _CHARSET.search(data)
    try:
        return data.decode(declared.group(1).decode("ascii") if declared else "utf-8", errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


class MetadataFinder:
    """Finds the DocumentMeta of each document of a corpus.

    >>> from core.rulefile import data_dir
    >>> corpus, doc_id = data_dir("examples") / "corpus", "annual/2023-03-28__示例科技股份有限公司__688001__示例科技__2022年__年度报告"
    >>> finder = MetadataFinder.for_corpus(corpus, {doc_id: corpus / f"{doc_id}.pdf"})
    >>> meta = finder.find(doc_id)  # from the file name (an EDINET cover section -0000000 would do too)
    >>> meta.company, meta.code, meta.year
    ('示例科技股份有限公司', '688001', 2022)
    """

    def __init__(self, rules: DocumentRules, sidecar: Sidecar, corpus: Path, documents: dict[str, Path]):
        self.rules = rules
        self.sidecar = sidecar
        self.corpus = corpus
        self.documents = dict(documents)
        self._digests: dict[Path, str] = {}
        self._group_keys = self._report_keys()
        groups: dict[str, str] = {}
        for doc_id in sorted(self.documents):
            if self._group_keys[doc_id]:
                groups.setdefault(self._group_keys[doc_id], doc_id)
        self._group_first = groups

    @classmethod
    def for_corpus(
        cls, corpus: Path, documents: dict[str, Path], rules: DocumentRules | None = None
    ) -> MetadataFinder:
        return cls(rules or DocumentRules.load(), Sidecar.load(corpus), corpus, documents)

    def key(self, doc_id: str) -> str:
        """What the metadata of a document depends on besides its own bytes (for the ingest manifest)."""
        parts = {"sidecar": self._sidecar_row(doc_id)}
        cover = self._group_cover(doc_id)
        if cover is not None:
            if cover not in self._digests:
                self._digests[cover] = _file_digest(cover)
            parts["group_cover"] = [cover.as_posix(), self._digests[cover]]
        return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]

    def find(self, doc_id: str, pdfium=None) -> DocumentMeta:
        """Metadata from the sidecar, the file name, the group's cover and the file's own cover, in that order.
        `pdfium`: the document's PdfiumDocument, when the parser reads it next (see cover_text)."""
        path = self.documents[doc_id]
        text = cover_text(path, self.rules.cover_chars, pdfium)
        fields = self.fixed(doc_id)
        group_cover = self._group_cover(doc_id)
        cover = cover_text(group_cover, self.rules.cover_chars) if group_cover is not None else ""
        if cover and not ("company" in fields and "year" in fields):
            # the group's cover names the report; a section's own text names other companies (its bank, its auditor)
            fields = merge(fields, self.rules.from_text(cover))
        fields = merge(fields, self.rules.from_text(text))
        # one report, one language: a section of kanji-only statement rows is written in its cover's language
        language = fields.get("language") or cjk_language(cover) or cjk_language(text)
        return DocumentMeta(
            doc_id=doc_id,
            company=fields.get("company", ""),
            short_name=fields.get("short_name", ""),
            code=fields.get("code", ""),
            year=fields.get("year"),
            language=language,
            title=fields.get("title", ""),
        )

    def fixed(self, doc_id: str) -> dict:
        """The fields the user's sidecar and the file name give: nothing read from the text overrides them."""
        return merge(self._sidecar_row(doc_id), self.rules.from_file_name(self.documents[doc_id].stem))

    def complete(self, meta: DocumentMeta, text: str) -> DocumentMeta:
        """Fill what is still missing from text found later (OCR of a scanned cover)."""
        found = self.rules.from_text(text)
        changes = {k: v for k, v in found.items() if not getattr(meta, k)}
        if not meta.language:
            changes["language"] = cjk_language(text)
        return replace(meta, **changes) if changes else meta

    def _sidecar_row(self, doc_id: str) -> dict:
        path = self.documents[doc_id]
        try:
            rel_path = path.relative_to(self.corpus).as_posix()
        except ValueError:
            rel_path = path.name
        return self.sidecar.row(doc_id, rel_path)

    def _report_keys(self) -> dict[str, str]:
        """The report each document is a part of ("" when none). A report id its own markup prints (the
        table ids of an EDINET section, S100RHMW-0101010-tab1) comes first, so the layout does not matter:
        files in a folder per report (S100RHMW/0101010) or with the id in their names
        (S100RHMW/S100RHMW-0101010). A file that prints none (a section without tables) belongs to the one
        report its folder's files print; else the rules' `groups` pattern on the document id decides."""
        printed = {doc_id: self.rules.printed_report(path) for doc_id, path in self.documents.items()}
        by_folder: dict[str, set[str]] = {}
        for doc_id, report in printed.items():
            if report:
                by_folder.setdefault(_folder(doc_id), set()).add(report)
        keys = {}
        for doc_id, report in printed.items():
            folder = _folder(doc_id)
            reports = by_folder.get(folder, set())
            report = report or (next(iter(reports)) if len(reports) == 1 else "")
            keys[doc_id] = f"{folder}/{report}" if report else self.rules.group_of(doc_id)
        return keys

    def _group_cover(self, doc_id: str) -> Path | None:
        first = self._group_first.get(self._group_keys.get(doc_id, ""))
        return self.documents[first] if first and first != doc_id else None


def _folder(doc_id: str) -> str:
    return doc_id.rpartition("/")[0]


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""
