"""Heading levels from rules/headings.yaml, the heading stack, and rule-file errors."""

from __future__ import annotations

import statistics

import pytest

from core.errors import InputError
from parser.headings import HeadingRules, HeadingStack, tidy_line


@pytest.fixture(scope="module")
def rules() -> HeadingRules:
    return HeadingRules.load()


def test_chinese_numbering_levels_nest_from_section_to_parenthesised_number(rules):
    chain = [
        "第三节 管理层讨论与分析",
        "二、报告期内公司从事的主要业务",
        "（一）主要业务",
        "1、主要产品",
        "（1）工业软件",
    ]
    levels = [rules.level(line) for line in chain]
    assert None not in levels
    assert levels == sorted(levels) and len(set(levels)) == len(levels)


def test_half_width_and_full_width_markers_get_the_same_level(rules):
    assert rules.level("（一）遵循聲明") == rules.level("(一)遵循聲明")
    assert rules.level("（1）確定提撥計畫") == rules.level("(1)確定提撥計畫")
    assert rules.level("1.收入認列") == rules.level("1、收入认列")


def test_statement_titles_are_their_own_level_even_letter_spaced(rules):
    statement = rules.level("合并资产负债表")
    assert statement is not None
    for title in (
        "合并利润表",
        "合并现金流量表",
        "母公司资产负债表",
        "母公司利润表",
        "合 併 資 產 負 債 表",
        "合併綜合損益表",
        "合并资产负债表（续）",
    ):
        assert rules.level(title) == statement, title
    assert rules.level("二、财务报表") < statement < rules.level("1、货币资金")


def test_traditional_chinese_chapters_and_articles(rules):
    chapter, article = rules.level("第二章 保險範圍"), rules.level("第十三條 滿期保險金的給付")
    assert chapter is not None and article is not None and chapter < article
    assert rules.level("第 七 條 契約的終止") == article
    assert rules.level("第5条（目的）") == article


def test_japanese_report_headings_nest_part_chapter_item_paren_circled(rules):
    chain = [
        "第一部【企業情報】",
        "第１【企業の概況】",
        "１【主要な経営指標等の推移】",
        "（１）連結経営指標等",
        "①連結経営成績",
    ]
    levels = [rules.level(line) for line in chain]
    assert None not in levels and levels == sorted(levels) and len(set(levels)) == len(levels)
    assert rules.level("【注記事項】") is not None
    assert rules.level("（重要な会計方針）") > rules.level("【注記事項】")


@pytest.mark.parametrize(
    "line",
    [
        "一、第一保單年度至第三保單年度：「年繳保險費總和」的一點零二五倍。",  # list item that is a sentence
        "一、因可歸責於本公司之錯誤原因，致本公司依第三十條第二項約定為退還或給",  # long item broken by the layout
        "第三节 管理层讨论与分析 ........................ 12",  # table of contents, dot leaders
        "第三节 管理层讨论与分析 12",  # table of contents, page number only
        "2022",  # only a number
        "- 5 -",
        "1.5",
        "一、营业总收入 1,234,567,890.12 987,654,321.00",  # statement row with amounts
        "第二十三條辦理「減額繳清保險」",  # clause reference starting a wrapped line
        "(二十七)及七",  # cross-reference fragment
        "资产负债表",  # a bare caption in the notes
        "（単位：百万円）",
    ],
)
def test_false_positives_are_not_headings(rules, line):
    assert rules.level(line) is None


