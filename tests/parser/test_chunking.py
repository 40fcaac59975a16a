"""Sentence splitting and chunk packing: sizes, overlap, sections, heading paths, ids, pages."""

from __future__ import annotations

import pdfplumber
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.records import DocumentMeta, Line
from core.sentences import SentenceSplitter, join_text
from parser.chunking import Chunker
from parser.headings import HeadingRules
from parser.settings import ParseSettings

META = DocumentMeta("insurance/10", company="南山人壽保險股份有限公司", year=2023)


@pytest.fixture(scope="module")
def rules() -> HeadingRules:
    return HeadingRules.load()


@pytest.fixture(scope="module")
def policy_lines(shared_data) -> list[Line]:
    """The raw text lines of a real two-page insurance policy excerpt, as pdfplumber prints them."""
    lines = []
    with pdfplumber.open(shared_data / "aicup" / "reference" / "insurance" / "10.pdf") as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            lines += [
                Line(text, number) for text in page.extract_text().splitlines()[1:-1]
            ]  # no header/footer
    return lines


def sentences_of(lines: list[tuple[str, int]], max_chars: int = 400):
    splitter = SentenceSplitter(max_chars)
    out = []
    for text, page in lines:
        out += splitter.feed(text, page)
    return out + splitter.flush()


def test_a_chinese_line_broken_mid_sentence_is_one_sentence():
    sentences = sentences_of(
        [("要保人於保險單送達的翌日起算十日內，得以書面檢同保險單", 1), ("向本公司撤銷本契約。", 1)]
    )
    assert [s.text for s in sentences] == [
        "要保人於保險單送達的翌日起算十日內，得以書面檢同保險單向本公司撤銷本契約。"
    ]


def test_sentences_end_at_chinese_and_japanese_marks_keeping_closing_quotes():
    text = "公司营收增长！是否继续？研发投入增加；员工五万人。他说「好。」当社は増収となりました。Done! OK?"
    assert [s.text for s in sentences_of([(text, 1)])] == [
        "公司营收增长！",
        "是否继续？",
        "研发投入增加；",
        "员工五万人。",
        "他说「好。」",
        "当社は増収となりました。",
        "Done!",
        "OK?",
    ]


def test_latin_words_across_a_line_break_keep_a_space_and_numbers_do_not():
    assert join_text("net", "income") == "net income"
    assert join_text("营业收入23.4", "6亿元") == "营业收入23.46亿元"
    assert join_text("收入", "increase") == "收入increase"


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet="本公司營收abc 12,.。！；」\n", max_size=60), st.integers(1, 3)),
        max_size=30,
    ),
    st.integers(50, 120),
)
def test_sentences_keep_every_character_in_order_and_respect_the_limit(lines, max_chars):
    pages = sorted(page for _, page in lines)  # pages only go forward
    lines = [(text, page) for (text, _), page in zip(lines, pages) if "\n" not in text]
    sentences = sentences_of(lines, max_chars)
    assert all(0 < len(s.text) <= max_chars for s in sentences)
    assert "".join(s.text for s in sentences).replace(" ", "") == "".join(t for t, _ in lines).replace(
        " ", ""
    )
    assert all(s.page_start <= s.page_end for s in sentences)


def test_sentence_spanning_a_page_break_records_both_pages():
    (sentence,) = sentences_of([("本公司依本條約定給付保險金後，", 1), ("本契約效力即行終止。", 2)])
    assert (sentence.page_start, sentence.page_end) == (1, 2)


def test_blank_line_ends_a_paragraph_without_punctuation():
    sentences = sentences_of([("公司简介", 1), ("", 1), ("主要产品", 1)])
    assert [s.text for s in sentences] == ["公司简介", "主要产品"]


def test_run_without_sentence_end_is_cut_at_a_line_break_within_the_limit():
    rows = [(f"鴻海精密工業股份有限公司 子公司{i:02d} 100 100 100", 1) for i in range(20)]
    sentences = sentences_of(rows, max_chars=100)
    assert all(len(s.text) <= 100 for s in sentences)
    assert all(s.text.endswith("100 100 100") for s in sentences)  # cut where the layout broke the lines
    assert sum(s.text.count("子公司") for s in sentences) == 20


def test_text_chunks_stay_within_chunk_chars_on_a_real_policy(policy_lines, rules):
    for size in (60, 150, 400):
        chunks = Chunker(ParseSettings(chunk_chars=size, section_chars=max(size, 1500)), rules).run(
            META, policy_lines
        )
        text_chunks = [c for c in chunks if c.kind == "text"]
        assert text_chunks and all(len(c.text) <= size for c in text_chunks), size


