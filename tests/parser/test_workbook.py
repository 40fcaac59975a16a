"""Tables workbooks (write and read back) and user facts workbooks (.xlsx/.csv) with their errors."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from core.errors import InputError
from core.records import Fact, Table
from core.units import parse_quantity
from parser.html import read_html
from parser.workbook import INDEX_SHEET, read_facts_workbook, read_tables_workbook, write_tables_workbook


def write_xlsx(path: Path, sheets: dict[str, list[list]]) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


FACTS = [
    ["company", "year", "field", "value", "unit", "short_name", "code", "source", "page"],
    ["贵州茅台酒股份有限公司", 2019, "研发费用", "241986307.9", "元", "贵州茅台", "600519", "2019年年报", 88],
    ["贵州茅台酒股份有限公司", "2019年", "营业收入", "8,540,000", "万元", "贵州茅台", "600519", "", ""],
    ["贵州茅台酒股份有限公司", 2019, "电子信箱", "mtdm@moutaichina.com", "", "贵州茅台", "600519", "", ""],
    ["贵州茅台酒股份有限公司", 2019, "资产负债率", "22.49%", "", "贵州茅台", "600519", "", ""],
]


# ---- tables workbooks --------------------------------------------------------------------------


def test_tables_of_a_report_round_trip_through_the_workbook(shared_data, tmp_path):
    path = shared_data / "ntcir18-u4" / "reports" / "S100IXUZ" / "S100IXUZ-0105010.html"
    tables = read_html(path).tables
    out = tmp_path / "tables.xlsx"
    write_tables_workbook(tables, out)
    back = read_tables_workbook(out)
    assert set(back) == {t.table_id for t in tables}
    for table in tables:
        frame = back[table.table_id]
        assert list(frame.columns) == list(table.frame.columns)
        for read, written in zip(frame.values.ravel(), table.frame.values.ravel()):
            number = parse_quantity(written, "") if isinstance(written, str) else None
            if number is not None and not number.unit and float(read) == float(number.number):
                continue  # stored as the number it prints
            assert read == written
    book = openpyxl.load_workbook(out, read_only=True)
    assert book.sheetnames[0] == INDEX_SHEET
    assert all(len(name) <= 31 for name in book.sheetnames)
    index = pd.read_excel(out, sheet_name=INDEX_SHEET, dtype=str, keep_default_na=False)
    row = index[index["table_id"] == "S100IXUZ-0105010-tab89"].iloc[0]
    assert (row["title"], row["unit"]) == ("③【連結持分変動計算書】", "百万円")


def test_long_and_clashing_table_ids_get_distinct_short_sheet_names(tmp_path):
    frame = pd.DataFrame([["营业收入", "1,000"]], columns=["项目", "2021年"])
    tables = [
        Table("a-very-long-table-identifier-from-some-report-tab1", 3, frame),
        Table("b-very-long-table-identifier-from-some-report-tab1", 4, frame),
        Table("p12t1", 12, frame),
        Table("index", 1, frame),
    ]
    out = tmp_path / "t.xlsx"
    write_tables_workbook(tables, out)
    names = openpyxl.load_workbook(out, read_only=True).sheetnames
    assert len(set(names)) == 6 and all(len(n) <= 31 for n in names)  # 4 tables, index, facts
    assert "p12t1" in names and set(read_tables_workbook(out)) == {t.table_id for t in tables}


def test_table_ids_excel_would_refuse_as_sheet_names_get_names_it_takes(tmp_path):
    """Excel keeps History for itself, refuses an apostrophe at either end of a name and counts a character
    outside the BMP as two of its 31."""
    frame = pd.DataFrame([["营业收入", "1,000"]], columns=["项目", "2021年"])
    ids = ["History", "'quoted'", "x'" + "b" * 30, "\U00020000" * 20]
    out = tmp_path / "t.xlsx"
    write_tables_workbook([Table(table_id, 1, frame) for table_id in ids], out)
    names = openpyxl.load_workbook(out, read_only=True).sheetnames
    assert names[1:5] == ["History~2", "quoted", "b" * 30, "\U00020000" * 15]
    assert set(read_tables_workbook(out)) == set(ids)


def test_numbers_are_numbers_shown_as_printed_with_frozen_headers_links_and_a_facts_sheet(tmp_path):
    frame = pd.DataFrame(
        [["营业收入", "2,345,678,901.23", "(1,234)"], ["注1 行", "※1 60,976", "12.5%"]],
        columns=["项目", "2022年", "2021年"],
    )
    fact = Fact(
        "示例科技股份有限公司", 2022, "营业收入", "2345678901.23", raw="2,345,678,901.23", table="p5t1"
    )
    out = tmp_path / "t.xlsx"
    write_tables_workbook([Table("p5t1", 5, frame)], out, [fact])
    book = openpyxl.load_workbook(out)
    sheet = book["p5t1"]
    assert sheet.freeze_panes == "A2" and book[INDEX_SHEET].freeze_panes == "A2"
    assert (sheet["B2"].value, sheet["B2"].number_format) == (2345678901.23, "#,##0.00")
    assert (sheet["C2"].value, sheet["C2"].number_format) == (-1234, "#,##0;(#,##0)")
    assert (
        sheet["B3"].value == "※1 60,976" and sheet["C3"].value == "12.5%"
    )  # not only a number: kept as text
    # a number's format is the number's cell's alone, not carried over to the text after it
    assert (sheet["A2"].number_format, sheet["A3"].number_format) == ("General", "General")
    index = book[INDEX_SHEET]
    link = index["A2"]
    assert link.value == "p5t1" and link.hyperlink.location == "'p5t1'!A1"
    assert [c.hyperlink for c in index[2][1:]] == [None] * 9 and index["B2"].value == "p5t1"  # only A links
    facts = book["facts"]
    assert [c.value for c in facts[1]][:4] == ["company", "year", "field", "value"]
    assert [c.value for c in facts[2]][:4] == ["示例科技股份有限公司", 2022, "营业收入", "2345678901.23"]


def test_a_japanese_reports_bracketed_number_is_a_positive_secondary_figure_shown_in_its_brackets(tmp_path):
    frame = pd.DataFrame([["従業員数", "5,432", "(1,234)"]], columns=["区分", "2020年", "2019年"])
    tables = [Table("tab1", 1, frame)]
    for language, number in (("ja", 1234), ("zh", -1234)):
        out = tmp_path / f"{language}.xlsx"
        write_tables_workbook(tables, out, language=language)
        cell = openpyxl.load_workbook(out)["tab1"]["C2"]
        assert (cell.value, cell.number_format) == (number, "#,##0;(#,##0)" if number < 0 else "(#,##0)")


def test_cell_text_that_looks_like_a_formula_stays_text(tmp_path):
    frame = pd.DataFrame([['=HYPERLINK("x")', "1,234\x07", "=2"]], columns=["项目", "金额", "=备注"])
    out = tmp_path / "t.xlsx"
    write_tables_workbook([Table("p1t1", 1, frame)], out)
    assert read_tables_workbook(out)["p1t1"].values.tolist() == [['=HYPERLINK("x")', "1,234", "=2"]]
    sheet = openpyxl.load_workbook(out)["p1t1"]
    assert [(c.value, c.data_type) for c in sheet[1]] == [("项目", "s"), ("金额", "s"), ("=备注", "s")]


# ---- facts workbooks ---------------------------------------------------------------------------


def test_facts_workbook_gives_scaled_facts_and_its_company_years(tmp_path):
    path = write_xlsx(
        tmp_path / "facts.xlsx",
        {
            "facts": FACTS,
            "reports": [
                ["company", "short_name", "code", "year"],
                ["贵州茅台酒股份有限公司", "贵州茅台", "600519", 2019],
                ["贵州茅台酒股份有限公司", "贵州茅台", "600519", 2020],
            ],
        },
    )
    doc = read_facts_workbook(path, "facts/moutai")
    by_field = {f.field: f for f in doc.facts}
    rd = by_field["研发费用"]
    assert (rd.value, rd.number, rd.unit, rd.year, rd.page, rd.table) == (
        "241986307.9",
        Decimal("241986307.9"),
        "元",
        2019,
        88,
        "2019年年报",
    )
    assert (rd.short_name, rd.code, rd.doc_id, rd.cell_id) == (
        "贵州茅台",
        "600519",
        "facts/moutai",
        "facts!2",
    )
    assert (by_field["营业收入"].value, by_field["营业收入"].raw) == ("85400000000", "8,540,000")
    assert (by_field["电子信箱"].value, by_field["电子信箱"].number) == ("mtdm@moutaichina.com", None)
    assert (by_field["资产负债率"].value, by_field["资产负债率"].unit) == ("22.49", "%")
    assert [(r.company, r.year, r.short_name) for r in doc.reports] == [
        ("贵州茅台酒股份有限公司", 2019, "贵州茅台"),
        ("贵州茅台酒股份有限公司", 2020, "贵州茅台"),
    ]
    assert doc.meta.company == "贵州茅台酒股份有限公司" and doc.meta.year is None


def test_facts_csv_without_reports_covers_the_company_years_of_its_facts(tmp_path):
    path = tmp_path / "facts.csv"
    path.write_text(
        "company,year,field,value\n甲公司,2020,营业收入,100\n乙公司,2021,营业收入,200\n\n", encoding="utf-8"
    )
    doc = read_facts_workbook(path, "facts/csv")
    assert [(f.company, f.year, f.value, f.cell_id) for f in doc.facts] == [
        ("甲公司", 2020, "100", "csv!2"),
        ("乙公司", 2021, "200", "csv!3"),
    ]
    assert {(r.company, r.year) for r in doc.reports} == {("甲公司", 2020), ("乙公司", 2021)}


@pytest.mark.parametrize(
    "sheets, message",
    [
        (
            {"facts": [["company", "field", "value"], ["甲公司", "营业收入", "1"]]},
            r"facts.xlsx:1: sheet 'facts': missing column\(s\) year",
        ),
        (
            {"facts": FACTS[:1] + [["甲公司", "20x9", "营业收入", "1", "", "", "", "", ""]]},
            r"facts.xlsx:2: sheet 'facts': year '20x9' is not a year",
        ),
        (
            {"facts": FACTS[:1] + [["甲公司", 2019, "营业收入", "1", "英镑", "", "", "", ""]]},
            r"facts.xlsx:2: sheet 'facts': unknown unit '英镑'",
        ),
        (
            {"facts": FACTS[:1] + [["", 2019, "营业收入", "1", "", "", "", "", ""]]},
            r"facts.xlsx:2: sheet 'facts': empty company",
        ),
        (
            {
                "facts": FACTS[:1]
                + [
                    ["甲公司", 2019, "营业收入", "", "", "", "", "", ""],
                    ["甲公司", 2019, "营业成本", "", "", "", "", "", ""],
                ]
            },
            r"facts.xlsx:2: sheet 'facts': empty value \(and 1 more bad rows\); no usable row",
        ),
    ],
)
def test_a_facts_workbook_without_a_usable_row_names_file_sheet_and_row(tmp_path, sheets, message):
    path = write_xlsx(tmp_path / "facts.xlsx", sheets)
    with pytest.raises(InputError, match=message):
        read_facts_workbook(path, "facts/bad")


def test_bad_rows_are_left_out_and_listed_while_the_good_rows_are_kept(tmp_path):
    path = write_xlsx(
        tmp_path / "facts.xlsx",
        {
            "facts": FACTS
            + [
                ["甲公司", 2019, "营业收入", "", "", "", "", "", ""],
                ["甲公司", 2019, "营业成本", "5", "英镑", "", "", "", ""],
            ],
            "reports": [["company", "year"], ["贵州茅台酒股份有限公司", 2019], ["乙公司", "去年"]],
        },
    )
    doc = read_facts_workbook(path, "facts/partial")
    assert len(doc.facts) == 4 and [r.year for r in doc.reports] == [2019]
    assert doc.rejected == [
        f"{path}:6: sheet 'facts': empty value",
        f"{path}:7: sheet 'facts': unknown unit '英镑'",
        f"{path}:3: sheet 'reports': year '去年' is not a year (1900-2099)",
    ]


def test_field_names_are_stored_under_the_name_the_mapping_gives(tmp_path):
    path = tmp_path / "facts.csv"
    path.write_text(
        "company,year,field,value\n甲公司,2020,硕士员工人数,12\n甲公司,2020,自定义项目,3\n", encoding="utf-8"
    )
    doc = read_facts_workbook(path, "facts/csv", field_names={"硕士员工人数": "硕士"}.get)
    assert [f.field for f in doc.facts] == ["硕士", "自定义项目"]


def test_unreadable_facts_files_are_input_errors(tmp_path):
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 not really a workbook")
    with pytest.raises(InputError, match="broken.xlsx: "):
        read_facts_workbook(broken, "b")
    other = tmp_path / "facts.ods"
    other.write_bytes(b"")
    with pytest.raises(InputError, match="expected .xlsx or .csv"):
        read_facts_workbook(other, "o")


def test_conflicting_duplicate_facts_are_reported_with_both_rows(tmp_path):
    path = tmp_path / "facts.csv"
    path.write_text(
        "company,year,field,value,unit\n甲,2021,营业收入,1000,元\n甲,2021,营业收入,1000,元\n"
        "甲,2021,营业收入,2000,元\n乙,2021,营业收入,5,万元\n",
        encoding="utf-8",
    )
    warnings = read_facts_workbook(path, "facts").warnings
    assert warnings == [
        f"conflicting duplicate facts for 甲 2021 营业收入: {path}:2 says '1000', {path}:4 says '2000'"
    ]


def test_a_csv_header_of_a_million_columns_fails_at_once(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(
        ",".join(f"c{n}" for n in range(1_000_000)) + "\n示例科技,2022,营业收入,1\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="more than 1,000 columns") as error:
        read_facts_workbook(path, "facts/wide")
    assert str(error.value).startswith(f"{path}:1:")


def test_a_csv_row_of_a_million_columns_is_rejected_alone(tmp_path):
    path = tmp_path / "facts.csv"
    good = ["company,year,field,value", "示例科技,2022,营业收入,100"]
    path.write_text(
        "\n".join([*good, ",".join(["x"] * 1_000_000), "示例科技,2021,营业收入,90"]) + "\n", encoding="utf-8"
    )
    doc = read_facts_workbook(path, "facts/x")
    assert sorted(f.year for f in doc.facts) == [2021, 2022]
    assert doc.rejected == [f"{path}:3: row longer than 100,000 characters"]


def test_a_huge_cell_in_a_small_xlsx_is_refused_before_it_is_expanded(tmp_path):
    import zipfile

    plain = tmp_path / "plain.xlsx"
    book = openpyxl.Workbook()
    book.active.append(["company", "year", "field", "value"])
    book.save(plain)
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        for member in source.infolist():
            data = source.read(member)
            if member.filename == "xl/worksheets/sheet1.xml":  # one inline cell of 210 MB
                cell = (
                    b'<row r="2"><c r="A2" t="inlineStr"><is><t>'
                    + b"9" * 210_000_000
                    + b"</t></is></c></row>"
                )
                data = data.replace(b"</sheetData>", cell + b"</sheetData>")
            bomb.writestr(member, data)
    assert path.stat().st_size < 1_000_000
    with pytest.raises(InputError, match="expands to 210 MB, more than the 200 MB"):
        read_facts_workbook(path, "facts/bomb")


def test_a_cell_longer_than_excel_allows_rejects_its_row(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(
        "company,year,field,value\n示例科技,2022,营业收入,100\n示例科技,2022,附注," + "x" * 40_000 + "\n",
        encoding="utf-8",
    )
    doc = read_facts_workbook(path, "facts/long")
    assert [f.field for f in doc.facts] == ["营业收入"]
    assert doc.rejected == [f"{path}:3: value longer than 32,767 characters"]