def test_japanese_html_headings_are_recognised_in_depth_order(rules, shared_data):
    """Title-length h1-h5 of the real NTCIR securities reports get a level, and a deeper tag's usual level is deeper.

    Real reports also put sentences and unnumbered captions in heading tags (該当事項はありません。),
    so this asks for coverage, not for every element: the HTML parser takes the depth from the tag anyway.
    """
    lxml_html = pytest.importorskip("lxml.html")
    levels, missed = {}, []
    for path in sorted((shared_data / "ntcir18-u4" / "reports").glob("*/*.html")):
        tree = lxml_html.parse(str(path), parser=lxml_html.HTMLParser(encoding="utf-8"))
        for element in tree.iter("h1", "h2", "h3", "h4", "h5"):
            text = " ".join(element.text_content().split())
            if not text or len(text.replace(" ", "")) > 40:
                continue
            level = rules.level(text)
            if level is None:
                missed.append(f"{path.parent.name} {element.tag} {text}")
            else:
                levels.setdefault(element.tag, []).append(level)
    total = len(missed) + sum(map(len, levels.values()))
    assert len(missed) / total <= 0.05, missed[:20]
    usual = [statistics.median(levels[tag]) for tag in sorted(levels)]
    assert len(usual) == 5 and usual == sorted(usual), dict(zip(sorted(levels), usual))


@pytest.mark.parametrize(
    "line, level",
    [
        ("③ 上記②の取り組みについての基本方針等との整合性に係る取締役会の判断", 8),
        ("ｂ．受注状況", 9),
        ("(ⅱ)取締役の選任の決議要件", 9),
        ("１ 製品及びサービスごとの情報", 6),
    ],
)
def test_long_circled_lettered_and_spaced_number_japanese_headings(rules, line, level):
    assert rules.level(line) == level


def test_stack_path_carries_every_open_heading(rules):
    stack = HeadingStack()
    for line in ("第三节 管理层讨论与分析", "二、主要业务", "（一）主要产品"):
        stack.push(rules.level(line), line)
    assert stack.path == ("第三节 管理层讨论与分析", "二、主要业务", "（一）主要产品")


def test_stack_push_closes_same_and_deeper_levels(rules):
    stack = HeadingStack()
    for line in ("第三节 管理层讨论与分析", "二、主要业务", "（一）主要产品", "1、软件", "三、核心竞争力"):
        stack.push(rules.level(line), line)
    assert stack.path == ("第三节 管理层讨论与分析", "三、核心竞争力")
    stack.push(rules.level("第四节 公司治理"), "第四节 公司治理")
    assert stack.path == ("第四节 公司治理",)


def test_titles_in_the_path_are_tidied():
    stack = HeadingStack()
    stack.push(5, "合 併 資 產 負 債 表")
    stack.push(6, "第 七 條   契約的終止")
    assert stack.path == ("合併資產負債表", "第七條 契約的終止")
    assert tidy_line("名稱 FOXCONN  (FAR") == "名稱 FOXCONN (FAR"


def test_bad_regex_is_reported_with_file_and_line(tmp_path):
    path = tmp_path / "headings.yaml"
    path.write_text(
        "levels:\n  - name: chapter\n    level: 2\n    patterns:\n      - '^第(章'\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as error:
        HeadingRules.load(path)
    assert str(error.value).startswith(f"{path}:5: bad regex")


def test_bad_reject_regex_is_reported_with_file_and_line(tmp_path):
    path = tmp_path / "headings.yaml"
    path.write_text(
        "reject:\n  - why: x\n    pattern: '[abc'\nlevels:\n  - name: a\n    level: 1\n"
        "    patterns: ['^A']\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as error:
        HeadingRules.load(path)
    assert str(error.value).startswith(f"{path}:3: bad regex")


def test_schema_error_names_the_entry_and_line(tmp_path):
    path = tmp_path / "headings.yaml"
    path.write_text("levels:\n  - name: chapter\n    level: zero\n    patterns: ['^第']\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        HeadingRules.load(path)
    assert str(error.value).startswith(f"{path}:3: levels/0/level")


def test_custom_rule_file_is_used(tmp_path):
    path = tmp_path / "headings.yaml"
    path.write_text(
        "levels:\n  - name: roman\n    level: 1\n    patterns: ['^[IVX]+\\.\\s']\n", encoding="utf-8"
    )
    rules = HeadingRules.load(path)
    assert rules.level("IV. Results") == 1
    assert rules.level("第三节 管理层讨论与分析") is None
