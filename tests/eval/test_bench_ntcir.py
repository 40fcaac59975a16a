"""eval/bench/ntcir.py: how the securities-report bench scores answers against gold cells and sorts its misses."""

from eval.bench.ntcir import Tally, error_kind, report_lines
from qa.records import Answer, Evidence, Question

GOLD = {"cell_id": "S100TU66-0104010-tab86-r4c5", "value": "0"}


def _answer(value: str | None, cell_id: str = "", route: str = "lookup:cell") -> Answer:
    evidence = [Evidence(doc="S100TU66", page=None, text="", cell_id=cell_id)] if cell_id else []
    return Answer(id="q", question="", answer="", type="lookup", route=route, value=value, evidence=evidence)


def test_error_kind_names_how_far_the_cell_is_from_the_gold_cell():
    gold = GOLD["cell_id"]
    assert error_kind(gold, gold, True, True) is None
    assert error_kind(gold, "", False, False) == "no answer"
    assert error_kind(gold, "S100TU66-0105010-tab86-r4c5", False, True) == "other document"
    assert error_kind(gold, "S100TU66-0104010-tab87-r4c5", False, True) == "other table"
    assert error_kind(gold, "S100TU66-0104010-tab86-r3c5", False, True) == "other row"
    assert error_kind(gold, "S100TU66-0104010-tab86-r4c4", False, True) == "other column"
    assert error_kind(gold, gold, False, True) == "value"


def test_tally_counts_values_normalised_cells_and_misses_per_report():
    tally = Tally()
    question = Question(
        id="q1", text="…「非監査業務に基づく報酬－連結子会社、監査公認会計士等」は？", sources=("S100TU66",)
    )
    tally.add(question, _answer("0", GOLD["cell_id"]), GOLD)
    # the right value in another table's cell: a value right, a cell wrong
    tally.add(question, _answer("0", "S100TU66-0104010-tab87-r4c5"), GOLD)
    tally.add(question, _answer("64000000", "S100TU66-0104010-tab87-r4c5"), GOLD)
    tally.add(question, _answer(None, route="negative:no_value"), GOLD)
    assert (tally.questions, tally.value_right, tally.cell_right) == (4, 2, 1)
    assert tally.value_accuracy == 0.5 and tally.cell_accuracy == 0.25
    assert dict(tally.kinds) == {"other table": 1, "no answer": 1}
    assert tally.wrong["other table"][0]["value"] == "64000000"
    assert tally.by_report == {"S100TU66": [1, 1, 0, 0]}
    assert tally.routes == {"lookup:cell": 3, "negative:no_value": 1}


def test_report_lines_score_each_fixed_half_against_its_target():
    lines = report_lines({"A": [1, 1], "B": [1, 0], "C": [0, 0]}, half_target=0.5)
    assert lines[0].startswith("half tune  (2 reports, 4 q): value accuracy 0.500") and "MET" in lines[0]
    assert lines[1].startswith("half check (1 reports, 2 q): value accuracy 0.500")
    assert "below 0.75" in lines[-1] and lines[-1].strip().startswith("C (tune)")
