"""CellAnswerer: finding the table cell a quoted-label question asks for, in real and small HTML reports."""

from __future__ import annotations

import pytest

from core.errors import InputError
from eval.normalize import ntcir_value
from ingestion.pipeline import ingest
from qa.data.cells import (
    CellAnswerer,
    CellQuestion,
    CellSettings,
    MemberWords,
    _Cell,
    _default_column,
    _LabelMatch,
    _member_fit,
    _Readings,
    _split_spanned_labels,
    _titled,
)
from qa.records import Question
from qa.understand.analyse import QuestionAnalyzer
from search.backend import CellFact
from search.settings import IndexSettings
from search.stores import open_fact_store, open_text_index
from search.tokenize import Tokenizer

COMPANY = "テスト工業株式会社"


def _row(table: str, r: int, label: str, *values: str) -> str:
    cells = "".join(f'<td cell-id="{table}-r{r}c{c}"><p>{v}</p></td>' for c, v in enumerate(values, start=2))
    return f'<tr><td cell-id="{table}-r{r}c1"><p>{label}</p></td>{cells}</tr>'


def _table(table: str, header: list[str], rows: list[tuple]) -> str:
    head = "".join(f'<td cell-id="{table}-r1c{c}"><p>{h}</p></td>' for c, h in enumerate(header, start=1))
    body = "".join(_row(table, r, *row) for r, row in enumerate(rows, start=2))
    return f'<table table-id="{table}"><tr>{head}</tr>{body}</table>'


