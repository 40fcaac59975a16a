"""Key-value tables read as records: real pages of two annual reports, cut out of the shared PDFs."""

from pathlib import Path

import pandas as pd
import pypdfium2 as pdfium
import pytest

from core.records import RECORD_KIND, DocumentMeta
from parser.pdf import parse_pdf
from parser.records import record_rows
from parser.settings import ParseSettings


def page_of(shared_data, code: str, year: str, page: int, tmp_path: Path, pages: int = 1) -> Path:
    """One page (or `pages` pages from it) of an annual report of ../shared/data/annual-cn as a PDF of its own."""
    [report] = (shared_data / "annual-cn" / "reports").glob(f"*__{code}__*__{year}年__*.pdf")
    source, single = pdfium.PdfDocument(report), pdfium.PdfDocument.new()
    single.import_pages(source, list(range(page - 1, page - 1 + pages)))
    out = tmp_path / f"{code}-{page}-{pages}.pdf"
    single.save(out)
    return out


def records(path: Path) -> list:
    doc = parse_pdf(path, DocumentMeta("r", company="X", year=2021), ParseSettings())
    return [c for c in doc.chunks if c.kind == RECORD_KIND]


def test_label_value_pairs_keep_the_pair_taken_for_a_header(shared_data, tmp_path):
    # 名称 | 中国贵州茅台酒厂（集团）有限责任公司 was the table's header row: it is the record's first pair.
    found = records(page_of(shared_data, "600519", "2021", 45, tmp_path))
    holder = next(c for c in found if any("控股股东情况" in t for t in c.titles))
    assert holder.text.splitlines()[:3] == [
        "名称：中国贵州茅台酒厂（集团）有限责任公司",
        "单位负责人或法定代表人：丁雄军",
        "成立日期：1998-01-24",
    ]
    assert holder.page_start == 1


def test_labels_across_the_first_row_give_one_record_per_row(shared_data, tmp_path):
    # 控股股东名称 | 法定代表人 | 成立日期 … over one row of values, then a remark filling two cells.
    found = records(page_of(shared_data, "000001", "2024", 106, tmp_path))
    holder, remark = found[:2]
    assert holder.text.splitlines()[:3] == [
        "控股股东名称：中国平安保险（集团）股份有限公司",
        "法定代表人：马明哲",
        "成立日期：1988年3月21日",
    ]
    assert "7.3.2 控股股东情况" in holder.titles  # a decimal-numbered section heading (rules/headings.yaml)
    assert remark.text.startswith("控股股东报告期内控股和参股的其他境内外上市公司的股权情况：本行控股股东")


@pytest.mark.parametrize(
    "columns, rows",
    [
        (
            ["项目", "2021年", "2020年"],
            [["营业收入", "1,000", "900"]],
        ),  # periods across: figures, not a record
        (["项目", "本期", "上期"], [["营业收入", "1,000", "900"], ["营业成本", "500", "400"]]),  # amounts
    ],
)
def test_tables_of_figures_are_not_records(columns, rows):
    assert record_rows(pd.DataFrame(rows, columns=columns)) == []


def test_a_heading_word_over_the_values_is_no_pair():
    frame = pd.DataFrame([["签字会计师姓名", "闾力华、徐文生"]], columns=["项目", "内容"])
    assert record_rows(frame) == [[("签字会计师姓名", "闾力华、徐文生")]]


def test_pairs_under_a_group_label_give_one_record_per_group(shared_data, tmp_path):
    # 公司聘请的会计师事务所（境内） | 名称 | 天职国际… printed on each row of the group.
    [auditor] = [
        c
        for c in records(page_of(shared_data, "600519", "2020", 5, tmp_path))
        if "其他相关资料" in c.titles[-1]
    ]
    assert auditor.text.splitlines() == [
        "名称：天职国际会计师事务所（特殊普通合伙）",
        "办公地址：北京市海淀区车公庄西路19号外文文化创意园12号楼",
        "签字会计师姓名：童文光 张科 杨舒",
    ]
