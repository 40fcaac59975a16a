"""How the precision bench makes its probes and judges an answer: refused, correct or invented."""

from eval.bench.precision import Probe, judge, probes
from qa.records import Answer, Evidence, Question

GOLD = {
    "id": "L01",
    "type": "lookup",
    "value_kind": "number",
    "question": "贵州茅台2021年的营业收入是多少元?",
    "company": "贵州茅台",
    "full_name": "贵州茅台酒股份有限公司",
    "year": 2021,
    "field": "营业收入",
    "value": "106190154843.76",
}


def answer(value, text="", evidence=()):
    return Answer(
        id="q",
        question="",
        answer=text,
        type="lookup",
        route="lookup:facts",
        value=value,
        evidence=list(evidence),
    )


def test_each_development_lookup_gives_one_probe_of_each_kind_with_the_absent_part_swapped_in():
    listed = probes([GOLD], ["贵州燃气"], ["宁德时代", "中国中免"])
    made = {p.kind: p for p in listed}
    assert [p.question.text for p in listed if p.kind == "absent_company"] == [
        "贵州燃气2021年的营业收入是多少元?",
        "宁德时代2021年的营业收入是多少元?",
    ]  # a near miss and another
    assert made["fifth_quarter"].question.text == "贵州茅台2021年第五季度的营业收入是多少元?"
    assert made["absent_year"].question.text.startswith("贵州茅台2008年")
    assert made["absent_field"].asked in made["absent_field"].question.text
    assert made["mixed"].question.text == "贵州茅台和中国中免2021年的营业收入分别是多少元?"


def test_an_answer_is_refused_correct_or_invented():
    absent = Probe(Question("p", "贵州燃气2021年的营业收入是多少元?"), "absent_company", "贵州燃气", GOLD)
    assert judge(absent, answer(None, "抱歉")) == "refused"
    assert judge(absent, answer("1")) == "invented"
    mixed = Probe(Question("m", ""), "mixed", "中国中免", GOLD)
    assert judge(mixed, answer("106190154843.76", "…资料中没有中国中免的报告")) == "correct"
    assert (
        judge(mixed, answer("106190154843.76", "贵州茅台2021年的营业收入是…")) == "invented"
    )  # absent unnamed
    quarter = Probe(Question("q", ""), "quarter", "第三季度", GOLD)
    third = Evidence("d", 5, "", period="第三季度（7-9月份）")
    assert judge(quarter, answer("1", evidence=[third])) == "correct"
    assert judge(quarter, answer("1", evidence=[Evidence("d", 5, "", period="本期")])) == "invented"