def _report() -> str:
    periods = ["", "前連結会計年度(2019年３月31日)", "当連結会計年度(2020年３月31日)"]
    own = ["", "前事業年度(2019年３月31日)", "当事業年度(2020年３月31日)"]
    return f"""<html><head><meta charset="utf-8"></head><body>
<h1>第１【企業の概況】</h1>
<h2>１【主要な経営指標等の推移】</h2>
{
        _table(
            "TEST0001-0101010-tab2",
            ["回次", "第9期/2019年３月", "第10期/2020年３月"],
            [
                ("当期純利益", "4,000", "5,000"),
                ("１株当たり当期純利益又は当期純損失（△）", "98.76", "123.45"),
                ("株主総利回り", "90.4", "95.0"),
                ("(比較指標：配当込みTOPIX)", "89.2", "102.3"),
                ("親会社の所有者に帰属する当期包括利益", "3,900", "4,800"),
                ("親会社の所有者に帰属する当期利益", "3,800", "4,700"),
                ("親会社の所有者に帰属する持分", "30,000", "32,000"),
                ("１株当たり純資産額", "510.20", "530.40"),
                ("１株当たり配当額<br/>(内１株当たり中間配当額)", "30.00", "35.00"),
            ],
        )
    }
<h1>第４【提出会社の状況】</h1>
<h2>(2)【役員の状況】</h2>
{
        _table(
            "TEST0001-0104010-tab8",
            ["役職名", "氏名", "生年月日", "任期"],
            [
                ("代表取締役社長", "高橋 誠", "1961年2月2日生", "選任後2年"),
                ("取締役", "山本 圭司", "1960年1月1日生", "選任後1年"),
                ("取締役", "アンドリュー ハウス", "1959年3月3日生", "選任後3年"),
            ],
        )
    }
<h2>(1)【株式の総数等】</h2>
{
        _table(
            "TEST0001-0104010-tab10",
            [
                "種類",
                "事業年度末現在発行数(株)",
                "上場金融商品取引所名又は登録認可金融商品取引業協会名",
                "内容",
            ],
            [
                ("普通株式", "1,000", "東京証券取引所プライム市場", "単元株式数100株"),
                ("計", "1,000", "－", "－"),
            ],
        )
    }
<h2>(4)【役員の報酬等】</h2>
<p>役員ごとの連結報酬等の総額等</p>
{
        _table(
            "TEST0001-0104010-tab9",
            ["氏名", "連結報酬等の総額(百万円)", "固定報酬(百万円)"],
            [("高橋 誠", "120", "100"), ("山本 圭司", "80", "70"), ("アンドリュー ハウス", "60", "50")],
        )
    }
<h1>第５【経理の状況】</h1>
<h2>１【連結財務諸表等】</h2>
<h3>①【連結貸借対照表】</h3>
<p>（単位：百万円）</p>
{
        _table(
            "TEST0001-0105010-tab1",
            periods,
            [
                ("流動資産合計", "1,200", "1,500"),
                ("長期前払費用", "30", "40"),
                ("受取手形、売掛金及び契約資産", "300", "350"),
            ],
        )
    }
{
        _table(
            "TEST0001-0105010-tab5",
            periods,
            [
                ("負債", "", ""),
                ("流動負債", "", ""),
                ("その他", "11", "12"),
                ("流動負債合計", "11", "12"),
                ("非流動負債", "", ""),
                ("その他", "21", "22"),
                ("非流動負債合計", "21", "22"),
            ],
        )
    }
{
        _table(
            "TEST0001-0105010-tab12",
            periods,
            [
                ("建物", "100", "110"),
                ("減価償却累計額", "△40", "△45"),
                ("工具、器具及び備品", "50", "60"),
                ("減価償却累計額", "△20", "△25"),
            ],
        )
    }
<h3>②【連結損益計算書】</h3>
<p>（単位：百万円）</p>
{
        _table(
            "TEST0001-0105010-tab6",
            periods,
            [
                ("法人税等調整額", "3", "4"),
                ("法人税、住民税及び事業税", "10", "12"),
                ("営業外収益", "", ""),
                ("その他", "5", "6"),
                ("営業外収益合計", "5", "6"),
                ("営業外費用", "", ""),
                ("その他", "7", "8"),
                ("営業外費用合計", "7", "8"),
            ],
        )
    }
<h3>③【連結株主資本等変動計算書】</h3>
<p>（単位：百万円）</p>
{
        _table(
            "TEST0001-0105010-tab2",
            ["", "資本金", "自己株式", "非支配持分", "純資産合計"],
            [("剰余金の配当", "－", "－", "△ 7", "△ 57")],
        )
    }
<h3>【連結財務諸表注記】</h3>
<h4>(連結貸借対照表関係)</h4>
<p>受取手形、売掛金及び契約資産のうち、顧客との契約から生じた債権</p>
{_table("TEST0001-0105010-tab11", periods, [("受取手形", "20", "21"), ("売掛金", "280", "329")])}
<h4>10 有形固定資産</h4>
<p>減価償却累計額及び減損損失累計額（百万円）</p>
{
        _table(
            "TEST0001-0105010-tab7",
            ["", "建物", "合計"],
            [("2019年3月31日残高", "70", "90"), ("2020年3月31日残高", "75", "95")],
        )
    }
<p>減価償却費及び償却費（百万円）</p>
{_table("TEST0001-0105010-tab8", periods, [("ライフスタイル", "61", "62"), ("エネルギー", "71", "72")])}
<p>報告セグメントごとの売上高（百万円）</p>
<table table-id="TEST0001-0105010-tab10">
<tr><td cell-id="TEST0001-0105010-tab10-r1c1" rowspan="2"></td>
<td cell-id="TEST0001-0105010-tab10-r1c2" colspan="3">報告セグメント</td>
<td cell-id="TEST0001-0105010-tab10-r1c5" rowspan="2">調整額</td>
<td cell-id="TEST0001-0105010-tab10-r1c6" rowspan="2">連結財務諸表計上額</td></tr>
<tr><td cell-id="TEST0001-0105010-tab10-r2c2">国内</td><td cell-id="TEST0001-0105010-tab10-r2c3">海外</td>
<td cell-id="TEST0001-0105010-tab10-r2c4">計</td></tr>
<tr><td cell-id="TEST0001-0105010-tab10-r3c1">外部顧客への売上高</td><td cell-id="TEST0001-0105010-tab10-r3c2">10</td>
<td cell-id="TEST0001-0105010-tab10-r3c3">5</td><td cell-id="TEST0001-0105010-tab10-r3c4">15</td>
<td cell-id="TEST0001-0105010-tab10-r3c5">1</td><td cell-id="TEST0001-0105010-tab10-r3c6">16</td></tr>
</table>
<p>セグメント情報（当連結会計年度）</p>
{
        _table(
            "TEST0001-0105010-tab9",
            ["", "パーソナル", "ビジネス", "国内たばこ事業", "海外たばこ事業", "合計"],
            [("減損損失", "3", "4", "5", "6", "18")],
        )
    }
<h4>12 無形資産</h4>
<p>償却累計額及び減損損失累計額（百万円）</p>
{
        _table(
            "TEST0001-0105010-tab13",
            ["", "ソフトウェア", "その他", "合計"],
            [
                ("2018年4月1日残高", "△500", "△100", "△600"),
                ("償却費", "△50", "△10", "△60"),
                ("その他", "－", "△2", "△2"),
                ("2019年3月31日残高", "△550", "△112", "△662"),
                ("償却費", "△50", "△11", "△61"),
                ("その他", "－", "△3", "△3"),
                ("2020年3月31日残高", "△600", "△126", "△726"),
            ],
        )
    }
<h2>２【財務諸表等】</h2>
<h3>①【貸借対照表】</h3>
<p>（単位：百万円）</p>
{_table("TEST0001-0105020-tab3", own, [("流動資産合計", "800", "900"), ("長期前払費用", "6", "20")])}
<h3>②【株主資本等変動計算書】</h3>
<p>（単位：百万円）</p>
<table table-id="TEST0001-0105020-tab4">
<tr><td cell-id="TEST0001-0105020-tab4-r1c1" rowspan="2"></td><td cell-id="TEST0001-0105020-tab4-r1c2" rowspan="2">資本金</td>
<td cell-id="TEST0001-0105020-tab4-r1c3" colspan="2">評価・換算差額等</td>
<td cell-id="TEST0001-0105020-tab4-r1c5" rowspan="2">純資産合計</td></tr>
<tr><td cell-id="TEST0001-0105020-tab4-r2c3">その他有価証券評価差額金</td>
<td cell-id="TEST0001-0105020-tab4-r2c4">評価・換算差額等合計</td></tr>
<tr><td cell-id="TEST0001-0105020-tab4-r3c1">当期首残高</td><td cell-id="TEST0001-0105020-tab4-r3c2">100</td>
<td cell-id="TEST0001-0105020-tab4-r3c3">30</td><td cell-id="TEST0001-0105020-tab4-r3c4">40</td>
<td cell-id="TEST0001-0105020-tab4-r3c5">140</td></tr>
</table>
</body></html>"""


