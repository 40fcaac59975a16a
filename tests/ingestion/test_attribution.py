"""Companies for documents whose pages name none: by name mentions, else by the most similar documents."""
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
SHIPPING = "合併公司透過新加坡商星展銀行開立保證信用狀，因新造船舶及貨櫃租賃需求向金融機構申請中長期貸款額度。"
FOUNDRY = "合併公司之晶圓代工產能與十二吋晶圓廠擴建計畫，設備採購承諾及矽智財授權合約。"
DOCUMENTS = {
    "finance/1": (EVERGREEN, SHIPPING + "船舶租賃"),
    "finance/2": (EVERGREEN, SHIPPING + "貨櫃"),
    "finance/3": (UMC, FOUNDRY),
    "finance/4": (UMC, FOUNDRY + "晶圓"),
    "finance/5": ("", "關係人交易：聯華電子投資之子公司與本公司間之晶圓銷貨。"),  # names the company by its core name
    "finance/6": ("", SHIPPING),  # names no company, reads like the shipping reports
    "finance/7": ("", "本頁空白之外別無他物。"),
}


@pytest.fixture()
def setup(tmp_path):
    index = EmbeddedIndex(IndexSettings(tmp_path), Tokenizer())
    book = IdentityBook(tmp_path / "identities.json")
    for doc_id, (company, text) in DOCUMENTS.items():
        index.add([Chunk(f"{doc_id}#text0", doc_id, text, company=company)])
        findings = {"company": {"value": company, "confidence": 0.9, "source": "p1: title"}} if company else {}
        book.record(DocumentMeta(doc_id, company=company, kind="financial_report"), findings)
    index.commit()
    yield book, index
    index.close()


def test_a_document_naming_a_register_company_by_its_core_name_gets_it(setup):
    book, index = setup
    counts = attribute_companies(book, index, IdentityRules.load())
    row = book.get("finance/5")
    assert row["company"] == UMC and row["findings"]["company"]["source"].startswith("register: its text names 聯華電子")
    assert row["findings"]["company"]["confidence"] == IdentityRules.load().register_confidence
    assert counts["mentions"] == 1


def test_a_document_naming_none_gets_the_company_of_the_most_similar_documents_with_low_confidence(setup):
    book, index = setup
    counts = attribute_companies(book, index, IdentityRules.load())
    row = book.get("finance/6")
    assert row["company"] == EVERGREEN and row["findings"]["company"]["source"].startswith("similar text:")
    assert row["findings"]["company"]["confidence"] <= 0.5
    assert book.get("finance/7")["company"] == "" and counts["unknown"] == 1


def test_attribution_is_redone_from_scratch_each_run(setup):
    book, index = setup
    attribute_companies(book, index, IdentityRules.load())
    book.documents["finance/1"]["company"] = book.documents["finance/2"]["company"] = ""  # the register loses Evergreen
    attribute_companies(book, index, IdentityRules.load())
    assert book.get("finance/6")["company"] != EVERGREEN
