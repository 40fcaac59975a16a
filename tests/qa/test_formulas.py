"""qa/formulas.py and formulas/*.yaml: every shipped formula against hand-computed values,
the safe grammar (never eval), and file:line errors."""

from __future__ import annotations

import textwrap
from decimal import Decimal

import pytest

from core.errors import InputError
from core.fields import FieldDef, FieldDictionary
from qa.data.rounding import NumberStyle
from qa.formulas import FormulaBook, FormulaError, Operand, check, parse_expression


@pytest.fixture(scope="module")
def book():
    return FormulaBook.load()


# formula name -> operand values by the names the formula writes (prev(X) is "上年X"),
# and the result at the formula's default precision, computed by hand.
HAND_COMPUTED = {
    "流动比率": ({"流动资产": "300", "流动负债": "200"}, "1.50"),  # 300/200
    "速动比率": ({"流动资产": "300", "存货": "60", "流动负债": "200"}, "1.20"),  # 240/200
    "现金比率": ({"货币资金": "50", "流动负债": "200"}, "25.00%"),
    "资产负债比率": ({"总负债": "400", "资产总额": "1000"}, "40.00%"),
    "流动负债比率": ({"流动负债": "200", "总负债": "400"}, "50.00%"),
    "非流动负债比率": ({"非流动负债": "150", "总负债": "400"}, "37.50%"),
    "毛利率": ({"营业收入": "800", "营业成本": "600"}, "25.00%"),  # 200/800
    "营业利润率": ({"营业利润": "120", "营业收入": "800"}, "15.00%"),
    "净利润率": ({"净利润": "90", "营业收入": "800"}, "11.25%"),
    "营业成本率": ({"营业成本": "600", "营业收入": "800"}, "75.00%"),
    "管理费用率": ({"管理费用": "40", "营业收入": "800"}, "5.00%"),
    "财务费用率": ({"财务费用": "-8", "营业收入": "800"}, "-1.00%"),
    "销售费用率": ({"销售费用": "20", "营业收入": "800"}, "2.50%"),
    "三费比重": (
        {"销售费用": "20", "管理费用": "40", "财务费用": "-8", "营业收入": "800"},
        "6.50%",
    ),  # 52/800
    "投资收益占营业收入比率": ({"投资收益": "12", "营业收入": "800"}, "1.50%"),
    "企业研发经费与利润比值": ({"研发费用": "30", "净利润": "90"}, "0.33"),  # 0.333...
    "企业研发经费与营业收入比值": ({"研发费用": "30", "营业收入": "800"}, "0.04"),  # 0.0375 rounds half up
    "研发费用率": ({"研发费用": "30", "营业收入": "800"}, "3.75%"),  # the same share, as a percentage
    "企业研发经费占费用比例": (
        {"研发费用": "30", "销售费用": "20", "财务费用": "-8", "管理费用": "40"},
        "0.37",
    ),  # 30/82
    "研发人员占职工人数比例": ({"研发人员数": "55", "职工总数": "400"}, "0.14"),  # 0.1375
    "企业硕士及以上人员占职工人数比例": (
        {"硕士人数": "21", "博士及以上人数": "6", "职工总数": "515"},
        "0.05",
    ),  # 27/515
    "每股净资产": ({"归属于母公司所有者权益合计": "4840.6", "股本": "1000"}, "4.8406"),
    "每股经营现金流量": ({"经营活动产生的现金流量净额": "2401", "股本": "1000"}, "2.4010"),
    "每股收益": ({"归属母公司所有者净利润": "744.095", "股本": "1000"}, "0.7441"),
    "自己資本比率": ({"自己資本": "450", "総資産": "1000"}, "45.0%"),
    "営業利益率": ({"営業利益": "75", "売上高": "1000"}, "7.5%"),
    "売上総利益率": ({"売上総利益": "300", "売上高": "1000"}, "30.0%"),
    "売上原価率": ({"売上原価": "700", "売上高": "1000"}, "70.0%"),
    "経常利益率": ({"経常利益": "80", "売上高": "1000"}, "8.0%"),
    "当期純利益率": ({"当期純利益": "55", "売上高": "1000"}, "5.5%"),
    "流動比率": ({"流動資産合計": "600", "流動負債合計": "400"}, "150.0%"),
    "負債比率": ({"負債合計": "550", "純資産合計": "450"}, "122.2%"),  # 1.2222...
    "総資産利益率": ({"当期純利益": "55", "総資産": "1000"}, "5.5%"),
    "自己資本利益率": ({"親会社株主に帰属する当期純利益": "54", "自己資本": "450"}, "12.0%"),
    "配当性向": ({"1株当たり配当額": "30", "1株当たり当期純利益": "120"}, "25.0%"),
}

