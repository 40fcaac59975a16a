"""Statutes (Japanese laws and orders) -> one heading-annotated chunk per article.

Two source forms:
- Markdown as e-Gov law data converts to it: `# 法令名`, a `法令番号:` line,
  then `## 第五条` per article (`## 附則 第一条` in supplementary provisions),
  optional `##` part headings (`第二章　企業内容等の開示`, `附則`);
- e-Gov law XML (`<Law><LawNum>…<LawBody><LawTitle>…<MainProvision>…`), where
  編/章/節/款/目, article captions, paragraph and item numbers are kept.

Each article is one `Chunk(kind="article")` whose titles are the law title,
the 編/章/節 path and the article label as the law writes it ("第二十四条の二",
"附則 第一条"), so a title query for "第24条" finds it (the tokenizer reads
both numeral forms alike; core/articles.py gives one spelling for either form).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from core.articles import ARTICLE_KIND, article_key, pattern
from core.errors import InputError
from core.numerals import kanji_number
from core.records import Chunk, DocumentMeta, LawRecord, ParsedDocument
from core.rulebook import per_book
from core.vocabulary import vocabulary

_WORDS = per_book(lambda: vocabulary("statutes"))  # rules/statutes.yaml
_PART = pattern("part")
_PART_RANK: dict[str, int] = per_book(lambda: _WORDS["part_ranks"])
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
_MD_FIELD = pattern("markdown_field")
_ORDINAL = per_book(lambda: _WORDS["ordinal"])
_BRANCH = per_book(lambda: _WORDS["branch"])
_SUPPLEMENTARY = per_book(lambda: _WORDS["supplementary"])


@dataclass(frozen=True)
class Article:
    label: str  # as the law writes it: "第二十四条の二", "附則 第一条"
    parts: tuple[str, ...]  # 編/章/節 headings above it (and "附則" for supplementary provisions)
    text: str  # one sentence (paragraph or item) per line


@dataclass(frozen=True)
class Statute:
    law: LawRecord
    articles: tuple[Article, ...]


def looks_like_statute(path: Path) -> bool:
    """A Markdown file in the e-Gov conversion: a `# title` first, then a 法令番号 line or `## 第一条` headings."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as fh:
            head = [fh.readline() for _ in range(12)]
    except OSError:
        return False
    lines = [line.strip() for line in head if line.strip()]
    return (
        bool(lines)
        and lines[0].startswith("# ")
        and any(
            _MD_FIELD.match(line)
            or line.startswith(("## " + _ORDINAL.value(), "## " + _SUPPLEMENTARY.value()))
            for line in lines[1:]
        )
    )


def parse_statute_markdown(text: str, source: str = "") -> Statute:
    """The law title, number and articles of a Markdown statute; InputError when it has no `# title`."""
    title, fields = "", {}
    articles: list[Article] = []
    parts: list[tuple[int, str]] = []
    label, body = "", []

    def close() -> None:
        if label:
            articles.append(Article(label, tuple(p for _, p in parts), "\n".join(body).strip()))

    for raw in text.splitlines():
        line = raw.strip()
        heading = _MD_HEADING.match(line)
        if heading and len(heading.group(1)) == 1 and not title:
            title = heading.group(2)
            continue
        if heading:
            name = heading.group(2)
            if article_key(name):
                close()
                label, body = name, []
                supplementary = name.startswith(_SUPPLEMENTARY.value())
                if supplementary and not (parts and parts[-1][1] == _SUPPLEMENTARY.value()):
                    parts = [(-1, _SUPPLEMENTARY.value())]
                elif not supplementary and parts and parts[0][1] == _SUPPLEMENTARY.value():
                    parts = []
                continue
            close()
            label, body = "", []
            parts = _enter_part(parts, name)
            continue
        field = _MD_FIELD.match(line) if not label else None
        if field:
            fields[field.group(1)] = field.group(2).strip()
        elif label and line:
            body.append(line)
    close()
    if not title:
        raise InputError("not a statute: no `# law title` line", source)
    names = _WORDS["markdown_fields"]
    law = LawRecord(
        title=title,
        law_num=fields.get(names["law_num"], ""),
        law_id=fields.get(names["law_id"], ""),
        kind=fields.get(names["kind"], ""),
    )
    return Statute(law, tuple(articles))


def _enter_part(parts: list[tuple[int, str]], name: str) -> list[tuple[int, str]]:
    """The heading path after a part heading: a 章 closes the previous 章 and everything below it."""
    bare = name
    for space in _WORDS["spaces"]:
        bare = bare.replace(space, "")
    if bare == _SUPPLEMENTARY.value():
        return [(-1, _SUPPLEMENTARY.value())]
    match = _PART.match(name + " ")
    if not match:
        return parts
    rank = _PART_RANK[match.group(1)]
    return [p for p in parts if 0 <= p[0] < rank] + [(rank, name)]


