"""Document identity from any page: company, period, kind, with confidence and source line."""

from __future__ import annotations

import pytest

from core.errors import InputError
from core.identity import (
    IdentityBook,
    IdentityFinder,
    IdentityRules,
    normalise_dates,
    with_identity,
)
from core.records import DocumentMeta
from core.rulefile import data_dir


@pytest.fixture(scope="module")
def finder() -> IdentityFinder:
    return IdentityFinder(IdentityRules.load())


def test_chinese_numeral_dates_and_quarters_become_digits():
    assert normalise_dates("民國 一一二 年 九 月 三十 日，第 一 季") == "民國112年9月30日,第1季"


def test_statement_title_on_a_later_page_names_the_company_and_period(finder):
    pages = [
        "~73~\n八、質押之資產\n合併公司之資產提供擔保明細如下：",
        "聯 華 電 子 股 份 有 限 公 司 及 子 公 司\n合 併 資 產 負 債 表\n民國一一二年九月三十日、一一一年十二月三十一日及一一一年九月三十日",
    ]
    identity = finder.find(pages)
    assert (identity.company, identity.year, identity.quarter, identity.period) == (
        "聯華電子股份有限公司",
        2023,
        3,
        "2023Q3",
    )
    assert identity.findings["company"].source.startswith("p2: 聯華電子股份有限公司及子公司")
    assert identity.findings["company"].confidence == 0.9


def test_the_later_of_two_compared_periods_is_the_documents_own(finder):
    page = "長榮海運股份有限公司及子公司\n合併綜合損益表\n111年7月1日至9月30日 110年7月1日至9月30日\n民國 111 年及 110 年 1 月 1 日\n至 9 月 30 日"
    identity = finder.find([page])
    assert identity.period == "2022Q3"


def test_a_range_broken_over_two_lines_and_a_named_roc_quarter(finder):
    assert finder.find(["公司間之交易，故111年及110年1月1\n日至3月31日應報導之收入"]).period == "2022Q1"
    assert (
        finder.find(["統一企業股份有限公司及子公司\n合併財務報表附註\n民國 112 年及 111 年第 三季"]).period
        == "2023Q3"
    )


def test_comparative_balance_dates_name_the_quarter(finder):
    assert finder.find(["112年9月30日 111年12月31日 111年9月30日"]).period == "2023Q3"
    assert finder.find(["112 年及 111 年 9 月 30 日"]).period == "2023Q3"


def test_a_term_of_several_years_is_no_period(finder):
    assert finder.find(["興建期間預計自 112 年 7 月 1 日至 115 年 1 月 31 日"]).period == ""


def test_half_year_fiscal_year_western_and_japanese_periods(finder):
    assert finder.find(["民國112年及111年1月1日至6月30日"]).period == "2023H1"
    assert finder.find(["某某科技股份有限公司\n2023年年度报告"]).period == "2023FY"
    assert finder.find(["Revenue 2023 Q1 results"]).period == "2023Q1"
    assert finder.find(["自 令和4年4月1日 至 令和5年3月31日"]).period == "2023FY"
    assert finder.find(["自 2019年4月1日 至 2020年3月31日"]).period == "2020FY"
    assert finder.find(["自 平成31年4月1日 至 令和2年3月31日"]).period == "2020FY"


def test_balance_dates_alone_give_the_latest_written_twice(finder):
    page = (
        "截至民國 111 年 3 月 31 日及 110 年 3 月 31 日止，保證金額皆為 USD5,000。\n"
        "截至民國 111 年 3 月 31 日及 110 年 3 月 31 日止，貸款額度分別為 $80,454,217。\n"
        "借款到期日為 115 年 12 月 31 日"
    )
    identity = finder.find([page])
    assert identity.period == "2022Q1" and identity.findings["period"].confidence == 0.6


def test_a_date_written_once_counts_only_as_a_titles_own_line(finder):
    garbled = finder.find(
        ["in年3月31日1104*12月31日110年3月31日"]
    )  # this year's column head misread by the scan
    assert garbled.period == ""
    title = finder.find(["中國鋼鐵股份有限公司及子公司\n合併資產負債表\n民國 111 年 3 月 31 日"])
    assert title.period == "2022Q1" and title.findings["period"].confidence == 0.4


def test_a_quarter_in_which_something_happened_is_not_the_period(finder):
    page = "本公司於民國一一一年第一季取得之權益投資公平價值與非控制權益增加之差額為226,311仟元"
    assert finder.find([page]).period == ""
    assert (
        finder.find(["預計對111年第2季營收有影響"]).period == "2022Q2"
    )  # named, not dated: still read, at 0.7


def test_a_date_in_running_text_and_a_related_party_name_identify_nothing(finder):
    identity = finder.find(
        [
            "前項被保險人於民國九十九年二月三日以後所投保之喪葬費用保險金\n凱美電機股份有限公司（凱美電機） 關聯企業"
        ]
    )
    assert (identity.company, identity.period) == ("", "")