def _ingested(root, file_name: str, sidecar: str = ""):
    """The test report as TEST0001/<file_name>.html (with a metadata.csv when given), ingested: the settings
    and the ingest summary."""
    corpus = root / "corpus" / "TEST0001"
    corpus.mkdir(parents=True)
    (corpus / f"{file_name}.html").write_text(_report(), encoding="utf-8")
    if sidecar:
        (root / "corpus" / "metadata.csv").write_text(sidecar, encoding="utf-8")
    settings = IndexSettings(root / "index")
    summary = ingest(root / "corpus", settings, workers=1, progress=False)
    assert summary.exit_code == 0
    return settings, summary


@pytest.fixture(scope="module")
def small_engine(tmp_path_factory):
    settings, _ = _ingested(
        tmp_path_factory.mktemp("cells"),
        "TEST0001-0105010",
        "doc_id,file,company,short_name,code,year,title,language\n"
        "TEST0001/TEST0001-0105010,TEST0001/TEST0001-0105010.html,"
        f"{COMPANY},テスト工業,9999,2020,有価証券報告書,ja\n",
    )
    yield _parts(settings)


def _parts(settings: IndexSettings):
    tokenizer = Tokenizer()
    index, store = open_text_index(settings, tokenizer), open_fact_store(settings)
    analyzer = QuestionAnalyzer.from_reports(store.reports())
    return analyzer, CellAnswerer(index, store, tokenizer)


def _ask(parts, text: str, source: str):
    analyzer, answerer = parts
    return answerer.run(analyzer.run(Question("q", text, (source,))))