# Per-field formulas, made concrete for one field.
HAND_COMPUTED_PER_FIELD = {
    "净利润增长率": ({"净利润": "118", "上年净利润": "100"}, "18.00%"),
    "总资产增长率": ({"总资产": "900", "上年总资产": "1000"}, "-10.00%"),
    # A negative base: (-54015.66 - -24323.68) / -24323.68 = 1.22070...
    "财务费用增长率": ({"财务费用": "-54015.66", "上年财务费用": "-24323.68"}, "122.07%"),
    "売上高増減率": ({"売上高": "1100", "上年売上高": "1000"}, "10.0%"),
}


def evaluate_shown(formula, given):
    values = {op: Decimal(given[op.label()]) for op in formula.operands() if op.label() in given}
    return NumberStyle(formula.precision, formula.percent).format(formula.evaluate(values))


@pytest.mark.parametrize("name", sorted(HAND_COMPUTED))
def test_every_shipped_formula_gives_the_hand_computed_result(book, name):
    given, shown = HAND_COMPUTED[name]
    formula = book.get(name)
    assert {op.label() for op in formula.operands()} == set(given)
    assert evaluate_shown(formula, given) == shown


@pytest.mark.parametrize("name", sorted(HAND_COMPUTED_PER_FIELD))
def test_growth_rates_of_any_field_compare_with_the_previous_year(book, name):
    given, shown = HAND_COMPUTED_PER_FIELD[name]
    formula = book.get(name)
    assert formula is not None
    assert evaluate_shown(formula, given) == shown


def test_no_formula_ships_without_a_hand_computed_test(book):
    assert set(book.formulas) == set(HAND_COMPUTED)
    tested_templates = {book.get(name).where for name in HAND_COMPUTED_PER_FIELD}
    assert {f.where for f in book.field_formulas} <= tested_templates


def test_ratio_operands_all_come_from_the_asked_year_and_growth_reads_the_year_before(book):
    for formula in book.formulas.values():
        assert {op.offset for op in formula.operands()} == {0}, formula.name
    growth = book.get("营业收入增长率")
    assert growth.operands() == (Operand("营业收入", 0), Operand("营业收入", -1))


def test_operands_resolve_synonyms_to_canonical_fields_and_keep_the_written_name(book):
    formula = book.get("资产负债比率")
    assert [(op.field, op.written) for op in formula.operands()] == [
        ("负债合计", "总负债"),
        ("资产总计", "资产总额"),
    ]
    assert formula.text() == "资产负债比率=总负债/资产总额"


def test_aliases_and_growth_wordings_find_their_formula(book):
    assert book.get("资产负债率").name == "资产负债比率"
    assert book.get("研发人员占职工人数的比例").name == "研发人员占职工人数比例"
    assert book.get("研发费用占营业收入的比例").name == "研发费用率"
    assert book.get("营业收入同比增长率").operands()[0].field == "营业收入"
    assert book.get("總資產增長率").operands()[0].field == "资产总计"  # Traditional wording of 总资产
    assert book.get("增长率", field_name="净利润").name == "净利润增长率"
    assert book.get("不存在的比率") is None
    assert book.get("不存在的字段增长率") is None


def test_names_and_aliases_map_every_wording_to_a_formula_name(book):
    names = book.names_and_aliases()
    assert names["速动比率"] == "速动比率" and names["资产负债率"] == "资产负债比率"
    assert names["売上高営業利益率"] == "営業利益率"
    assert book.field_patterns()["{field}同比增长率"] == "{field}增长率"


def test_growth_text_names_the_previous_year_value(book):
    formula = book.get("投资收益增长率")
    assert formula.text() == "投资收益增长率=(投资收益-上年投资收益)/上年投资收益"
    assert book.get("売上高増減率").text("前期") == "売上高増減率=(売上高-前期売上高)/前期売上高"


def test_an_optional_operand_counts_as_zero_but_a_required_one_must_be_there(book):
    formula = book.get("企业硕士及以上人员占职工人数比例")
    values = {op: None for op in formula.operands()}
    values[Operand("硕士", 0)] = Decimal(1587)
    values[Operand("在职员工的数量合计", 0)] = Decimal(7509)
    assert NumberStyle(2).format(formula.evaluate(values)) == "0.21"  # 1587/7509 = 0.2113
    values[Operand("硕士", 0)] = None
    with pytest.raises(FormulaError, match="硕士人数"):
        formula.evaluate(values)


def test_a_zero_divisor_is_a_formula_error_not_a_number(book):
    formula = book.get("流动比率")
    with pytest.raises(FormulaError, match="divisor is 0"):
        formula.evaluate({op: Decimal(v) for op, v in zip(formula.operands(), ("5", "0"))})


