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
both numeral forms alike). `article_key` gives one spelling for either form.

>>> article_key("第二十四条の二"), article_key("第24条の2第1項"), article_key("附則 第三条")
('24の2', '24の2', '附則3')
>>> arabic_articles("第百九十三条の二第一項"), kanji_articles("第5条第6項")
('第193条の2第1項', '第五条第六項')
"""
from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from parser.errors import InputError
from parser.numerals import cjk_number, kanji_number
from parser.records import Chunk, DocumentMeta, LawRecord, ParsedDocument

ARTICLE_KIND = "article"
_NUM = r"[0-9〇一二三四五六七八九十百千]+"
# 第二十四条の二の三, 第5条第6項第2号: an article reference with its branch numbers, paragraph and item.
_REFERENCE = re.compile(rf"第({_NUM})(条|項|号)((?:の{_NUM})*)")
_ARTICLE_LABEL = re.compile(rf"^(附則\s*)?第({_NUM})条((?:の{_NUM})*)")
_PART = re.compile(rf"^第{_NUM}(編|章|節|款|目)(?:の{_NUM})*[\s　]")
_PART_RANK = {"編": 0, "章": 1, "節": 2, "款": 3, "目": 4}
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
_MD_FIELD = re.compile(r"^(法令番号|法令ID|種別)\s*[:：]\s*(.+)$")


@dataclass(frozen=True)
class Article:
    label: str  # as the law writes it: "第二十四条の二", "附則 第一条"
    parts: tuple[str, ...]  # 編/章/節 headings above it (and "附則" for supplementary provisions)
    text: str  # one sentence (paragraph or item) per line


@dataclass(frozen=True)
class Statute:
    law: LawRecord
    articles: tuple[Article, ...]


def article_key(label: str) -> str:
    """One spelling for an article label in either numeral form: "第二十四条の二" and "第24条の2" -> "24の2"."""
    text = unicodedata.normalize("NFKC", label).strip()
    match = _ARTICLE_LABEL.match(text)
    if not match:
        return ""
    branches = "".join(f"の{cjk_number(b)}" for b in match.group(3).split("の") if b)
    return f"{'附則' if match.group(1) else ''}{cjk_number(match.group(2))}{branches}"


def _numbers(text: str, convert) -> str:
    return "の".join(convert(part) for part in text.split("の"))


def arabic_articles(text: str) -> str:
    """Article, paragraph and item numbers in Arabic digits: 第二十四条の二第一項 -> 第24条の2第1項."""
    def arabic(match: re.Match) -> str:
        branches = _numbers(match.group(3), lambda n: str(cjk_number(n)) if n else "")
        return f"第{cjk_number(match.group(1))}{match.group(2)}{branches}"

    return _REFERENCE.sub(arabic, unicodedata.normalize("NFKC", text))


def kanji_articles(text: str) -> str:
    """Article, paragraph and item numbers as statutes write them: 第24条の2第1項 -> 第二十四条の二第一項."""
    def kanji(match: re.Match) -> str:
        branches = _numbers(match.group(3), lambda n: kanji_number(cjk_number(n)) if n else "")
        return f"第{kanji_number(cjk_number(match.group(1)))}{match.group(2)}{branches}"

    return _REFERENCE.sub(kanji, unicodedata.normalize("NFKC", text))


def looks_like_statute(path: Path) -> bool:
    """A Markdown file in the e-Gov conversion: a `# title` first, then a 法令番号 line or `## 第一条` headings."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as fh:
            head = [fh.readline() for _ in range(12)]
    except OSError:
        return False
    lines = [line.strip() for line in head if line.strip()]
    return bool(lines) and lines[0].startswith("# ") and any(
        _MD_FIELD.match(line) or line.startswith(("## 第", "## 附則")) for line in lines[1:])


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
                supplementary = name.startswith("附則")
                if supplementary and not (parts and parts[-1][1] == "附則"):
                    parts = [(-1, "附則")]
                elif not supplementary and parts and parts[0][1] == "附則":
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
    law = LawRecord(title=title, law_num=fields.get("法令番号", ""), law_id=fields.get("法令ID", ""),
                    kind=fields.get("種別", ""))
    return Statute(law, tuple(articles))


def _enter_part(parts: list[tuple[int, str]], name: str) -> list[tuple[int, str]]:
    """The heading path after a part heading: a 章 closes the previous 章 and everything below it."""
    if name.replace(" ", "").replace("　", "") == "附則":
        return [(-1, "附則")]
    match = _PART.match(name + " ")
    if not match:
        return parts
    rank = _PART_RANK[match.group(1)]
    return [p for p in parts if 0 <= p[0] < rank] + [(rank, name)]