def test_document_kind_from_its_words(finder):
    assert (
        finder.find(["要保人應通知本公司，被保險人之保險金由受益人申領。保險契約"]).kind == "insurance_policy"
    )
    assert finder.find(["合併資產負債表\n合併綜合損益表\n現金流量表"]).kind == "financial_report"
    assert finder.find(["沒有線索的一頁"]).kind == ""


def test_the_cover_and_file_name_come_first_and_identity_fills_the_rest(finder):
    identity = finder.find(
        ["台達電子工業股份有限公司及子公司\n合併資產負債表\n民國112年及111年1月1日至3月31日"]
    )
    meta = with_identity(DocumentMeta("finance/1", code="2308"), identity)
    assert (meta.company, meta.code, meta.year, meta.period) == (
        "台達電子工業股份有限公司",
        "2308",
        2023,
        "2023Q1",
    )
    # a sure period overrides the cover's year; the file name's (or the sidecar's) year stands
    cover_year = with_identity(DocumentMeta("finance/1", year=2021), identity)
    assert (cover_year.year, cover_year.period) == (2023, "2023Q1")
    named = with_identity(DocumentMeta("finance/1", year=2021), identity, fixed={"year": 2021})
    assert (named.year, named.quarter, named.period) == (2021, 0, "2021")


def test_identities_persist_and_the_register_holds_confident_companies(tmp_path):
    book = IdentityBook(tmp_path / "identities.json")
    book.record(
        DocumentMeta("finance/1", company="聯華電子股份有限公司", year=2023, quarter=1, period="2023Q1"),
        {"company": {"value": "聯華電子股份有限公司", "confidence": 0.9, "source": "p1: …"}},
    )
    book.record(
        DocumentMeta("finance/2", company="凱美電機股份有限公司"),
        {"company": {"value": "凱美電機股份有限公司", "confidence": 0.5, "source": "p1: …"}},
    )
    book.save()
    again = IdentityBook.load(tmp_path / "identities.json")
    assert again.get("finance/1")["period"] == "2023Q1"
    assert again.register() == {"聯華電子股份有限公司": "聯華電子"}


