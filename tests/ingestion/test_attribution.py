"""Companies for documents whose pages name none: by the names their text uses, never by text that only reads alike."""

from __future__ import annotations

import pytest

from core.identity import IdentityBook, IdentityRules
from core.records import Chunk, DocumentMeta
from ingestion.attribution import attribute_companies
from search.embedded import EmbeddedIndex
from search.settings import IndexSettings
from search.tokenize import Tokenizer

EVERGREEN = "長榮海運股份有限公司"
UMC = "聯華電子股份有限公司"
SHIPPING = (
    "合併公司透過新加坡商星展銀行開立保證信用狀，因新造船舶及貨櫃租賃需求向金融機構申請中長期貸款額度。"
)
FOUNDRY = "合併公司之晶圓代工產能與十二吋晶圓廠擴建計畫，設備採購承諾及矽智財授權合約。"
CSC = "中國鋼鐵股份有限公司"
CHT = "中華電信股份有限公司"
DOCUMENTS = {
    "finance/1": (EVERGREEN, SHIPPING + "船舶租賃"),
    "finance/2": (EVERGREEN, SHIPPING + "貨櫃"),
    "finance/3": (UMC, FOUNDRY + "依中華民國法令設立"),
    "finance/4": (UMC, FOUNDRY + "晶圓"),
    "finance/5": (
        "",
        "關係人交易：聯華電子投資之子公司與本公司間之晶圓銷貨。",
    ),  # names the company by its core name
    "finance/6": ("", SHIPPING),  # names no company, only reads like the shipping reports
    "finance/7": ("", "本頁空白之外別無他物。"),
    "finance/8": (CSC, "鋼鐵部門－包括中鋼公司、中龍公司，從事鋼鐵製品之製造。"),
    "finance/9": (CSC, "中鋼公司之子公司中鴻公司；中鋼公司提供背書保證。"),
    "finance/10": (
        "",
        "海運部門－包括中運公司；鋼鐵部門－包括中鋼公司、中龍公司。",
    ),  # the short name its reports use
    "finance/11": (
        "",
        "联华电子股份有限公司及子公司合并现金流量表",
    ),  # a scanned page read in Simplified characters
    "finance/12": ("聯莽電子股份有限公司", FOUNDRY),  # a scanned title misread by one character
    "finance/13": (CHT, "中華電信之行動通信業務"),
    "finance/14": (CHT, "中華電信之固網業務"),
    "finance/15": ("", "本公司依中華民國法令設立"),  # 中華 of 中華電信: other companies' reports write it too
    "finance/16": ("", "本公司對聯華電子股份有限公司提起告訴"),  # another party, named in full
}


def build(path, documents: dict[str, tuple[str, str]]) -> tuple[IdentityBook, EmbeddedIndex]:
    index = EmbeddedIndex(IndexSettings(path), Tokenizer())
    book = IdentityBook(path / "identities.json")
    for doc_id, (company, text) in documents.items():
        index.add([Chunk(f"{doc_id}#text0", doc_id, text, company=company)])
        findings = (
            {"company": {"value": company, "confidence": 0.9, "source": "p1: title"}} if company else {}
        )
        book.record(DocumentMeta(doc_id, company=company, kind="financial_report"), findings)
    index.commit()
    return book, index


@pytest.fixture()
def setup(tmp_path):
    book, index = build(tmp_path, DOCUMENTS)
    yield book, index
    index.close()


def test_a_document_naming_a_register_company_by_its_core_name_gets_it(setup):
    book, index = setup
    counts = attribute_companies(book, index, IdentityRules.load())
    row = book.get("finance/5")
    assert (
        row["company"] == UMC
        and row["findings"]["company"]["source"] == "register: its text names 聯華電子 1x"
    )
    assert row["findings"]["company"]["confidence"] == IdentityRules.load().register_confidence
    assert book.get("finance/11")["company"] == UMC
    assert counts["mentions"] == 3


def test_a_short_name_the_companys_own_reports_use_names_it(setup):
    book, index = setup
    attribute_companies(book, index, IdentityRules.load())
    assert book.get("finance/10")["company"] == CSC
    assert book.get("finance/10")["findings"]["company"]["source"] == "register: its text names 中鋼 1x"


def test_a_document_that_only_reads_like_others_or_names_another_party_stays_unknown(setup):
    book, index = setup
    counts = attribute_companies(book, index, IdentityRules.load())
    assert book.get("finance/6")["company"] == "" and book.get("finance/7")["company"] == ""
    assert book.get("finance/15")["company"] == "" and book.get("finance/16")["company"] == ""
    assert counts["unknown"] == 4


def test_a_name_misread_by_one_character_is_read_as_the_name_more_documents_write(setup):
    book, index = setup
    counts = attribute_companies(book, index, IdentityRules.load())
    row = book.get("finance/12")
    assert row["company"] == UMC and row["findings"]["company"]["value"] == "聯莽電子股份有限公司"
    assert counts["spelling"] == 1
    attribute_companies(book, index, IdentityRules.load())  # again: read from what the page wrote, not twice
    assert book.get("finance/12")["findings"]["company"] == {
        "value": "聯莽電子股份有限公司",
        "confidence": 0.9,
        "source": "p1: title",
        "read_as": UMC,
    }


def test_attribution_is_redone_from_scratch_each_run(setup):
    book, index = setup
    attribute_companies(book, index, IdentityRules.load())
    for doc_id in ("finance/3", "finance/4", "finance/12"):  # the register loses UMC
        book.documents[doc_id]["company"] = ""
        book.documents[doc_id]["findings"] = {}
    attribute_companies(book, index, IdentityRules.load())
    assert book.get("finance/5")["company"] != UMC


# A balance sheet line and the note that details it, in two excerpts of one report (the same three amounts).
FIGURES = {
    "finance/1": (UMC, "2180 應付帳款－關係人 七 24,809 - 28,525 - 40,029 - 2200 其他應付款 41,826,821"),
    "finance/2": (
        "",
        "應付關係人款項-關聯企業 $ 24,809 $ 28,525 $ 40,029 應收關係人款項 $ 18,293 $ 29,551 $ 53,784",
    ),
    "finance/3": ("", "關聯企業 18,293 29,551 53,784 合計"),  # shares figures only with finance/2
    "finance/4": (EVERGREEN, "短期借款 1,000 2,500 3,000 長期借款 9,396,555 995,423 169,970"),
    "finance/5": ("", "手續費 1,000 2,500 3,000"),  # small amounts recur by chance
    "finance/6": ("", "24,809 28,525 40,029 及 9,396,555 995,423 169,970"),  # as many runs of two companies
    "finance/7": (
        "",
        "本集團於民國110年9月出售部分聯華電子股票，處分利益列於保留盈餘",
    ),  # shares held: another company
}


def test_an_excerpt_writing_the_same_figures_in_a_row_as_a_named_report_gets_its_company(tmp_path):
    book, index = build(tmp_path, FIGURES)
    try:
        counts = attribute_companies(book, index, IdentityRules.load())
    finally:
        index.close()
    row = book.get("finance/2")
    assert row["company"] == UMC
    assert row["findings"]["company"] == {
        "value": UMC,
        "confidence": IdentityRules.load().figures_confidence,
        "source": "figures: amounts in a row as in finance/1 1x",
    }
    assert book.get("finance/3")["company"] == UMC  # through the excerpt placed so
    assert [book.get(f"finance/{n}")["company"] for n in (5, 6, 7)] == ["", "", ""]
    assert counts == {"spelling": 0, "figures": 2, "mentions": 0, "unknown": 3}
