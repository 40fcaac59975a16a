"""Plain-text and Markdown files: encodings, Markdown headings, bad input."""

from __future__ import annotations

import json

import pdfplumber
import pytest

from core.errors import InputError
from core.records import DocumentMeta
from parser.settings import ParseSettings
from parser.text import parse_text, read_text

SETTINGS = ParseSettings()


def encodable(lines: list[str], encoding: str) -> list[str]:
    out = []
    for line in lines:
        try:
            line.encode(encoding)
        except UnicodeEncodeError:
            continue
        out.append(line)
    return out


@pytest.fixture(scope="module")
def simplified(shared_data) -> str:
    """Real Simplified-Chinese sentences: FinGLM questions."""
    with (shared_data / "finglm" / "A-list-question.jsonl").open(encoding="utf-8") as rows:
        questions = [json.loads(next(rows))["question"] for _ in range(8)]
    return "\n".join(questions) + "\n"


@pytest.fixture(scope="module")
def traditional(shared_data) -> str:
    """Real Traditional-Chinese policy text (lines Big5 can encode)."""
    with pdfplumber.open(shared_data / "aicup" / "reference" / "insurance" / "10.pdf") as pdf:
        lines = pdf.pages[0].extract_text().splitlines()[1:30]
    return "\n".join(encodable(lines, "big5")) + "\n"


@pytest.fixture(scope="module")
def japanese(shared_data) -> str:
    """Real Japanese paragraphs from a securities report (those Shift_JIS can encode)."""
    lxml_html = pytest.importorskip("lxml.html")
    path = sorted((shared_data / "ntcir18-u4" / "reports").glob("*/*-0102010.html"))[0]
    tree = lxml_html.parse(str(path), parser=lxml_html.HTMLParser(encoding="utf-8"))
    paragraphs = [" ".join(p.text_content().split()) for p in tree.iter("p")]
    return "\n".join(encodable([p for p in paragraphs if len(p) > 40][:5], "shift_jis")) + "\n"


@pytest.mark.parametrize(
    "fixture, encoding",
    [
        ("simplified", "utf-8"),
        ("simplified", "utf-8-sig"),
        ("simplified", "gb18030"),
        ("traditional", "big5"),
        ("japanese", "shift_jis"),
        ("japanese", "utf-8-sig"),
    ],
)
def test_text_is_decoded_from_its_encoding(request, tmp_path, fixture, encoding):
    text = request.getfixturevalue(fixture)
    assert len(text) > 100
    path = tmp_path / f"{fixture}.txt"
    path.write_bytes(text.encode(encoding))
    assert read_text(path) == text


def test_bom_does_not_reach_the_chunks(tmp_path, simplified):
    path = tmp_path / "questions.txt"
    path.write_bytes(simplified.encode("utf-8-sig"))
    chunks = parse_text(path, DocumentMeta("questions"), SETTINGS).chunks
    assert chunks and not chunks[0].text.startswith("\ufeff")
    assert chunks[0].text.startswith("能否根据2020年金宇生物技术股份有限公司的年报")


def test_big5_text_chunks_read_as_traditional_chinese(tmp_path, traditional):
    path = tmp_path / "policy.txt"
    path.write_bytes(traditional.encode("big5"))
    doc = parse_text(path, DocumentMeta("policy", company="南山人壽", year=2023), SETTINGS)
    clause = [c for c in doc.chunks if c.titles == ("第十三條 滿期保險金的給付",) and c.kind == "text"]
    assert clause and clause[0].text.startswith("被保險人「保險年齡」達九十六歲")
    assert (doc.pages, clause[0].page_start, clause[0].company) == (0, 0, "南山人壽")


def test_markdown_hash_headings_become_the_heading_path(tmp_path):
    path = tmp_path / "profile.md"
    path.write_text(
        "# 公司简介\n\n公司成立于2001年。\n\n## 一、公司信息\n\n注册地址为北京市。\n"
        "```\n# 这不是标题\n```\n### Risks\nCompetition is rising.\n",
        encoding="utf-8",
    )
    chunks = [c for c in parse_text(path, DocumentMeta("profile"), SETTINGS).chunks if c.kind == "text"]
    assert [(c.titles, c.text) for c in chunks] == [
        (("公司简介",), "公司成立于2001年。"),
        (("公司简介", "一、公司信息"), "注册地址为北京市。# 这不是标题"),
        (("公司简介", "一、公司信息", "Risks"), "Competition is rising."),
    ]


def test_plain_text_headings_come_from_the_rules(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text(
        "第三节 管理层讨论与分析\n一、报告期内公司从事的主要业务\n公司主要从事软件研发。\n", encoding="utf-8"
    )
    (chunk, _section) = parse_text(path, DocumentMeta("report"), SETTINGS).chunks
    assert chunk.titles == ("第三节 管理层讨论与分析", "一、报告期内公司从事的主要业务")


def test_binary_file_is_an_input_error(tmp_path):
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError, match="not a text file") as error:
        parse_text(path, DocumentMeta("image"), SETTINGS)
    assert str(error.value).startswith(f"{path}: ")


def test_bytes_no_encoding_reads_are_an_input_error_with_the_line(tmp_path):
    path = tmp_path / "broken.txt"
    path.write_bytes("第一行\n第二行\n".encode() + b"\xff\xfe\xff\xff\xfe\n")
    with pytest.raises(InputError, match="not UTF-8") as error:
        parse_text(path, DocumentMeta("broken"), SETTINGS)
    assert str(error.value).startswith(f"{path}:3: ")


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        parse_text(tmp_path / "absent.md", DocumentMeta("absent"), SETTINGS)