def test_parse_reads_label_context_year_individual_and_member():
    asked = CellQuestion.parse(
        "塩野義製薬株式会社の2020年の個別決算のNonControllingInterestsIFRSMemberにおける"
        "「支配継続子会社に対する持分変動、持分変動計算書」は？"
    )
    assert (asked.label, asked.context, asked.year, asked.individual) == (
        "支配継続子会社に対する持分変動",
        ("持分変動計算書",),
        2020,
        True,
    )
    assert asked.member == "NonControllingInterestsIFRS" and asked.member_words == ("非支配持分",)
    assert CellQuestion.parse("2020年の流動資産は？") is None


def test_readings_let_the_label_run_on_over_its_commas():
    asked = CellQuestion.parse("2020年における「法人税、住民税及び事業税」は？")
    assert asked.readings() == [("法人税", ("住民税及び事業税",)), ("法人税、住民税及び事業税", ())]


def test_member_words_come_from_the_rules_file_and_its_errors_name_the_line(tmp_path):
    members = MemberWords.load()
    assert members.of("CapitalSurplusIFRS") == members.of("CapitalSurplus") == ("資本剰余金",)
    assert members.of("SomePersonMember"[:-6]) == () and "OrdinaryShare" in members.neutral
    bad = tmp_path / "members.yaml"
    bad.write_text("members:\n  CapitalSurplus: [資本剰余金]\n  Plant: []\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"members.yaml:3"):
        MemberWords.load(bad)


def test_settings_are_validated():
    with pytest.raises(InputError):
        CellSettings(min_label=1.5)


def test_individual_question_takes_the_parent_company_balance_sheet(small_engine):
    answer = _ask(small_engine, f"{COMPANY}の2020年時点の個別決算における「長期前払費用」は？", "TEST0001")
    assert answer.value == "20000000"
    assert answer.evidence[0].cell_id == "TEST0001-0105020-tab3-r3c3"


def test_consolidated_is_the_default_and_the_year_picks_the_column(small_engine):
    answer = _ask(small_engine, f"{COMPANY}の2019年時点における「流動資産」は？", "TEST0001")
    assert answer.value == "1200000000"
    assert answer.evidence[0].cell_id == "TEST0001-0105010-tab1-r2c2"


def test_member_picks_its_column_and_no_member_the_total(small_engine):
    member = _ask(
        small_engine,
        f"{COMPANY}の2020年のNonControllingInterestsMemberにおける「剰余金の配当、株主資本等変動計算書」は？",
        "TEST0001",
    )
    total = _ask(
        small_engine, f"{COMPANY}の2020年における「剰余金の配当、株主資本等変動計算書」は？", "TEST0001"
    )
    assert (member.value, member.evidence[0].cell_id) == ("-7000000", "TEST0001-0105010-tab2-r2c4")
    assert (total.value, total.evidence[0].cell_id) == ("-57000000", "TEST0001-0105010-tab2-r2c5")


def test_heading_row_above_tells_apart_rows_of_the_same_label(small_engine):
    current = _ask(small_engine, f"{COMPANY}の2020年時点における「その他、流動負債」は？", "TEST0001")
    later = _ask(small_engine, f"{COMPANY}の2020年時点における「その他、非流動負債」は？", "TEST0001")
    assert (current.value, current.evidence[0].cell_id) == ("12000000", "TEST0001-0105010-tab5-r4c3")
    assert (later.value, later.evidence[0].cell_id) == ("22000000", "TEST0001-0105010-tab5-r7c3")
    expense = _ask(small_engine, f"{COMPANY}の2020年における「その他、営業外費用」は？", "TEST0001")
    assert (expense.value, expense.evidence[0].cell_id) == ("8000000", "TEST0001-0105010-tab6-r8c3")


def test_label_with_a_comma_is_read_whole_when_a_row_has_it(small_engine):
    answer = _ask(small_engine, f"{COMPANY}の2020年における「法人税、住民税及び事業税」は？", "TEST0001")
    assert (answer.value, answer.evidence[0].cell_id) == ("12000000", "TEST0001-0105010-tab6-r3c3")


def test_a_label_with_a_comma_that_a_statement_row_prints_whole_beats_a_notes_row_of_its_first_part(
    small_engine,
):
    text = f"{COMPANY}の2020年時点の連結決算における「受取手形、売掛金及び契約資産」は？"
    answer = _ask(small_engine, text, "TEST0001")
    assert (answer.value, answer.evidence[0].cell_id) == ("350000000", "TEST0001-0105010-tab1-r4c3")


def test_a_row_label_with_a_parenthesised_second_line_is_named_by_its_first(small_engine):
    text = f"{COMPANY}の2020年における「１株当たり配当額、経営指標等」は？"
    answer = _ask(small_engine, text, "TEST0001")
    assert (answer.value, answer.evidence[0].cell_id) == ("35", "TEST0001-0101010-tab2-r10c3")


def test_a_context_naming_the_row_above_picks_the_row_under_it(small_engine):
    text = f"{COMPANY}の2020年時点の連結決算における「減価償却累計額、工具、器具及び備品」は？"
    answer = _ask(small_engine, text, "TEST0001")
    assert (answer.value, answer.evidence[0].cell_id) == ("-25000000", "TEST0001-0105010-tab12-r5c3")


def test_a_member_that_picks_no_column_picks_the_row_it_names(small_engine):
    text = f"{COMPANY}の2020年時点のOrdinaryShareMemberにおける「上場金融商品取引所名又は登録認可金融商品取引業協会名」は？"
    answer = _ask(small_engine, text, "TEST0001")
    assert (answer.value, answer.evidence[0].cell_id) == (
        "東京証券取引所プライム市場",
        "TEST0001-0104010-tab10-r2c3",
    )


def test_accumulated_depreciation_printed_unsigned_is_answered_negative(small_engine):
    answer = _ask(
        small_engine,
        f"{COMPANY}の2020年時点における「建物、減価償却累計額及び減損損失累計額」は？",
        "TEST0001",
    )
    assert (answer.value, answer.evidence[0].cell_id) == ("-75000000", "TEST0001-0105010-tab7-r3c2")


def test_questions_without_sources_or_quoted_label_are_left_to_other_routes(small_engine):
    analyzer, answerer = small_engine
    assert (
        answerer.run(analyzer.run(Question("q", f"{COMPANY}の2020年時点における「長期前払費用」は？")))
        is None
    )
    assert _ask(small_engine, f"{COMPANY}の2020年の長期前払費用は？", "TEST0001") is None


def test_real_report_equity_statement_member_cell(shared_data, tmp_path):
    report = shared_data / "ntcir18-u4" / "reports" / "S100IXUZ"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "S100IXUZ").symlink_to(report, target_is_directory=True)
    settings = IndexSettings(tmp_path / "index")
    assert ingest(corpus, settings, workers=2, progress=False).exit_code == 0
    parts = _parts(settings)
    answer = _ask(
        parts,
        "塩野義製薬株式会社の2020年のNonControllingInterestsIFRSMemberにおける"
        "「支配継続子会社に対する持分変動、持分変動計算書」は？",
        "S100IXUZ",
    )
    assert ntcir_value(answer.value) == ntcir_value("-4187000000")
    assert answer.evidence[0].cell_id == "S100IXUZ-0105010-tab89-r25c9"
    individual = _ask(
        parts, "塩野義製薬株式会社の2019年の個別決算の「営業外費用」はいくらですか？", "S100IXUZ"
    )
    assert ntcir_value(individual.value) == ntcir_value("4565000000")
    assert individual.evidence[0].cell_id.startswith("S100IXUZ-0105020-")


