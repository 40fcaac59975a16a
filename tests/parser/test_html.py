"""parse_html on the NTCIR-18 U4 securities reports and on small HTML files the tests write."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from core.errors import InputError
from core.records import DocumentMeta
from parser.html import parse_html, read_html
from parser.settings import ParseSettings

SHIONOGI = DocumentMeta("ntcir/S100IXUZ", company="塩野義製薬株式会社", year=2020, language="ja")


def report(shared_data, doc: str, section: str) -> Path:
    return shared_data / "ntcir18-u4" / "reports" / doc / f"{doc}-{section}.html"


def markup_cell_ids(path: Path) -> set[str]:
    root = lxml.html.parse(str(path), parser=lxml.html.HTMLParser(encoding="utf-8")).getroot()
    return {cell.get("cell-id") for cell in root.iter("td", "th") if cell.get("cell-id")}


def write_html(path: Path, body: str) -> Path:
    path.write_text(f"<html><head><meta charset='utf-8'></head><body>{body}</body></html>", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def statements(shared_data):
    path = report(shared_data, "S100IXUZ", "0105010")
    return path, parse_html(path, SHIONOGI, ParseSettings())


def test_table_and_fact_ids_are_the_markup_ids(statements):
    path, doc = statements
    ids = markup_cell_ids(path)
    equity = next(t for t in doc.table_list if t.table_id == "S100IXUZ-0105010-tab89")
    assert equity.cell_ids.shape == equity.frame.shape
    used = {v for v in equity.cell_ids.to_numpy().ravel() if v}
    assert used and used <= ids
    fact = next(f for f in doc.facts if f.cell_id == "S100IXUZ-0105010-tab89-r25c9")
    assert (fact.value, fact.unit, fact.raw, fact.table) == (
        "-4187000000",
        "円",
        "△ 4,187",
        "S100IXUZ-0105010-tab89",
    )
    assert fact.field == "支配継続子会社に対する持分変動" and fact.period == "非支配持分"
    assert all(f.cell_id in ids for f in doc.facts)
    assert len({f.cell_id for f in doc.facts}) == len(doc.facts)


def test_document_yields_text_table_chunks_and_tables(statements):
    _, doc = statements
    kinds = {c.kind for c in doc.chunks}
    assert {"text", "section", "table"} <= kinds
    assert doc.tables == len(doc.table_list) > 100
    row = next(c for c in doc.chunks if c.chunk_id == "ntcir/S100IXUZ#rS100IXUZ-0105010-tab89-0")
    # a row of dated balances reads column by column
    assert row.text.startswith(
        "資本金（2018年４月１日残高）は21,279百万円。資本剰余金（2018年４月１日残高）は21,055百万円。"
    )
    assert row.titles[-1] == "③【連結持分変動計算書】" and row.cell_id == "S100IXUZ-0105010-tab89-r4c1"


def test_rows_between_dated_balances_take_the_year_they_end_in(statements):
    _, doc = statements
    by_id = {f.cell_id: f for f in doc.facts}
    assert by_id["S100IXUZ-0105010-tab89-r25c9"].year == 2020
    assert by_id["S100IXUZ-0105010-tab89-r13c9"].year == 2019  # the same row of the year before


def test_cover_page_values_are_text_facts(shared_data):
    path = report(shared_data, "S100IXUZ", "0000000")
    doc = parse_html(path, SHIONOGI, ParseSettings())
    by_field = {f.field: f for f in doc.facts}
    office = by_field["本店の所在の場所"]
    assert office.value == "大阪府大阪市中央区道修町３丁目１番８号" and office.number is None
    assert office.cell_id == "S100IXUZ-0000000-tab1-r10c2"
    assert by_field["提出日"].value == "2020-06-24"
    assert by_field["提出書類"].value == "有価証券報告書"


def test_headings_come_from_the_markup_and_bracket_captions(shared_data):
    lines = read_html(report(shared_data, "S100J50B", "0105010")).lines
    headings = {line.text: line.heading_level for line in lines if line.heading_level is not None}
    assert headings["第５【経理の状況】"] == 2
    # this report writes its statement captions as plain paragraphs
    assert headings["①【連結財政状態計算書】"] == headings["②【連結損益計算書】"]
    assert headings["①【連結財政状態計算書】"] > headings["第５【経理の状況】"]


def test_key_figures_table_reads_units_from_its_unit_column(shared_data):
    tables = read_html(report(shared_data, "S100IU0U", "0101010")).tables
    key_figures = next(t for t in tables if t.table_id == "S100IU0U-0101010-tab2")
    assert list(key_figures.frame.columns)[2] == "第92期(2015年度)/2016年３月"
    from parser.facts import table_facts

    facts, _ = table_facts(key_figures, DocumentMeta("d", company="丸紅株式会社", year=2020, language="ja"))
    got = {(f.field, f.year): (f.value, f.unit) for f in facts}
    assert got[("収益", 2016)] == ("7300299000000", "円")
    assert got[("親会社所有者帰属持分比率", 2016)] == ("18.5", "%")
    assert got[("従業員数", 2020)] == ("45635", "人")
    assert got[("(外、平均臨時雇用者数)", 2020)] == ("7760", "人")  # parentheses are not a minus here


def test_spans_units_and_captions_of_written_tables(tmp_path):
    path = write_html(
        tmp_path / "s.html",
        """
      <h3>１【業績】</h3>
      <p>前事業年度（自 2018年4月1日 至 2019年3月31日）</p>
      <p>（単位：百万円）</p>
      <table table-id="T-tab1">
        <tr><td cell-id="T-tab1-r1c1" rowspan="2">区分</td><td cell-id="T-tab1-r1c2" colspan="2">金額</td></tr>
        <tr><td cell-id="T-tab1-r2c1">国内</td><td cell-id="T-tab1-r2c2">海外</td></tr>
        <tr><td cell-id="T-tab1-r3c1" rowspan="2">売上高</td><td cell-id="T-tab1-r3c2">1,000</td>
            <td cell-id="T-tab1-r3c3">200</td></tr>
        <tr><td cell-id="T-tab1-r4c1">△ 30</td><td cell-id="T-tab1-r4c2">5</td></tr>
      </table>
      <table table-id="T-tab2">
        <tr><td cell-id="T-tab2-r1c1">区分</td><td cell-id="T-tab2-r1c2">国内</td></tr>
        <tr><td cell-id="T-tab2-r2c1">営業利益</td><td cell-id="T-tab2-r2c2">70</td></tr>
      </table>""",
    )
    first, second = read_html(path).tables
    assert (first.table_id, first.unit, first.title) == (
        "T-tab1",
        "百万円",
        "前事業年度（自 2018年4月1日 至 2019年3月31日）",
    )
    assert first.titles == ("１【業績】",)
    assert list(first.frame.columns) == ["区分", "金額/国内", "金額/海外"]
    assert first.frame.values.tolist() == [["売上高", "1,000", "200"], ["売上高", "△ 30", "5"]]
    assert first.cell_ids.values.tolist() == [
        ["T-tab1-r3c1", "T-tab1-r3c2", "T-tab1-r3c3"],
        ["T-tab1-r3c1", "T-tab1-r4c1", "T-tab1-r4c2"],
    ]
    # the second part of the statement has no caption of its own: same unit and period
    assert (second.unit, second.title) == ("百万円", first.title)
    doc = parse_html(path, DocumentMeta("s", company="C", year=2019, language="ja"), ParseSettings())
    by_id = {f.cell_id: f for f in doc.facts}
    assert (by_id["T-tab1-r4c1"].value, by_id["T-tab1-r4c1"].year) == ("-30000000", 2019)
    assert by_id["T-tab2-r2c2"].value == "70000000"


def test_the_next_item_of_a_numbering_is_a_sibling_of_the_heading_before_it(tmp_path):
    # EDINET audit fees: ⅰ marked up as a heading, ⅱ a plain paragraph captioning the next table; (1) then (2)
    # marked up as nested headings
    row = "<tr><td>区分</td><td>報酬</td></tr><tr><td>提出会社</td><td>1</td></tr>"
    path = write_html(
        tmp_path / "audit.html",
        f"""
      <h5>④ 監査報酬の内容等</h5>
      <h6>ⅰ 監査公認会計士等に対する報酬</h6>
      <table table-id="T-tab1">{row}</table>
      <p>ⅱ 監査公認会計士等と同一のネットワークに対する報酬（ⅰを除く）</p>
      <table table-id="T-tab2">{row}</table>
      <h4>(1) 連結会社の状況</h4>
      <table table-id="T-tab3">{row}</table>
      <h5>(2) 提出会社の状況</h5>
      <table table-id="T-tab4">{row}</table>
      <h5>(1) 内訳</h5>
      <table table-id="T-tab5">{row}</table>""",
    )
    titles = {t.table_id: t.titles for t in read_html(path).tables}
    assert titles["T-tab1"] == ("④ 監査報酬の内容等", "ⅰ 監査公認会計士等に対する報酬")
    assert titles["T-tab2"] == (
        "④ 監査報酬の内容等",
        "ⅱ 監査公認会計士等と同一のネットワークに対する報酬（ⅰを除く）",
    )
    assert titles["T-tab4"] == ("(2) 提出会社の状況",)
    # (1) after (2) opens a list of its own: nested as marked up
    assert titles["T-tab5"] == ("(2) 提出会社の状況", "(1) 内訳")


def test_the_network_audit_fee_table_is_not_under_the_audit_fee_heading(shared_data):
    # UFO-2024 (EDINET XHTML): ⅰ is an h6, ⅱ a paragraph over its table; (ⅰ) an h4 and (ⅱ) an h5 in another report
    ufo = shared_data / "ufo-2024" / "reports"
    for doc, first, second in (("S100TU66", "tab86", "tab87"), ("S100TRA1", "tab271", "tab272")):
        tables = {t.table_id: t for t in read_html(ufo / doc / "0104010.html").tables}
        own, network = tables[f"{doc}-0104010-{first}"], tables[f"{doc}-0104010-{second}"]
        assert "監査公認会計士等に対する報酬" in own.titles[-1]
        assert "ネットワーク" in network.titles[-1]
        assert own.titles[-1] not in network.titles


def test_an_edinet_heading_class_gives_the_level_whatever_the_tag(tmp_path):
    # EDINET's smt_headN classes: (2) tagged h3 though of the level of (1), an h4; (5) marked up as a paragraph
    row = "<tr><td>区分</td><td>報酬</td></tr><tr><td>提出会社</td><td>1</td></tr>"
    path = write_html(
        tmp_path / "classes.html",
        f"""
      <h3 class="smt_head2">４ 【コーポレート・ガバナンスの状況等】</h3>
      <h4 class="smt_head3">(１) 【コーポレート・ガバナンスの概要】</h4>
      <h3 class="smt_head3">(２) 【役員の状況】</h3>
      <h5 class="smt_head4">① 役員の状況</h5>
      <table table-id="T-tab1">{row}</table>
      <p class="smt_head3">(５) 【株式の保有状況】</p>
      <p class="smt_text6">ⅰ．保有目的が純投資目的以外の目的である投資株式</p>
      <table table-id="T-tab2">{row}</table>""",
    )
    titles = {t.table_id: t.titles for t in read_html(path).tables}
    assert titles["T-tab1"] == (
        "４ 【コーポレート・ガバナンスの状況等】",
        "(２) 【役員の状況】",
        "① 役員の状況",
    )
    assert titles["T-tab2"] == ("４ 【コーポレート・ガバナンスの状況等】", "(５) 【株式の保有状況】")


def test_a_shares_held_table_is_under_its_section_in_a_real_report(shared_data):
    # UFO-2024 S100TU66: (５)【株式の保有状況】 is a <p class="smt_head3"> after (２)【役員の状況】, tagged h3
    tables = {
        t.table_id: t
        for t in read_html(shared_data / "ufo-2024" / "reports" / "S100TU66" / "0104010.html").tables
    }
    titles = tables["S100TU66-0104010-tab100"].titles
    assert "(５) 【株式の保有状況】" in titles
    assert "(２) 【役員の状況】" not in titles


def test_unreadable_files_are_input_errors(tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty.html: empty file"):
        read_html(empty)
    with pytest.raises(InputError, match="missing.html: cannot read"):
        read_html(tmp_path / "missing.html")


def test_row_sentences_are_in_the_documents_language_when_no_cover_said_it(shared_data):
    """An EDINET XHTML section read without metadata: its table rows are told in Japanese, never with
    Chinese template words (为)."""
    path = shared_data / "ufo-2024" / "reports" / "S100TWUQ" / "0105010.html"
    doc = parse_html(path, DocumentMeta("S100TWUQ/0105010"), ParseSettings())
    rows = [c.text for c in doc.chunks if c.kind == "table"]
    assert doc.meta.language == "ja" and rows
    assert not any("为" in text for text in rows)
    assert any("は" in text for text in rows)
