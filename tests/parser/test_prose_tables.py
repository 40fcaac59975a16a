"""A section printed as a table (key audit matters): real pages of two annual reports, cut out of the shared PDFs."""

import pandas as pd

from core.records import RECORD_KIND, DocumentMeta
from parser.pdf import parse_pdf
from parser.prose_tables import HEADINGS_ROW, open_point, prose_rows
from parser.settings import ParseSettings
from tests.parser.test_records import page_of


def _chunks(path):
    return parse_pdf(path, DocumentMeta("r", company="X", year=2021), ParseSettings()).chunks


def test_numbered_matters_named_across_the_table_head_their_passages(shared_data, tmp_path):
    # 贵州茅台 2021 p48: a summary lists (一) and (二) as lines above the table; the table names each matter in a
    # row across it. Each passage stands under its own matter, (一) in place of the summary's (二), not under it.
    chunks = _chunks(page_of(shared_data, "600519", "2021", 48, tmp_path))
    revenue = [c for c in chunks if c.titles[-1:] == ("（一）营业收入的确认",)]
    related = [c for c in chunks if c.titles[-1:] == ("（二）关联方及关联交易的披露",)]
    assert revenue and related
    assert revenue[0].titles[-2] == "三、关键审计事项"
    assert "我们将贵州茅台营业收入的确认作为关键审计事项" in revenue[0].text
    assert "审计程序主要包括" in revenue[0].text  # the second column's passage, in the same row
    assert "关联方关系的识别" in related[0].text
    assert not any("为2021年度财务报表审计中" in c.text for c in chunks)  # no "passage为passage" row sentence


def test_unnumbered_matters_replace_each_other_and_no_record_is_read(shared_data, tmp_path):
    # 平安银行 2024 p118: the first matter continued from the page before, then the second one.
    chunks = _chunks(page_of(shared_data, "000001", "2024", 118, tmp_path))
    second = next(c for c in chunks if c.titles[-1:] == ("结构化主体合并评估",))
    assert not any("预期信用损失" in title for title in second.titles)
    assert second.text.startswith("平安银行股份有限公司在开展金融投资")
    assert not any(c.kind == RECORD_KIND and "关键审计事项" in c.text for c in chunks)


def test_a_matter_named_at_the_foot_of_a_page_heads_the_passages_the_table_goes_on_with(
    shared_data, tmp_path
):
    # 贵州茅台 2020 p45-46: the table's column headings and (一) 营业收入的确认 end page 45 (6 columns); page 46
    # goes on with its passages (3 columns, its first row of passages read as column headings), then (二).
    chunks = _chunks(page_of(shared_data, "600519", "2020", 45, tmp_path, pages=2))
    revenue = [c for c in chunks if c.titles[-1:] == ("（一）营业收入的确认",)]
    related = [c for c in chunks if c.titles[-1:] == ("（二）关联方关系及其交易的披露",)]
    assert revenue and related
    assert revenue[0].page_start == 2 and revenue[0].titles[-2] == "三、关键审计事项"
    assert "我们将贵州茅台营业收入的确认作为关键审计事项" in revenue[0].text
    assert not any("营业收入的确认作为关键审计事项" in c.text for c in related)


def test_passages_before_any_named_point_belong_to_the_point_left_open_on_the_page_before():
    foot = pd.DataFrame(
        [["（一）营业收入的确认", ""]], columns=["关键审计事项", "该事项在审计中是如何应对的"]
    )
    assert open_point(foot) == "（一）营业收入的确认"
    assert open_point(pd.DataFrame([[LONG, LONG]], columns=["#0", "#1"])) == ""
    goes_on = pd.DataFrame([["（二）关联方交易的披露", ""], [LONG, LONG]], columns=[LONG, LONG + "之二"])
    titles = ("第十一节 财务报告", "三、关键审计事项", "（二）关联方交易的披露")
    rows = prose_rows(goes_on, titles, continues="（一）营业收入的确认")
    assert [row.titles[-1] for row in rows] == ["（一）营业收入的确认", "（二）关联方交易的披露"]
    assert rows[0].row == HEADINGS_ROW and rows[0].text.startswith(LONG)
    assert [row.titles[-1] for row in prose_rows(goes_on, titles)] == ["（二）关联方交易的披露"] * 2


LONG = "公司经营范围包括食品冷冻设备、罐式集装箱的研发、生产与销售，以及相关技术咨询与服务，货物进出口和技术进出口业务。"


def test_tables_that_name_no_point_across_them_are_not_prose():
    # A key-value table with one long cell, and a table of questions and answers: records, label by label.
    holder = pd.DataFrame([["法定代表人", "黄杰"], ["经营范围", LONG]], columns=["名称", "四方控股"])
    answers = pd.DataFrame([[LONG, LONG + "本期未发生变化。"], [LONG + "说明", LONG]], columns=["#0", "#1"])
    assert prose_rows(holder, ("控股股东情况",)) == []
    assert prose_rows(answers, ("衍生品投资情况",)) == []