def test_a_bad_identity_pattern_points_to_its_line(tmp_path):
    text = (data_dir("rules") / "documents.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "documents.yaml"
    assert "\n  company:\n" in text
    broken.write_text(
        text.replace(
            "\n  company:\n", "\n  company:\n    - pattern: '(?P<company>(('\n      confidence: 0.9\n", 1
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as error:
        IdentityRules.load(broken)
    line = next(
        i
        for i, row in enumerate(broken.read_text(encoding="utf-8").splitlines(), 1)
        if "(?P<company>((" in row
    )
    assert f":{line}:" in str(error.value) and "bad regex" in str(error.value)


def test_real_excerpts_without_a_cover(shared_data, finder):
    from parser.page_texts import pdf_page_texts

    folder = shared_data / "aicup" / "reference" / "finance"
    notes = finder.find(
        pdf_page_texts(folder / "22.pdf", 50)
    )  # a notes page: only its running header names the company
    assert notes.company == "聯發科技股份有限公司" and notes.findings["company"].source.startswith(
        "p1: 聯發科技"
    )
    statement = finder.find(pdf_page_texts(folder / "119.pdf", 50))  # spaced title, a period in two columns
    assert (statement.company, statement.period) == ("智邦科技股份有限公司", "2023Q3")


def test_a_year_from_the_cover_is_a_weak_finding_and_one_from_the_file_name_a_sure_one(finder):
    from core.identity import COVER_CONFIDENCE, findings_of

    identity = finder.find(["聯發科技股份有限公司及子公司合併財務報表附註(續)"])  # a notes page: no period
    cover = with_identity(DocumentMeta("finance/1", year=2022), identity)
    assert findings_of(cover, identity)["period"] == {
        "value": "2022",
        "confidence": COVER_CONFIDENCE["period"],
        "source": "cover",
    }
    named = with_identity(DocumentMeta("finance/1", year=2022), identity, fixed={"year": 2022})
    assert findings_of(named, identity, {"year": 2022})["period"]["confidence"] == 1.0
    assert findings_of(named, identity)["company"]["source"].startswith("p1: 聯發科技")


def test_a_short_name_is_what_the_text_defines_never_this_company(finder):
    assert finder.find(["統一企業股份有限公司(以下簡稱「統一」)"]).short_name == "統一"
    assert finder.find(["台達電子工業股份有限公司 (以下簡稱「 本公司」)於中華民國設立"]).short_name == ""


def test_the_words_for_this_company_are_no_short_name_but_still_name_the_company(finder):
    for text in (
        "四方科技集团股份有限公司（以下简称公司或本公司）系由",
        "金宇生物技术股份有限公司（以下简称“公司”）是",
        "金宇生物技术股份有限公司（以下简称“本公司”或“公司”）",
    ):
        found = finder.find([text])
        assert found.short_name == "" and found.company.endswith("股份有限公司"), text
    assert finder.find(["贵州茅台酒股份有限公司(以下简称“贵州茅台”)财务报表"]).short_name == "贵州茅台"


def test_a_holding_without_a_legal_form_and_the_auditors_addressee_name_the_company(finder):
    title = finder.find(
        ["- 4 -\n亞 德 客 國 際 集 團 及 其 子公司\n合 併 資 產 負 債 表\n民國 112 年 3 月 31 日"]
    )
    assert (title.company, title.period) == ("亞德客國際集團", "2023Q1")
    scanned = finder.find(
        [
            "Deloitte 勤業眾信聯合會計師事務所 會計師核閱報告國巨股份有,限公司”公鑒:前言國巨股份有限公司"
            "及其子公司 (國巨集團) 民國 111 年及 110年9月30日之合併資產負債表"
        ]
    )
    assert scanned.company == "國巨股份有限公司" and scanned.findings["company"].source.startswith(
        "p1: Deloitte"
    )
    ocr = finder.find(["(111)財審報字第 22002217 號鴻海精密工業股份有限公司”公鑒:"])
    assert ocr.company == "鴻海精密工業股份有限公司"
    for line in ("非衍生金融負債剩餘合約到期分析係依本公司及子公司", "本公司及子公司"):
        assert finder.find([line]).company == ""


def test_a_company_name_alone_in_a_table_names_no_document(finder):
    page = "序號\n鴻海精密\n亞太電信股份有限公司\n112年1月1日至3月31日"  # a cell of a table of subsidiaries
    assert finder.find([page]).company == ""


def test_column_heads_of_months_and_dotted_dates_name_the_quarter(finder):
    assert finder.find(["112年7至9月 111年7至9月\n淨利(損)"]).period == "2023Q3"
    assert finder.find(["金融資產 112.09.30 111.12.31 111.09.30"]).period == "2023Q3"


def test_the_date_a_report_was_approved_or_reviewed_names_the_quarter_before(finder):
    approved = finder.find(["本 合併 財 務報 告已 於 112 年 10 月 30 日經 母公 司董 事會 通 過後 發布。"])
    assert approved.period == "2023Q3" and approved.findings["period"].confidence == 0.7
    assert finder.find(["(請參閱勤業眾信聯合會計師事務所民國 111 年 4 月 28 日核閱報告)"]).period == "2022Q1"
    assert finder.find(["(請參閱會計師民國 112 年 3 月 10 日查核報告)"]).period == "2022FY"


def test_a_report_referred_to_and_a_contracts_end_are_not_the_period(finder):
    page = (
        "本合併財務報告所採用之會計政策與民國111年度合併財務報告相同\n"
        "合約有效期間自民國 110 年 3 月 1 日至民 國 113 年 12 月 31 日，截至 民國 112 年 9 月 30 日前述款項"
    )
    identity = finder.find([page])
    assert identity.period == "2023Q3" and identity.findings["period"].source.startswith("p1: 合約有效期間")


def test_a_year_run_into_the_number_before_it_is_read_from_its_last_digits(finder):
    assert finder.find(["$ 293,104 $ 174,121111年1月1日至3月31日110年1月1日至3月31日"]).period == "2022Q1"


def test_the_annual_report_an_interim_one_refers_to_gives_the_year_after(finder):
    identity = finder.find(["本期無重大變動，請參閱民國 111 年度財務報表附註十二。"])
    assert (identity.year, identity.quarter, identity.period) == (2023, 0, "2023")


def test_a_title_the_text_layer_put_mid_page_names_the_company_and_related_party_rows_do_not(finder):
    title = "\n".join(
        ["股本保留盈餘其他權益項目"] * 10
        + ["聯華電子股份有限公司及子公司", "合併權益變動表", "民國112年及111年1月1日至9月30日"]
    )
    assert finder.find([title]).company == "聯華電子股份有限公司"
    rows = "關係人名稱與本集團之關係\n樺漢科技股份有限公司及其子公司 〃\n天鈺科技股份有限公司及其子公司註1\n河南中富康數顯有限公司關聯企業"
    assert finder.find([rows]).company == ""


def test_a_range_that_ends_in_no_quarter_end_is_no_period(finder):
    assert finder.find(["暨民國111年及110年1月1日至8月31日之合併綜合損益表"]).period == ""


def test_column_heads_split_by_the_text_layer_give_no_earlier_range(finder):
    page = "111年7月1日110年7月1日111年1月1日110年1月1日至9月30日至9月30日\n關係人名稱111年9月30日110年12月31日110年9月30日"
    assert finder.find([page]).period == "2022Q3"