@pytest.mark.parametrize(
    "member, label, expected",
    [
        ("KeijiYamamoto", "任期", "選任後1年"),
        ("KeijiYamamoto", "氏名", "山本 圭司"),
        ("MakotoTakahashi", "役職名", "代表取締役社長"),
        ("AndrewHouse", "任期", "選任後3年"),
    ],
)
def test_a_person_member_picks_the_officers_row_whose_name_reads_like_it(
    small_engine, member, label, expected
):
    answer = _ask(
        small_engine,
        f"{COMPANY}の2020年時点の{member}Memberにおける「{label}、役員の状況（取締役（及び監査役））」は？",
        "TEST0001",
    )
    assert answer.value == expected


def test_a_total_is_not_answered_from_the_per_share_row_whose_label_holds_it(small_engine):
    answer = _ask(
        small_engine,
        f"{COMPANY}の2020年における「当期純利益又は当期純損失（△）、経営指標等」は？",
        "TEST0001",
    )
    assert answer.evidence[0].cell_id == "TEST0001-0101010-tab2-r2c3"


def test_a_label_finds_the_row_the_field_list_words_otherwise(small_engine):
    # rules/fields.yaml: the index's return 株価指数における総利回り is printed as the comparison line (比較指標：…).
    answer = _ask(small_engine, f"{COMPANY}の2020年時点における「株価指数における総利回り」は？", "TEST0001")
    assert answer.evidence[0].cell_id == "TEST0001-0101010-tab2-r5c3"


