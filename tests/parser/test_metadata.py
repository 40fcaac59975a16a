"""Document metadata: file-name patterns, cover text, sidecar precedence, groups, language."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import InputError
from core.language import cjk_language
from parser.metadata import DocumentRules, MetadataFinder, Sidecar

FINGLM_NAME = "2020-03-24__北京鼎汉技术集团股份有限公司__300011__鼎汉技术__2019年__年度报告"


@pytest.fixture(scope="module")
def rules() -> DocumentRules:
    return DocumentRules.load()


def finder_for(corpus: Path, rules: DocumentRules) -> MetadataFinder:
    documents = {
        p.relative_to(corpus).with_suffix("").as_posix(): p
        for p in sorted(corpus.rglob("*"))
        if p.is_file() and p.name != "metadata.csv"
    }
    return MetadataFinder.for_corpus(corpus, documents, rules)


def test_finglm_file_name_gives_company_code_short_name_and_year(rules):
    assert rules.from_file_name(FINGLM_NAME) == {
        "company": "北京鼎汉技术集团股份有限公司",
        "code": "300011",
        "short_name": "鼎汉技术",
        "year": 2019,
        "title": "年度报告",
    }


def test_other_file_name_styles(rules):
    assert rules.from_file_name("600000_浦发银行_2019年年度报告") == {
        "code": "600000",
        "short_name": "浦发银行",
        "year": 2019,
        "title": "年度报告",
    }
    assert rules.from_file_name("202303_2330_AI1") == {"code": "2330", "year": 2023}
    assert rules.from_file_name("12") == {}


def test_chinese_annual_report_cover(rules):
    cover = "北京鼎汉技术集团股份有限公司\n2019 年年度报告\n\n股票代码：300011        公司简称：鼎汉技术\n"
    assert rules.from_text(cover) == {
        "company": "北京鼎汉技术集团股份有限公司",
        "code": "300011",
        "short_name": "鼎汉技术",
        "year": 2019,
        "title": "2019 年年度报告",
    }


def test_quarterly_report_year(rules):
    assert rules.from_text("某某科技股份有限公司\n2023年第一季度报告")["year"] == 2023


def test_roc_period_in_chinese_numerals_and_spaced_letters(rules):
    cover = "台 達 電 子 工 業 股 份 有 限 公 司 及 子 公 司\n合 併 綜 合 損 益 表\n民國一一二年及一一一年一月一日至九月三十日\n"
    assert rules.from_text(cover) == {"company": "台達電子工業股份有限公司", "year": 2023}


def test_roc_period_in_digits(rules):
    assert (
        rules.from_text(
            "中國鋼鐵股份有限公司及子公司\n合併財務報告附註\n民國 111 及 110 年 1 月 1 日至 3 月 31 日"
        )["year"]
        == 2022
    )


def test_a_roc_date_in_running_text_is_not_the_report_year(rules):
    assert "year" not in rules.from_text("前項被保險人於民國九十九年二月三日(含)以後所投保之喪葬費用保險金")


def test_japanese_fiscal_year_is_the_year_it_ends_in_reiwa(rules):
    cover = "【表紙】\n【提出書類】 有価証券報告書\n【事業年度】 第96期（自　令和元年４月１日　至　令和２年３月31日）\n【会社名】 丸紅株式会社\n"
    assert rules.from_text(cover) == {"company": "丸紅株式会社", "year": 2020, "title": "有価証券報告書"}


def test_japanese_fiscal_year_is_the_year_it_ends_in_western(rules):
    cover = "【事業年度】 第155期（自 2019年４月１日 至 2020年３月31日）\n【会社名】 塩野義製薬株式会社"
    assert rules.from_text(cover) == {"company": "塩野義製薬株式会社", "year": 2020}


def test_sidecar_wins_over_file_name_and_file_name_over_cover(tmp_path, rules):
    (tmp_path / f"{FINGLM_NAME}.txt").write_text(
        "别的公司股份有限公司\n2018年年度报告\n股票代码：999999\n", encoding="utf-8"
    )
    (tmp_path / "notes.txt").write_text("苏州某某股份有限公司\n2021年年度报告\n", encoding="utf-8")
    (tmp_path / "metadata.csv").write_text(
        "file,company,year\nnotes.txt,用户写的股份有限公司,2022\n", encoding="utf-8"
    )
    finder = finder_for(tmp_path, rules)

    from_name = finder.find(FINGLM_NAME)
    assert (from_name.company, from_name.code, from_name.year, from_name.language) == (
        "北京鼎汉技术集团股份有限公司",
        "300011",
        2019,
        "zh",
    )
    from_sidecar = finder.find("notes")
    assert (from_sidecar.company, from_sidecar.year) == ("用户写的股份有限公司", 2022)


def test_sidecar_rows_name_documents_relative_to_their_folder(tmp_path, rules):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "r1.txt").write_text("正文", encoding="utf-8")
    (tmp_path / "a" / "metadata.csv").write_text(
        "doc_id,company,year,code\nb/r1,甲股份有限公司,2020年,000001\n", encoding="utf-8"
    )
    meta = finder_for(tmp_path, rules).find("a/b/r1")
    assert (meta.company, meta.year, meta.code) == ("甲股份有限公司", 2020, "000001")


def test_sidecar_with_an_unknown_column_is_an_error_at_line_1(tmp_path):
    (tmp_path / "metadata.csv").write_text("doc_id,compny\nx,甲\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"metadata.csv:1: unknown column\(s\) compny"):
        Sidecar.load(tmp_path)


def test_sidecar_with_a_bad_year_names_its_line(tmp_path):
    (tmp_path / "metadata.csv").write_text("doc_id,year\nx,2020\ny,next year\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"metadata.csv:3: year 'next year' is not a year"):
        Sidecar.load(tmp_path)


def test_section_files_take_company_and_year_from_the_group_cover(tmp_path, rules):
    report = tmp_path / "S100ABCD"
    report.mkdir()
    (report / "S100ABCD-0000000.html").write_text(
        "<html><body><p>【事業年度】 第10期（自 令和２年４月１日 至 令和３年３月31日）</p>"
        "<p>【会社名】 テスト製薬株式会社</p></body></html>",
        encoding="utf-8",
    )
    (report / "S100ABCD-0106010.html").write_text(
        "<html><body><p>株主名簿管理人</p><p>みずほ信託銀行株式会社</p><p>の事務を行います。</p></body></html>",
        encoding="utf-8",
    )
    finder = finder_for(tmp_path, rules)
    section = finder.find("S100ABCD/S100ABCD-0106010")
    assert (section.company, section.year, section.language) == ("テスト製薬株式会社", 2021, "ja")
    before = finder.key("S100ABCD/S100ABCD-0106010")
    (report / "S100ABCD-0000000.html").write_text("<p>【会社名】 別名株式会社</p>", encoding="utf-8")
    assert finder_for(tmp_path, rules).key("S100ABCD/S100ABCD-0106010") != before


def test_metadata_from_later_text_fills_only_what_is_missing(tmp_path, rules):
    (tmp_path / "scan.txt").write_text("", encoding="utf-8")
    (tmp_path / "metadata.csv").write_text("doc_id,year\nscan,2021\n", encoding="utf-8")
    finder = finder_for(tmp_path, rules)
    meta = finder.complete(
        finder.find("scan"), "聯華電子股份有限公司及子公司\n民國一一二年及一一一年一月一日至九月三十日"
    )
    assert (meta.company, meta.year, meta.language) == ("聯華電子股份有限公司", 2021, "zh")


def test_a_bad_regex_in_the_rules_points_to_its_line(tmp_path):
    path = tmp_path / "documents.yaml"
    path.write_text("file_names:\n  - pattern: '(?P<year>\\d{4}'\ncover:\n  fields: {}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"documents.yaml:2: bad regex"):
        DocumentRules.load(path)


def test_an_unknown_group_name_in_the_rules_is_an_error(tmp_path):
    path = tmp_path / "documents.yaml"
    path.write_text(
        "file_names: []\ncover:\n  fields:\n    company:\n      - pattern: '(?P<firm>.+)'\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"documents.yaml:5: unknown group name\(s\) firm"):
        DocumentRules.load(path)


def test_real_taiwanese_quarterly_report_cover(shared_data, rules):
    path = shared_data / "aicup" / "reference" / "finance" / "112.pdf"
    finder = MetadataFinder.for_corpus(path.parent, {"112": path}, rules)
    meta = finder.find("112")
    assert (meta.company, meta.year, meta.language) == ("聯華電子股份有限公司", 2023, "zh")


def test_real_securities_report_section(shared_data, rules):
    folder = shared_data / "ntcir18-u4" / "reports"
    documents = {
        p.relative_to(folder).with_suffix("").as_posix(): p for p in sorted(folder.glob("S100IXUZ/*.html"))
    }
    meta = MetadataFinder.for_corpus(folder, documents, rules).find("S100IXUZ/S100IXUZ-0105010")
    assert (meta.company, meta.year, meta.language) == ("塩野義製薬株式会社", 2020, "ja")


# An EDINET XHTML cover, as the UFO-2024 files print it: an XML declaration, the inline-XBRL html element,
# each field in a two-cell table row (no whitespace between the cells, as EDINET's own downloads write them).
_XHTML_COVER = (
    '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
    'xmlns:ix="http://www.xbrl.org/2008/inlineXBRL"><head><title>有価証券報告書</title></head><body><h1>【表紙】</h1>'
    '<table table-id="S100ZZZZ-0000000-tab1"><tr><td><p>【提出書類】</p></td><td><p>有価証券報告書</p></td></tr>'
    "<tr><td><p>【事業年度】</p></td><td><p>第176期(自　2023年４月１日　至　2024年３月31日)</p></td></tr>"
    "<tr><td><p>【会社名】</p></td><td><p>株式会社テスト電線</p></td></tr>"
    "<tr><td><p>【英訳名】</p></td><td><p>Test Cable Ltd.</p></td></tr>"
    "<tr><td><p>【証券コード】</p></td><td><p>5803</p></td></tr></table></body></html>"
)
_XHTML_SECTION = (
    '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body>'
    '<p>株主名簿管理人　みずほ信託銀行株式会社</p><table table-id="S100ZZZZ-0105010-tab3">'
    '<tr><td cell-id="S100ZZZZ-0105010-tab3-r1c1">売上高</td><td>1,000</td></tr></table></body></html>'
)


def test_xhtml_cover_fields_in_two_cell_table_rows(tmp_path, rules):
    (tmp_path / "0000000.html").write_text(_XHTML_COVER, encoding="utf-8")
    meta = finder_for(tmp_path, rules).find("0000000")
    assert (meta.company, meta.code, meta.year, meta.title, meta.language) == (
        "株式会社テスト電線",
        "5803",
        2024,
        "有価証券報告書",
        "ja",
    )


@pytest.mark.parametrize(
    "names",
    [
        ("S100ZZZZ/0000000", "S100ZZZZ/0105010", "S100ZZZZ/0107010"),
        ("S100ZZZZ/S100ZZZZ-0000000", "S100ZZZZ/S100ZZZZ-0105010", "S100ZZZZ/S100ZZZZ-0107010"),
    ],
)
def test_a_report_split_into_files_is_one_report_in_either_layout(tmp_path, rules, names):
    """A folder per report with plain file names, or the report id in the names: the table ids the sections
    print say which report they belong to; a section without tables belongs to its folder's report."""
    cover, section, untabled = (tmp_path / f"{name}.html" for name in names)
    cover.parent.mkdir()
    cover.write_text(_XHTML_COVER, encoding="utf-8")
    section.write_text(_XHTML_SECTION, encoding="utf-8")
    untabled.write_text(
        "<html><body><p>提出会社の保証会社等の情報はありません。</p></body></html>", encoding="utf-8"
    )
    finder = finder_for(tmp_path, rules)
    for name in names[1:]:
        meta = finder.find(name)
        assert (meta.company, meta.year, meta.language) == ("株式会社テスト電線", 2024, "ja"), name


