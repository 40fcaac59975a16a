"""How the annual bench judges an answer, and the fixed halves benches report."""

import pytest

from eval.bench._data import fixed_halves
from eval.bench.annual import judge
from qa.records import Answer


def answer(value, text=""):
    return Answer(
        id="q", question="", answer=text or str(value), type="lookup", route="lookup:facts", value=value
    )


@pytest.mark.parametrize(
    "value, ok",
    [("106190154843.76", True), ("106,190,154,843.76元", True), ("106190154843.7", False), (None, False)],
)
def test_a_number_matches_at_the_golds_decimals(value, ok):
    gold = {"type": "lookup", "value_kind": "number", "value": "106190154843.76", "decimals": 2}
    assert judge(gold, answer(value)) is ok


def test_a_sign_free_question_compares_amounts():
    gold = {
        "type": "compare_years",
        "value_kind": "number",
        "value": "1200.5",
        "decimals": 2,
        "sign_free": True,
    }
    assert judge(gold, answer("-1200.50"))


def test_yes_no_reads_same_and_not_same():
    assert judge({"type": "compare_years", "value_kind": "yesno", "value": "否"}, answer("不相同"))
    assert not judge({"type": "compare_years", "value_kind": "yesno", "value": "是"}, answer("不相同"))
    assert judge({"type": "compare_years", "value_kind": "yesno", "value": "是"}, answer("相同"))


def test_companies_must_all_be_named_in_order():
    gold = {
        "type": "ranking",
        "value_kind": "companies",
        "value": "",
        "companies": ["甲", "乙"],
        "full_names": ["甲公司", "乙公司"],
    }
    assert judge(gold, answer("甲公司、乙公司"))
    assert not judge(gold, answer("乙公司、甲公司"))


def test_report_text_needs_every_key_word():
    gold = {"type": "report_text", "value_kind": "text", "value": "…", "keywords": ["茅台酒", "系列酒"]}
    assert judge(gold, answer(None, "公司主要业务是茅台酒及系列酒的生产与销售"))
    assert not judge(gold, answer(None, "公司主要业务是茅台酒的生产"))


def test_fixed_halves_alternate_over_sorted_keys():
    assert fixed_halves(["d", "b", "a", "c", "e"]) == (frozenset("ace"), frozenset("bd"))