def test_a_qualifier_after_the_colon_of_an_xbrl_label_is_read_where_the_report_prints_it_first(small_engine):
    text = f"{COMPANY}の2020年における「当期利益又は当期損失（△）：親会社の所有者に帰属、経営指標等」は？"
    assert _ask(small_engine, text, "TEST0001").evidence[0].cell_id == "TEST0001-0101010-tab2-r7c3"


@pytest.mark.parametrize(
    "member, expected",
    [
        ("ValuationAndTranslationAdjustments", "TEST0001-0105020-tab4-r3c4"),  # the group's own total column
        ("ValuationDifferenceOnAvailableForSaleSecurities", "TEST0001-0105020-tab4-r3c3"),
    ],
)
def test_a_member_named_by_a_group_header_takes_the_column_that_is_its_own(small_engine, member, expected):
    answer = _ask(
        small_engine, f"{COMPANY}の2020年の個別決算の{member}Memberにおける「当期首残高」は？", "TEST0001"
    )
    assert answer.evidence[0].cell_id == expected


@pytest.mark.parametrize(
    "member, label, expected",
    [
        (
            "EnergyReportableSegment",
            "減価償却費及び償却費",
            "TEST0001-0105010-tab8-r3c3",
        ),  # a row, under the caption
        ("BusinessReportableSegment", "減損損失", "TEST0001-0105010-tab9-r2c3"),  # a column
        (
            "InternationalTobaccoReportableSegment",
            "減損損失",
            "TEST0001-0105010-tab9-r2c5",
        ),  # by the term table
    ],
)
def test_a_segment_member_takes_the_row_or_column_that_names_its_words(small_engine, member, label, expected):
    answer = _ask(small_engine, f"{COMPANY}の2020年の{member}Memberにおける「{label}」は？", "TEST0001")
    assert answer.evidence[0].cell_id == expected


def test_a_member_is_read_without_its_suffix_and_silent_words():
    asked = CellQuestion.parse("2020年のDocumentSolutionsGroupReportableSegmentMemberにおける「売上高」は？")
    assert (asked.person, asked.spoken.sound) == ((), ("documentsorutions",))
    assert asked.spoken.likeness("ドキュメントソリューション") > 0.6 > asked.spoken.likeness("国内たばこ事業")
    assert CellQuestion.parse("2020年のKeijiYamamotoMemberにおける「氏名」は？").spoken is None


def test_a_bare_total_is_named_by_its_tables_title(small_engine):
    answer = _ask(
        small_engine,
        f"{COMPANY}の2020年時点における「有形固定資産、減価償却累計額及び減損損失累計額」は？",
        "TEST0001",
    )
    assert answer.evidence[0].cell_id == "TEST0001-0105010-tab7-r3c3"
    assert ntcir_value(answer.value) == ntcir_value("-95000000")


def test_a_person_member_picks_the_row_labelled_with_a_name_that_reads_like_it(small_engine):
    answer = _ask(
        small_engine,
        f"{COMPANY}の2020年時点のKeijiYamamotoMemberにおける「連結報酬等の総額、役員ごとの連結報酬等」は？",
        "TEST0001",
    )
    assert answer.evidence[0].cell_id == "TEST0001-0104010-tab9-r3c2"


def test_no_member_means_what_the_consolidated_statements_carry_not_a_segments_subtotal(small_engine):
    answer = _ask(small_engine, f"{COMPANY}の2020年における「外部顧客への売上高」は？", "TEST0001")
    assert answer.evidence[0].cell_id == "TEST0001-0105010-tab10-r3c6"