# -- e-Gov XML ---------------------------------------------------------------------------------------

_XML_PARTS = {"Part": "PartTitle", "Chapter": "ChapterTitle", "Section": "SectionTitle",
              "Subsection": "SubsectionTitle", "Division": "DivisionTitle"}
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
    abbreviations = tuple(a for a in re.split(r"[,、，]", title_node.get("Abbrev", "")) if a)
    law = LawRecord(title=_text(title_node), law_num=_text(root.find("./LawNum")), kind=root.get("LawType", ""),
                    abbreviations=abbreviations)
    articles: list[Article] = []
    body = root.find("./LawBody")
    main = body.find("./MainProvision")
    if main is not None:
        _xml_articles(main, (), articles)
    for suppl in body.findall("./SupplProvision"):
        _xml_articles(suppl, ("附則",), articles, prefix="附則 ")
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
        elif child.tag == "Paragraph" and prefix:  # supplementary provisions without articles: one per paragraph
            paragraphs += 1
            out.append(Article(f"{prefix}第{kanji_number(paragraphs)}条", parts, "\n".join(_xml_paragraph(child))))


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
    chunks = [Chunk(chunk_id=f"{meta.doc_id}#a{n}", doc_id=meta.doc_id, text=article.text or article.label,
                    titles=(law.title, *article.parts, article.label), kind=ARTICLE_KIND)
              for n, article in enumerate(statute.articles)]
    warnings = [] if chunks else ["no articles found (expected `## 第一条` headings or <Article> elements)"]
    return ParsedDocument(meta=meta, chunks=chunks, law=law, warnings=warnings)


# -- paragraphs and items of the Markdown form --------------------------------------------------------

_LEAD = re.compile(r"次に掲げる|次の各号|次のいずれか|次のとおり")
# The second column of a two-column item (書類　五年) that the conversion put on a line of its own.
_PERIOD_COLUMN = re.compile(rf"^{_NUM}(年|月|日|箇月|か月)(間)?$")
_NEW_PARAGRAPH = re.compile(r"^(前[各二三四五六七八九十]*項|第[一二三四五六七八九十百]+項|前条|同項|この法律|この条)")


@dataclass(frozen=True)
class Provision:
    paragraph: int  # 1-based 項
    item: int | None  # 1-based 号, None for the paragraph's own sentence
    text: str


def provisions(text: str, two_column: re.Pattern | None = None) -> list[Provision]:
    """The paragraphs and items of an article whose numbers the Markdown conversion dropped, reconstructed.

    A line after a lead line (次に掲げる…, 次の各号…) is an item until a line that
    reads like a paragraph: it opens with 前項/第N項/前条/この法律, or it is a full
    sentence with a topic (…は、…。) rather than a noun phrase or a …こと。 clause.
    A line starting ただし or この場合において (a proviso, a second sentence) continues
    its paragraph or item, and a lone period (五年) is the
    second column of the item above it. Sub-items (イ, ロ) cannot be
    told from items and are counted as items; XML sources keep their numbers.
    When the lead matches `two_column` (…の区分に応じ当該各号に定める額), each item is a
    case and what it is given, which the conversion put on two lines: they are joined.
    """
    out: list[Provision] = []
    paragraph, item, listing, paired, second = 0, 0, False, False, False
    for line in (raw.strip() for raw in text.splitlines()):
        if not line:
            continue
        if out and (line.startswith(("ただし", "この場合において")) or (out[-1].item and _PERIOD_COLUMN.match(line))
                    or (second and not line.endswith("。") and not _NEW_PARAGRAPH.match(line))):
            joiner = "　" if _PERIOD_COLUMN.match(line) or second else ""
            out[-1] = Provision(out[-1].paragraph, out[-1].item, out[-1].text + joiner + line)
            second = False
            continue
        sentence_like = line.endswith("。") and ("は、" in line or "ときは" in line) and not line.endswith(("こと。", "もの。", "とき。"))
        if listing and not _NEW_PARAGRAPH.match(line) and not sentence_like:
            item += 1
            out.append(Provision(paragraph, item, line))
            second = paired and not line.endswith("。")
            continue
        paragraph, item = paragraph + 1, 0
        out.append(Provision(paragraph, None, line))
        listing = bool(_LEAD.search(line))
        paired = listing and two_column is not None and bool(two_column.search(line))
        second = False
    return out
