"""Table kind, scope and column period kind from the document's own words (rules/statements.yaml)."""

from pathlib import Path

import pytest

from core.errors import InputError
from core.statements import StatementRules, TableKind


@pytest.fixture(scope="module")
def rules() -> StatementRules:
    return StatementRules.load()


@pytest.mark.parametrize(
    "titles, language, expected",
    [
        (
            ("第5【経理の状況】", "(1)【連結財務諸表】", "①【連結貸借対照表】"),
            "ja",
            TableKind("balance_sheet", "consolidated"),
        ),
        (
            ("第5【経理の状況】", "2【財務諸表等】", "(1)【財務諸表】", "②【損益計算書】"),
            "ja",
            TableKind("income_statement", "parent"),
        ),
        (
            ("(1)【連結財務諸表】", "注記事項", "（連結貸借対照表関係）"),
            "ja",
            TableKind("notes", "consolidated"),
        ),
        (
            ("1【主要な経営指標等の推移】", "(2)【提出会社の経営指標等】"),
            "ja",
            TableKind("key_figures", "parent"),
        ),
        (("第十节 财务报告", "七、合并财务报表项目注释"), "zh", TableKind("notes", "consolidated")),
        (("第十节 财务报告", "母公司现金流量表"), "zh", TableKind("cash_flow", "parent")),
        (
            ("第二节 公司简介和主要财务指标", "七、近三年主要会计数据和财务指标"),
            "zh",
            TableKind("key_figures", ""),
        ),
        (("合併綜合損益表",), "zh", TableKind("income_statement", "consolidated")),
    ],
)
def test_kind_and_scope_come_from_the_innermost_title_that_names_them(rules, titles, language, expected):
    assert rules.classify(titles, language=language) == expected


def test_a_bare_chinese_statement_has_no_scope_but_a_bare_japanese_one_is_the_parents(rules):
    assert rules.classify(("资产负债表",), language="zh") == TableKind("balance_sheet", "")
    assert rules.classify(("貸借対照表",), language="ja") == TableKind("balance_sheet", "parent")


def test_an_amount_as_the_balance_sheet_carries_it_is_no_balance_sheet(rules):
    rows = ("区分 銘柄数（銘柄） 貸借対照表計上額の合計額（百万円）",)
    assert rules.classify(("提出会社における株式の保有状況",), rows, "ja").statement == "other"


def test_a_title_about_what_a_statement_carries_is_a_note(rules):
    caption = "(3) 退職給付債務及び年金資産の期末残高と連結貸借対照表に計上された退職給付に係る負債の調整表"
    assert rules.classify((caption,), language="ja") == TableKind("notes", "consolidated")
    assert rules.classify(("①【連結貸借対照表】",), language="ja") == TableKind(
        "balance_sheet", "consolidated"
    )


def test_a_japanese_note_about_a_bare_statement_is_the_parents(rules):
    assert rules.classify(("(損益計算書関係)",), language="ja") == TableKind("notes", "parent")
    assert rules.classify(("(連結損益計算書関係)",), language="ja") == TableKind("notes", "consolidated")
    assert rules.classify(("(重要な会計方針)",), language="ja") == TableKind("notes", "")


def test_first_rows_name_the_kind_only_when_no_title_does(rules):
    assert rules.classify((), ("合并利润表 2021年1—12月",), "zh") == TableKind("income_statement", "")
    assert rules.classify(("七、合并财务报表项目注释",), ("合并利润表",), "zh").statement == "notes"
    assert rules.classify(("公司基本情况",), ("项目 内容",), "zh") == TableKind("other", "")


@pytest.mark.parametrize(
    "label, kind",
    [
        ("第三季度（7-9月份）", "quarter"),
        ("第3四半期連結会計期間", "quarter"),
        ("上半年", "half"),
        ("本年比上年增减(%)", "change"),
        ("本期发生额", ""),
        ("当連結会計年度（2020年３月31日）", ""),
        ("2021年", ""),
    ],
)
def test_period_kind_of_a_column(rules, label, kind):
    assert rules.period_kind(label) == kind


def test_a_bad_regex_names_the_file_and_line(tmp_path: Path):
    path = tmp_path / "statements.yaml"
    path.write_text(
        "kinds:\n  notes:\n    ja: ['re:(注記']\nscopes:\n  parent:\n    ja: [個別]\nperiods:\n"
        "  half: [半期]\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"statements.yaml:3"):
        StatementRules.load(path)


def test_an_unknown_kind_is_refused(tmp_path: Path):
    path = tmp_path / "statements.yaml"
    path.write_text("kinds:\n  cashflows:\n    ja: [x]\nscopes: {}\nperiods: {}\n", encoding="utf-8")
    with pytest.raises(InputError, match="statements.yaml:2"):
        StatementRules.load(path)


def test_a_bank_statement_without_a_scope_in_its_title_takes_it_from_its_column_headers(rules):
    assert (
        rules.classify(("银行资产负债表",), (), "zh-Hans", ("附注四", "本行/2024年12月31日")).scope
        == "parent"
    )
    assert (
        rules.classify(("合并资产负债表",), (), "zh-Hans", ("本行/2024年12月31日",)).scope == "consolidated"
    )
    assert rules.classify(("资产负债表",), (), "zh-Hans", ("本集团/2024年12月31日",)).scope == "consolidated"
    assert rules.classify(("本行业经营情况",), (), "zh-Hans", ("2024年",)).scope == ""
    # the headers over the values are nearer to them than a heading above the table
    assert (
        rules.classify(("合并财务报表", "银行资产负债表"), (), "zh-Hans", ("本行/2024年12月31日",)).scope
        == "parent"
    )


@pytest.mark.parametrize(
    "label, kind, quarter",
    [
        ("111年7月1日至9月30日", "quarter", 3),
        ("111年1月1日至9月30日", "ytd", 3),
        ("前三季度", "ytd", 3),
        ("2019年第三季度（7-9月份）", "quarter", 3),
        ("1月1日至6月30日", "half", 2),
        ("Q1", "quarter", 1),
        ("2022年9月30日", "", 3),
        ("本期", "", 0),
        # a first quarter is a quarter (and its own year to date), never a full year
        ("111年1月1日至3月31日", "quarter", 1),
        ("111年1至3月", "quarter", 1),
        ("111年7至9月", "quarter", 3),
        ("111年1至9月", "ytd", 3),
        ("111年1至6月", "half", 2),
        ("2021年1月1日至12月31日", "", 4),
        # dates in Chinese numerals, and a period wrapped over two header rows
        ("一一二年一月一日至九月三十日", "ytd", 3),
        ("一一二年七月一日至九月三十日", "quarter", 3),
        ("111年1月1日/至3月31日", "quarter", 1),
    ],
)
def test_a_columns_period_has_a_kind_and_the_quarter_it_ends_in(rules, label, kind, quarter):
    assert (rules.period_kind(label), rules.quarter_end(label)) == (kind, quarter)