# -- e-Gov XML ---------------------------------------------------------------------------------------

_XML_PARTS = {
    "Part": "PartTitle",
    "Chapter": "ChapterTitle",
    "Section": "SectionTitle",
    "Subsection": "SubsectionTitle",
    "Division": "DivisionTitle",
}
_XML_ITEMS = ("Item", "Subitem1", "Subitem2", "Subitem3")


def parse_statute_xml(path: Path) -> Statute:
    """A law in the e-Gov XML schema; InputError when the file is not one."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputError(f"invalid XML: {exc}", str(path), exc.position[0]) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", str(path)) from None
    title_node = root.find("./LawBody/LawTitle")
    if root.tag != "Law" or title_node is None:
        raise InputError("not an e-Gov law XML file (no <Law><LawBody><LawTitle>)", str(path))
    abbreviations = tuple(
        a for a in re.split(_WORDS["abbreviation_separators"], title_node.get("Abbrev", "")) if a
    )
    law = LawRecord(
        title=_text(title_node),
        law_num=_text(root.find("./LawNum")),
        kind=root.get("LawType", ""),
        abbreviations=abbreviations,
    )
    articles: list[Article] = []
    body = root.find("./LawBody")
    main = body.find("./MainProvision")
    if main is not None:
        _xml_articles(main, (), articles)
    for suppl in body.findall("./SupplProvision"):
        _xml_articles(suppl, (_SUPPLEMENTARY.value(),), articles, prefix=_SUPPLEMENTARY.value() + " ")
    return Statute(law, tuple(articles))


def _xml_articles(node: ET.Element, parts: tuple[str, ...], out: list[Article], prefix: str = "") -> None:
    paragraphs = 0
    for child in node:
        if child.tag in _XML_PARTS:
            _xml_articles(child, parts + (_text(child.find(_XML_PARTS[child.tag])),), out, prefix)
        elif child.tag == "Article":
            caption = _text(child.find("ArticleCaption"))
            lines = [caption] if caption else []
            for paragraph in child.findall("Paragraph"):
                lines += _xml_paragraph(paragraph)
            out.append(Article(prefix + _text(child.find("ArticleTitle")), parts, "\n".join(lines)))
        elif (
            child.tag == "Paragraph" and prefix
        ):  # supplementary provisions without articles: one per paragraph
            paragraphs += 1
            label = f"{prefix}{_ORDINAL.value()}{kanji_number(paragraphs)}{_WORDS['article']}"
            out.append(Article(label, parts, "\n".join(_xml_paragraph(child))))


def _xml_paragraph(paragraph: ET.Element) -> list[str]:
    number = _text(paragraph.find("ParagraphNum"))
    lines = [" ".join(filter(None, (number, _text(paragraph.find("ParagraphSentence")))))]
    for item in paragraph.iter():
        if item.tag in _XML_ITEMS:
            title = _text(item.find(f"{item.tag}Title"))
            sentence = _text(item.find(f"{item.tag}Sentence"))
            lines.append(" ".join(filter(None, (title, sentence))))
    return [line for line in lines if line]


def _text(node: ET.Element | None) -> str:
    return "".join(node.itertext()).strip() if node is not None else ""


# -- chunks ------------------------------------------------------------------------------------------


def parse_statute(path: Path, meta: DocumentMeta) -> ParsedDocument:
    """One chunk per article of a Markdown or e-Gov XML statute."""
    path = Path(path)
    if path.suffix.lower() == ".xml":
        statute = parse_statute_xml(path)
    else:
        from parser.text import read_text

        statute = parse_statute_markdown(read_text(path), str(path))
    return statute_document(statute, meta)


def statute_document(statute: Statute, meta: DocumentMeta) -> ParsedDocument:
    law = statute.law
    meta = DocumentMeta(meta.doc_id, language="ja", title=law.title)
    chunks = [
        Chunk(
            chunk_id=f"{meta.doc_id}#a{n}",
            doc_id=meta.doc_id,
            text=article.text or article.label,
            titles=(law.title, *article.parts, article.label),
            kind=ARTICLE_KIND,
        )
        for n, article in enumerate(statute.articles)
    ]
    expected = f"## {_ORDINAL.value()}{kanji_number(1)}{_WORDS['article']}"
    warnings = [] if chunks else [f"no articles found (expected `{expected}` headings or <Article> elements)"]
    return ParsedDocument(meta=meta, chunks=chunks, law=law, warnings=warnings)


# -- paragraphs and items of the Markdown form --------------------------------------------------------
