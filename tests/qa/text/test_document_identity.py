"""Documents' identities against the question's companies and period: agree, differ, unknown."""

from __future__ import annotations

import pytest

from core.errors import InputError
from core.identity import IdentityBook
from core.records import DocumentMeta
from qa.records import Analysis, Company, Question
from qa.text.document_identity import IdentityMatcher, IdentityWeights

UMC = "聯華電子股份有限公司"


@pytest.fixture()
def matcher(tmp_path):
    book = IdentityBook(tmp_path / "identities.json")
    sure = {
        "company": {"value": UMC, "confidence": 1.0, "source": "p1"},
        "period": {"value": "", "confidence": 1.0, "source": "p1"},
    }
    book.record(DocumentMeta("q1", company=UMC, year=2023, quarter=1, period="2023Q1"), sure)
    book.record(DocumentMeta("q3", company=UMC, year=2023, quarter=3, period="2023Q3"), sure)
    book.record(
        DocumentMeta("other", company="台達電子工業股份有限公司", year=2023, quarter=1, period="2023Q1"), sure
    )
    book.record(DocumentMeta("unknown"), {})
    return IdentityMatcher(
        book, IdentityWeights(company_boost=0.5, company_penalty=0.5, period_boost=0.2, period_penalty=0.5)
    )


def _asked(quarter=1) -> Analysis:
    return Analysis(
        Question("q", "聯電2023年第1季的營業利益"),
        "report_text",
        "test",
        years=(2023,),
        quarter=quarter,
        companies=(Company(UMC),),
    )


def test_agreeing_documents_are_boosted_differing_ones_lowered_unknown_ones_left(matcher):
    assert matcher.factor("q1", _asked())[0] == pytest.approx(1.5 * 1.2)
    assert matcher.factor("q3", _asked())[0] == pytest.approx(1.5 * 0.5)  # same company, other quarter
    assert matcher.factor("other", _asked())[0] == pytest.approx(0.5 * 1.2)
    assert matcher.factor("unknown", _asked()) == (1.0, "")
    assert matcher.factor("q3", _asked(quarter=0))[0] == pytest.approx(
        1.5 * 1.2
    )  # no quarter asked: the year agrees
    assert "period 2023Q3 differs" in matcher.factor("q3", _asked())[1]


def test_a_question_naming_nothing_moves_nothing(matcher):
    assert matcher.factor("q1", Analysis(Question("q", "保單借款"), "report_text", "test")) == (1.0, "")


def test_weights_are_checked():
    with pytest.raises(InputError):
        IdentityWeights(company_penalty=1.0)


def test_by_default_identity_only_demotes_documents_about_another_company_or_period(matcher):
    default = IdentityMatcher(matcher.book)
    assert default.factor("q1", _asked())[0] == 1.0  # agreeing: content decides among these and unknown ones
    assert default.factor("unknown", _asked())[0] == 1.0
    assert default.factor("q3", _asked())[0] < 1.0 and default.factor("other", _asked())[0] < 1.0