@pytest.fixture(scope="module")
def coverless_engine(tmp_path_factory):
    """The same report section without a cover, sidecar or file name that names its company."""
    settings, summary = _ingested(tmp_path_factory.mktemp("coverless"), "0105010")
    assert summary.total("facts_without_company") == summary.total("facts") > 0
    yield settings


def test_a_question_naming_the_document_is_answered_from_its_facts_without_a_company(coverless_engine):
    answer = _ask(
        _parts(coverless_engine),
        f"{COMPANY}の2020年における「流動資産合計、連結貸借対照表」は？",
        "TEST0001/",
    )
    assert (answer.value, answer.evidence[0].cell_id) == ("1500000000", "TEST0001-0105010-tab1-r2c3")
    assert answer.answer.startswith("当該企業の2020年の") and "为" not in answer.answer


def test_a_fact_without_a_company_never_answers_a_question_naming_a_company_but_no_document(coverless_engine):
    from qa.engine import Engine, EngineSettings

    with Engine(EngineSettings(index=coverless_engine)) as engine:
        answer = engine.answer(Question("q", f"{COMPANY}の2020年の流動資産合計はいくらですか？"))
    assert answer.value is None and "1500000000" not in answer.answer and "1,500" not in answer.answer


def test_a_two_line_label_spanning_two_rows_names_each_row_by_one_line():
    label = "株主総利回り (比較指標：配当込みTOPIX)"

    def cell(row: int, field: str = label, table: str = "T-0101010-tab5") -> _Cell:
        fact = CellFact(f"{table}-r{row}c3", field, "", 2024, "T/0101010", "", "1", "1", "", "1", "", "", "")
        return _Cell(fact, None, 1.0, (table, str(row)), row, field, "", {})

    pair = [cell(21), cell(22)]
    _split_spanned_labels(pair)
    assert [c.named for c in pair] == ["株主総利回り", "比較指標:配当込みTOPIX"]
    alone = [cell(21)]  # one row: the label is the row's own, both lines
    _split_spanned_labels(alone)
    assert alone[0].named == label
    empty = [cell(13, "貸倒引当金()"), cell(14, "貸倒引当金()")]  # an empty second line names no row
    _split_spanned_labels(empty)
    assert [c.named for c in empty] == ["貸倒引当金", "貸倒引当金()"]
    # rows of other labels, and the label's row in another table, neither part nor break the pair
    among = [cell(20, "売上高"), cell(21), cell(22), cell(23, "売上高"), cell(22, table="T-0101010-tab6")]
    _split_spanned_labels(among)
    assert [c.named for c in among] == ["売上高", "株主総利回り", "比較指標:配当込みTOPIX", "売上高", label]


def test_a_cell_is_told_hopeless_exactly_when_no_reading_of_the_label_names_it_as_well_as_the_floor():
    # rows and columns of a securities report's statements, notes and summary, each against every reading
    asked = CellQuestion.parse("2024年における「売上高、経営指標等」は？")
    rows = [
        "売上高",
        "売上高合計",
        "売上原価",
        "営業利益",
        "経常利益",
        "その他",
        "合計",
        "1株当たり配当額 (内1株当たり中間配当額)",
    ]
    columns = [
        "",
        "当連結会計年度",
        "前事業年度/売上高",
        "報告セグメント/計/(百万円)",
        "経営指標等",
        "第120期",
    ]
    readings = _Readings(asked, 0.45)
    told = {(row, column): readings.hopeless(row, column) for row in rows for column in columns}
    for (row, column), hopeless in told.items():
        exact = [_LabelMatch(label).of(row, column) for label, _ in asked.readings()]
        # a bare total (合計) is never hopeless: its table's titles may name it
        assert hopeless == (max(exact) < 0.45 and row != "合計"), (row, column)
        assert readings.of(row, column) == tuple(exact)
    assert 0 < sum(told.values()) < len(told)