def test_sections_printing_another_reports_ids_are_not_its_parts(tmp_path, rules):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "0000000.html").write_text(_XHTML_COVER, encoding="utf-8")
    (folder / "0105010.html").write_text(_XHTML_SECTION.replace("S100ZZZZ", "S100YYYY"), encoding="utf-8")
    assert finder_for(tmp_path, rules).find("mixed/0105010").company != "株式会社テスト電線"


def test_real_edinet_xhtml_report_sections(shared_data, rules):
    folder = shared_data / "ufo-2024" / "reports"
    documents = {
        p.relative_to(folder).with_suffix("").as_posix(): p for p in sorted(folder.glob("S100TWUQ/*.html"))
    }
    finder = MetadataFinder.for_corpus(folder, documents, rules)
    for doc_id in ("S100TWUQ/0000000", "S100TWUQ/0105010"):
        meta = finder.find(doc_id)
        assert (meta.company, meta.year, meta.language) == ("電源開発株式会社", 2024, "ja"), doc_id


def test_a_section_of_kanji_only_rows_takes_its_reports_language(tmp_path, rules):
    """A statement file whose text is all kanji and figures (損益計算書 rows) reads as Chinese on its own;
    as part of a Japanese report it is Japanese, so its rows are told in Japanese."""
    (tmp_path / "S100ZZZZ").mkdir()
    (tmp_path / "S100ZZZZ" / "0000000.html").write_text(_XHTML_COVER, encoding="utf-8")
    (tmp_path / "S100ZZZZ" / "0105320.html").write_text(
        '<html><body><h3>②【損益計算書】</h3><table table-id="S100ZZZZ-0105320-tab1"><tr><td>資本金</td>'
        "<td>1,672</td></tr><tr><td>資本準備金</td><td>7,007</td></tr><tr><td>利益準備金</td><td>6,866</td></tr>"
        "</table></body></html>",
        encoding="utf-8",
    )
    finder = finder_for(tmp_path, rules)
    assert cjk_language("資本金 1,672 資本準備金 7,007 利益準備金 6,866") == "zh"  # alone, as Chinese
    assert finder.find("S100ZZZZ/0105320").language == "ja"
