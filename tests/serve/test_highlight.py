"""Which boxes of a page an evidence item quotes, on the layout ingest kept of the bundled example reports."""

from __future__ import annotations

import pytest

from core.layout import read_layout
from core.records import Box
from serve.highlight import locate

REPORT_2022 = "annual/2023-03-28__示例科技股份有限公司__688001__示例科技__2022年__年度报告"


@pytest.fixture(scope="module")
def layout(examples_index):
    return read_layout(examples_index.layout_path(REPORT_2022))


def test_a_fact_marks_its_value_cell_in_the_column_it_names(layout):
    # 研发费用 prints 241,986,307.90 in both the 2022 and the 2021 column of page 5
    found = locate(layout, 5, "示例科技股份有限公司 2021年 研发费用（2021年度）：241,986,307.90")
    assert [b.text for b in found] == ["241,986,307.90"]
    other = locate(layout, 5, "示例科技股份有限公司 2022年 研发费用（2022年度）：241,986,307.90")
    assert [b.text for b in other] == ["241,986,307.90"] and other[0].x0 < found[0].x0


def test_a_row_label_with_a_numbering_prefix_is_still_the_label(layout):
    found = locate(layout, 5, "示例科技股份有限公司 2022年 营业收入（2022年度）：2,345,678,901.23")
    assert [b.text for b in found] == ["2,345,678,901.23"]  # the row is printed 一、营业收入


def test_a_text_value_marks_its_cell(layout):
    assert [
        b.text for b in locate(layout, 2, "示例科技股份有限公司 2022年 电子信箱：ir@example-tech.cn")
    ] == ["ir@example-tech.cn"]


def test_a_sentence_wrapped_over_two_lines_marks_both(layout):
    found = locate(
        layout,
        3,
        "公司坚持自主创新，报告期内研发投入24198.63万元，累计获得发明专利86项。"
        "公司建立了覆盖基础研究、产品开发和工程化的三级研发体系。",
    )
    assert [b.kind for b in found] == ["line", "line"]
    assert found[0].text.startswith("公司坚持自主创新") and found[1].text.endswith("三级研发体系。")


def test_an_amount_without_its_row_label_or_on_another_page_marks_nothing(layout):
    assert locate(layout, 5, "营业外收入：241,986,307.90") == []
    assert locate(layout, 4, "示例科技股份有限公司 2022年 研发费用（2022年度）：241,986,307.90") == []
    assert locate(layout, 5, "") == []


def test_part_of_a_longer_number_is_not_a_quote(layout):
    # 345,678,901.23 is printed on page 5 too, but 2,345,678,901.23 is what this evidence quotes
    found = locate(layout, 5, "示例科技股份有限公司 2022年 营业收入（2022年度）：2,345,678,901.23")
    assert all(b.text != "345,678,901.23" for b in found)


def test_a_label_wrapped_inside_its_bracket_still_names_its_row():
    # the standard income-statement row 五、净利润（净亏损以“－”号填列） printed over two lines
    boxes = [
        Box(54, "cell", "五、净利润（净亏损以“－”号填", 95.5, 342.5, 253.2, 353.0),
        Box(54, "cell", "49,523,329,882.40", 348.9, 342.2, 427.8, 352.7),
        Box(54, "cell", "列）", 95.5, 354.0, 110.0, 364.0),
    ]
    found = locate(boxes, 54, "贵州茅台酒股份有限公司 2020年 净利润（2020年度）：49,523,329,882.40")
    assert [b.text for b in found] == ["49,523,329,882.40"]