def test_a_label_naming_column_and_row_together_is_read_whole_with_or_without_a_floor():
    # neither the row nor the column alone reaches the floor; together, in either order, they are the label
    for label in ("報告セグメント計売上高", "売上高報告セグメント計"):
        match = _LabelMatch(label)
        row, column = "売上高", "報告セグメント計"
        assert match.of(row, "") < 0.45
        assert match.of(row, column, 44.9) == match.of(row, column) == 1.0
    # a pair sharing few characters with the label stays below the floor
    assert _LabelMatch("報告セグメント計売上高").of("営業利益", "前期", 44.9) < 0.45


def test_the_best_cells_are_those_scoring_every_named_cell_ranks_first(small_engine):
    analyzer, answerer = small_engine
    unweighed = 0
    for text in (
        f"{COMPANY}の2020年における「売上高」は？",
        f"{COMPANY}の2020年における「減価償却累計額、工具、器具及び備品」は？",
        f"{COMPANY}の2020年の個別決算における「流動資産合計、貸借対照表」は？",
        f"{COMPANY}の2020年のCapitalStockMemberにおける「純資産、株主資本等変動計算書」は？",
    ):
        analysis = analyzer.run(Question("q", text, ("TEST0001/",)))
        asked = CellQuestion.parse(text, analysis.years, answerer.members)
        cells = answerer.candidates(asked, ("TEST0001/",), language=analysis.language)
        readings = _Readings(asked, answerer.settings.min_label)
        named = answerer._named(asked, cells, readings, False)
        every = answerer._best(asked, named, readings, set(), keep=len(named))
        assert len(named) > 3 and all(cell.parts is not None for cell, _ in named)
        for cell, _ in named:
            cell.score, cell.parts = 0.0, None
        best = answerer._best(asked, named, readings, set())
        assert [(c.fact.cell_id, c.score) for c in best] == [(c.fact.cell_id, c.score) for c in every[:3]], (
            text
        )
        unweighed += sum(cell.parts is None for cell, _ in named)
    assert unweighed  # cells that could not be among the best were never weighed whole


def test_a_title_names_a_label_only_when_it_prints_most_of_it():
    assert _titled("銘柄数", ("b.銘柄数及び貸借対照表計上額",)) == 1.0
    assert _titled("銘柄数", ("当事業年度において株式数が増加した銘柄",)) == 0.0


def test_a_context_word_naming_the_submitting_company_asks_for_its_own_figures():
    own = CellQuestion.parse(
        "テスト工業株式会社の2024年時点における「正規雇用労働者、労働者の男女の賃金の差異、提出会社の指標」は？"
    )
    assert own.own_figures and not own.individual
    assert not CellQuestion.parse("テスト工業株式会社の2024年時点における「正規雇用労働者」は？").own_figures


def test_a_column_of_a_measures_sum_is_no_total_column():
    assert _default_column("株式数の減少に係る売却価額の合計額（百万円）") == 0.0
    assert _default_column("純資産合計") > 0.0


def test_a_question_at_a_point_in_time_takes_a_balance_not_a_movement_of_the_year(small_engine):
    # その他 names a column of the balances and a movement row; 2020年時点 asks for the balance, in its column
    answer = _ask(
        small_engine,
        f"{COMPANY}の2020年時点における「その他、無形資産、償却累計額及び減損損失累計額」は？",
        "TEST0001",
    )
    assert (answer.value, answer.evidence[0].cell_id) == ("-126000000", "TEST0001-0105010-tab13-r8c3")


def test_a_member_word_of_one_character_names_only_a_header_that_is_it():
    # ReportableSegments is printed 計: the column 報告セグメント/計, never a column of 当連結会計年度
    assert _member_fit("計", "報告セグメント/計") == 1.0
    assert _member_fit("計", "当連結会計年度(自2023年３月１日至2024年２月29日)") == 0.0
    assert _member_fit("報告セグメント計", "報告セグメント計") == 1.0


def test_the_whole_equity_of_a_member_is_its_balance_in_the_statement_of_changes(small_engine):
    # 純資産 with CapitalStockMember: the 資本金 column's balance row; 当期首残高 of 2020 is the balance of 2019
    answer = _ask(
        small_engine, f"{COMPANY}の2019年時点の個別決算のCapitalStockMemberにおける「純資産」は？", "TEST0001"
    )
    assert (answer.value, answer.evidence[0].cell_id) == ("100000000", "TEST0001-0105020-tab4-r3c2")