def test_next_chunk_starts_with_the_overlap_sentences(policy_lines, rules):
    chunker = Chunker(ParseSettings(chunk_chars=150, overlap_sentences=1), rules)
    chunks = [c for c in chunker.run(META, policy_lines) if c.kind == "text"]
    overlapped = 0
    for before, after in zip(chunks, chunks[1:]):
        if before.titles != after.titles:
            continue
        last = sentences_of([(before.text, 1)])[-1].text
        first = sentences_of([(after.text, 1)])[0].text
        if after.text.startswith(last):
            overlapped += 1
        else:  # the overlap is left out only when it would not fit beside the next sentence
            assert len(join_text(last, first)) > 150
    assert overlapped >= 3


def test_without_overlap_the_text_chunks_of_a_section_add_up_to_the_section(policy_lines, rules):
    chunker = Chunker(ParseSettings(chunk_chars=150, overlap_sentences=0, section_chars=5000), rules)
    chunks = chunker.run(META, policy_lines)
    sections = [c for c in chunks if c.kind == "section"]
    assert len(sections) >= 5
    for section in sections:
        joined = ""
        for chunk in chunks:
            if chunk.kind == "text" and chunk.titles == section.titles:
                joined = join_text(joined, chunk.text)
        assert joined == section.text


def test_chunks_never_cross_a_heading(policy_lines, rules):
    chunks = Chunker(ParseSettings(chunk_chars=400), rules).run(META, policy_lines)
    headings = [line.text for line in policy_lines if rules.level(line.text) is not None]
    assert "第十四條 滿期保險金的申領" in headings
    for chunk in chunks:
        assert not any(heading in chunk.text for heading in headings), chunk.chunk_id
    documents = [c for c in chunks if "時，應檢具下" in c.text and c.titles == ("第十四條 滿期保險金的申領",)]
    assert documents


def test_short_section_also_becomes_one_section_chunk(policy_lines, rules):
    chunks = Chunker(ParseSettings(chunk_chars=100, section_chars=1500), rules).run(META, policy_lines)
    clause = ("第十七條 完全失能保險金的給付",)
    texts = [c for c in chunks if c.titles == clause and c.kind == "text"]
    (section,) = [c for c in chunks if c.titles == clause and c.kind == "section"]
    assert len(texts) >= 2
    assert section.text.startswith(texts[0].text[:20]) and section.text.endswith(texts[-1].text[-20:])


def test_section_longer_than_section_chars_gets_no_section_chunk(policy_lines, rules):
    chunks = Chunker(ParseSettings(chunk_chars=100, section_chars=100), rules).run(META, policy_lines)
    sections = [c for c in chunks if c.kind == "section"]
    assert sections and all(len(c.text) <= 100 for c in sections)
    long_clause = ("第十五條 身故保險金或喪葬費用保險金的給付",)
    assert [c for c in chunks if c.titles == long_clause and c.kind == "text"]
    assert not [c for c in chunks if c.titles == long_clause and c.kind == "section"]


def test_chunk_ids_are_stable_and_numbered_per_kind(policy_lines, rules):
    chunker = Chunker(ParseSettings(), rules)
    first, second = chunker.run(META, policy_lines), chunker.run(META, policy_lines)
    assert first == second
    texts = [c.chunk_id for c in first if c.kind == "text"]
    sections = [c.chunk_id for c in first if c.kind == "section"]
    assert texts == [f"insurance/10#t{n}" for n in range(len(texts))]
    assert sections == [f"insurance/10#s{n}" for n in range(len(sections))]


def test_chunks_keep_document_company_year_and_pages(policy_lines, rules):
    chunks = Chunker(ParseSettings(), rules).run(META, policy_lines)
    assert {(c.doc_id, c.company, c.year) for c in chunks} == {("insurance/10", META.company, 2023)}
    assert {c.page_start for c in chunks} == {1, 2}
    assert any(c.page_start == 1 and c.page_end == 2 for c in chunks)  # 第十五條 runs over the page break


def test_line_heading_level_from_the_source_makes_a_heading(rules):
    lines = [
        Line("Overview", heading_level=1),
        Line("公司主要从事软件研发。"),
        Line("Risks", heading_level=1),
        Line("一、市场风险"),
        Line("竞争加剧。"),
    ]
    chunks = Chunker(ParseSettings(), rules).run(DocumentMeta("ja/1"), lines)
    assert [(c.titles, c.text) for c in chunks if c.kind == "text"] == [
        (("Overview",), "公司主要从事软件研发。"),
        (("Risks", "一、市场风险"), "竞争加剧。"),
    ]


def test_chunker_rejects_wrong_configuration(rules):
    with pytest.raises(InputError):
        Chunker({"chunk_chars": 400}, rules)
    with pytest.raises(InputError):
        Chunker(ParseSettings(), "rules/headings.yaml")