@pytest.fixture
def tiny_fields():
    return FieldDictionary(
        [
            FieldDef("资产总计", ("总资产",)),
            FieldDef("负债合计", ("总负债",)),
            FieldDef("1株当たり純資産額"),
            FieldDef("研发投入（元）"),
        ]
    )


def test_full_width_operators_corner_brackets_and_numbers_parse(tiny_fields, tmp_path):
    (tmp_path / "x.yaml").write_text(
        textwrap.dedent("""\
        formulas:
          - name: 测试比率
            expression: （总负债 － 「研发投入（元）」 × 2）÷ 总资产 * 100 + -「1株当たり純資産額」
            output: ratio
            precision: 2
        """),
        encoding="utf-8",
    )
    formula = FormulaBook.load(tmp_path, tiny_fields).get("测试比率")
    assert [op.field for op in formula.operands()] == [
        "负债合计",
        "研发投入（元）",
        "资产总计",
        "1株当たり純資産額",
    ]
    values = dict(zip(formula.operands(), map(Decimal, ("500", "50", "1000", "3"))))
    assert formula.evaluate(values) == Decimal(37)  # (500 - 100) / 1000 * 100 - 3


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('true')",
        "总资产.real",
        "open(总资产)",
        "总资产 ** 2",
        "总资产 // 2",
        "总资产 % 2",
        "总资产 if 总负债 else 1",
        "总资产 > 总负债",
        "'总资产' / 2",
        "[总资产][0]",
        "prev(总资产 + 总负债)",
        "prev(总资产, 1)",
        "lambda: 总资产",
        "True + 总资产",
        "+总资产",
        "1j * 总资产",
    ],
)
def test_anything_outside_the_grammar_is_rejected_with_file_and_line(tiny_fields, tmp_path, expression):
    path = tmp_path / "bad.yaml"
    path.write_text(
        f'formulas:\n  - name: 坏\n    output: ratio\n    precision: 2\n    expression: "{expression}"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as error:
        check(tmp_path, tiny_fields)
    assert str(error.value).startswith(f"{path}:5: ")


@pytest.mark.parametrize(
    "expression,message",
    [
        ("(总资产 - 总负债", "cannot parse"),
        ("总资产 -", "cannot parse"),
        ("「总资产 / 2", "unbalanced"),
    ],
)
def test_malformed_expressions_say_what_is_wrong(expression, message):
    with pytest.raises(InputError, match=message):
        parse_expression(expression, ("f.yaml", 3))


def test_unknown_fields_and_duplicate_names_point_to_their_line(tiny_fields, tmp_path):
    (tmp_path / "a.yaml").write_text(
        "formulas:\n  - name: 甲\n    expression: 总资产 / 利润\n    output: ratio\n    precision: 2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"a\.yaml:3: unknown field '利润'"):
        check(tmp_path, tiny_fields)
    (tmp_path / "a.yaml").write_text(
        "formulas:\n  - name: 甲\n    expression: 总资产 / 总负债\n    output: ratio\n    precision: 2\n",
        encoding="utf-8",
    )
    (tmp_path / "b.yaml").write_text(
        "formulas:\n\n  - name: 甲\n    expression: 总负债 / 总资产\n    output: ratio\n    precision: 2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"b\.yaml:3: formula '甲' is already defined at .*a\.yaml:3"):
        check(tmp_path, tiny_fields)


def test_schema_errors_and_bad_per_field_templates_are_reported(tiny_fields, tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "formulas:\n  - name: 甲\n    expression: 总资产\n    output: fraction\n    precision: 2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"a\.yaml:4: .*fraction"):
        check(tmp_path, tiny_fields)
    path.write_text(
        "field_formulas:\n  - name: 增长率\n    expression: ({field} - prev({field}))\n"
        "    output: percent\n    precision: 2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"a\.yaml:2: '增长率' must contain \{field\}"):
        check(tmp_path, tiny_fields)


def test_an_alias_used_by_two_formulas_is_rejected(tiny_fields, tmp_path):
    (tmp_path / "a.yaml").write_text(
        "formulas:\n  - name: 甲\n    aliases: [比率]\n    expression: 总资产 / 总负债\n    output: ratio\n    precision: 2\n"
        "  - name: 乙\n    aliases: [比率]\n    expression: 总负债 / 总资产\n    output: ratio\n    precision: 2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="alias '比率' is also used by 甲"):
        check(tmp_path, tiny_fields)


def test_the_shipped_formula_files_pass_the_check():
    assert check() >= len(HAND_COMPUTED)
