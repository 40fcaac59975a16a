"""eval/score.py and eval/normalize.py: each task's figures, the FinGLM criteria, the CLI and its errors."""

from __future__ import annotations

import importlib.util
import json
import unicodedata

import pytest

from core.errors import InputError
from eval.normalize import as_number, flat_text, ntcir_value
from eval.score import FinglmGold, answers_match, contains_value, judge_finglm, main, score


def write_json(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_lines(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def pred(qid, answer="", *, value=None, documents=(), cells=(), qtype="lookup"):
    """One line of qa.run output."""
    return {
        "id": qid,
        "question": "",
        "answer": answer,
        "type": qtype,
        "route": f"{qtype}:test",
        "value": value,
        "documents": list(documents),
        "evidence": [{"doc": "d", "page": None, "text": "", "cell_id": c} for c in cells],
    }


# --- normalisation ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, normal",
    [
        ("△1,234百万円", "-1234000000.0000"),
        ("▲ 56 千円", "-56000.0000"),
        ("0百万円", "0.0000"),
        ("12.5％", "0.1250"),
        ("-0", "0.0000"),
        ("１２３円", "123.0000"),
        ("4.5倍", "4.5000"),
        ("取締役　青　木", "取締役青木"),
        (
            "1百万円2百万円",
            "10000002000000.0000",
        ),  # the official code replaces every 百万円, not only the last
    ],
)
def test_ntcir_value_follows_the_official_rules(raw, normal):
    assert ntcir_value(raw) == normal


def load_official_normalize(shared_data):
    """The organisers' normalize.py, imported from ../shared/data at test time only."""
    spec = importlib.util.spec_from_file_location(
        "ntcir_official_normalize", shared_data / "ntcir18-u4" / "table_qa_src_normalize.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.normalize_text


def test_ntcir_value_agrees_with_the_official_normaliser(shared_data):
    official = load_official_normalize(shared_data)
    gold = json.loads((shared_data / "ntcir18-u4" / "gold_dev.json").read_text(encoding="utf-8"))
    tricky = [
        "△1,234百万円",
        "0百万円",
        "50%%",
        "x%",
        "1e3株",
        "1_000",
        "nan",
        "inf",
        "△",
        "百万円",
        "２０２０年",
        " 1 , 234 ",
        "-0.00001",
        "▵3千",
        "10 %",
        "",
        "　",
        "3千円千",
    ]
    values = [v["value"] for v in gold.values()] + tricky + [v + "千円" for v in tricky]
    assert [ntcir_value(v) for v in values] == [official(v) for v in values]


def test_flat_text_and_numbers():
    assert flat_text(" 1，234\u3000元 ") == "1234元"
    assert as_number("1,234.5") == 1234.5 and as_number("-.5") == -0.5
    assert as_number("12%") is None and as_number("nan") is None


def test_answers_match_after_normalisation_or_within_relative_tolerance():
    assert answers_match("１，２３４元", "1234元")
    assert answers_match("0.12345", "0.123456")  # within 1e-4 relative
    assert not answers_match("0.1234", "0.1236")
    assert not answers_match("示例科技", "东方样本")


# --- aicup -----------------------------------------------------------------------------------------------------------


def test_aicup_precision_at_1_by_category_counts_missing_as_wrong(tmp_path):
    gold = write_json(
        tmp_path / "gold.json",
        {
            "ground_truths": [
                {"qid": 1, "retrieve": 392, "category": "insurance"},
                {"qid": 2, "retrieve": 83, "category": "insurance"},
                {"qid": 3, "retrieve": 7, "category": "finance"},
                {"qid": 4, "retrieve": 9, "category": "finance"},
            ]
        },
    )
    preds = write_lines(
        tmp_path / "pred.jsonl",
        [
            pred("1", documents=["insurance/392", "insurance/14"], qtype="report_text"),
            pred("2", documents=["insurance/14", "insurance/83"], qtype="report_text"),
            pred("3", documents=["7"], qtype="report_text"),
            pred("99", documents=["faq/1"]),
        ],
    )
    report = score(gold, preds)
    assert report.task == "aicup"
    by_category = report.to_json()["by_group"]
    assert by_category["insurance"]["p_at_1"]["score"] == 0.5
    assert by_category["finance"]["p_at_1"]["score"] == 0.5
    assert report.totals()["p_at_1"] == {"points": 2.0, "of": 4.0, "score": 0.5}
    assert report.missing == ["4"] and report.unknown == ["99"]


# --- ntcir -----------------------------------------------------------------------------------------------------------


def test_ntcir_value_and_cell_accuracy(tmp_path):
    gold = write_json(
        tmp_path / "gold.json",
        {
            "q5": {"cell_id": "S100IXUZ-0105010-tab89-r25c9", "value": "-4187000000"},
            "q11": {"cell_id": "S100IU0U-0101010-tab2-r12c3", "value": "35.88"},
            "q12": {"cell_id": "S100IU0U-0101010-tab2-r12c4", "value": "12.5%"},
            "q13": {"cell_id": "S100IU0U-0101010-tab2-r12c5", "value": "7"},
        },
    )
    preds = write_lines(
        tmp_path / "pred.jsonl",
        [
            pred("q5", "△4,187百万円です", value="△4,187百万円", cells=["S100IXUZ-0105010-tab89-r25c9"]),
            pred(
                "q11", "35.88円", value=None, cells=["S100IU0U-0101010-tab2-r12c2"]
            ),  # value from the answer
            pred(
                "q12", "0.125", value="0.13", cells=["", "S100IU0U-0101010-tab2-r12c4"]
            ),  # evidence[0] counts
        ],
    )
    report = score(gold, preds, "ntcir")
    totals = report.totals()
    assert totals["value"]["points"] == 2 and totals["cell_id"]["points"] == 1
    groups = report.to_json()["by_group"]
    assert groups["S100IXUZ"]["n"] == 1 and groups["S100IU0U"]["value"]["score"] == pytest.approx(1 / 3)
    assert report.missing == ["q13"]


# --- exact -----------------------------------------------------------------------------------------------------------


def test_exact_task_groups_by_gold_type_and_uses_value_or_answer(tmp_path):
    gold = write_lines(
        tmp_path / "gold.jsonl",
        [
            {"id": "a", "answer": "1,234.5元", "type": "lookup"},
            {"id": "b", "value": "0.3333", "type": "formula"},
            {"id": "c", "answer": "东方样本", "type": "ranking"},
        ],
    )
    preds = write_lines(
        tmp_path / "pred.jsonl",
        [
            pred("a", "示例科技2022年的营业收入是1234.5元", value="1234.5元"),
            pred("b", "流动比率为0.33333", value="0.33333"),
            pred("c", "示例科技", value="示例科技"),
        ],
    )
    report = score(gold, preds)
    assert report.task == "exact"
    assert [j.correct for j in report.judgements] == [True, True, False]
    assert set(report.to_json()["by_group"]) == {"lookup", "formula", "ranking"}


# --- finglm ----------------------------------------------------------------------------------------------------------

LOOKUP = {
    "id": 1,
    "type": "1",
    "question": "2021年中泰证券的利息支出是多少元?",
    "answer": ["中泰证券在2021年的利息支出是3309822042.69元"],
    "prompt": {
        "ent_short_name": "中泰证券",
        "ent_name": "中泰证券股份有限公司",
        "year": "2021",
        "key_word": "利息支出",
        "利息支出": "3309822042.69元",
        "prom_answer": "3309822042.69元",
    },
}
TWO_FIELDS = {
    "id": 2,
    "type": "1-2",
    "question": "",
    "answer": ["..."],
    "prompt": {
        "ent_short_name": "博彦科技",
        "ent_name": "博彦科技股份有限公司",
        "year": "2020",
        "key_word": "利润总额、净利润",
        "利润总额": "391095210.6元",
        "净利润": "342388849.22元",
        "prom_answer": "利润总额：391095210.6元；净利润：342388849.22元；",
    },
}
RATIO = {
    "id": 3,
    "type": "2-1",
    "question": "",
    "answer": ["..."],
    "prompt": {
        "研发费用": "241986307.9元",
        "净利润": "666947571.54元",
        "公式": "企业研发经费与利润比值=研发费用/净利润",
        "prom_answer": "0.36",
        "ent_short_name": "康尼机电",
        "ent_name": "南京康尼机电股份有限公司",
        "year": "2019",
        "key_word": "研发费用、净利润",
    },
}
SAME = {
    "id": 4,
    "type": "2-2",
    "question": "",
    "answer": ["..."],
    "prompt": {
        "year": "2020",
        "ent_name": "广东梅雁吉祥水电股份有限公司",
        "ent_short_name": "梅雁吉祥",
        "prom_answer": "相同",
        "2019年法定代表人": "张能勇",
        "2020年法定代表人": "张能勇",
        "key_word": "2019年法定代表人、2020年法定代表人",
    },
}
REPORT_TEXT = {
    "id": 5,
    "type": "3-1",
    "question": "",
    "answer": ["2019年江化微的销售客户呈现较高的集中度"],
    "prompt": {
        "ent_short_name": "江化微",
        "ent_name": "江阴江化微电子材料股份有限公司",
        "year": "2019",
        "key_word": "",
    },
}
OPEN = {
    "id": 6,
    "type": "3-2",
    "question": "什么是存货周转率？",
    "prompt": {},
    "answer": ["存货周转率是一个衡量企业存货管理效率的指标", "存货周转率是一个财务比率"],
}
NEGATIVE = {
    "id": 7,
    "type": "1",
    "question": "光云科技2019年的财务费用是多少元?",
    "answer": ["未查询到2019年光云科技的相关信息，无法回答该问题。"],
    "prompt": {
        "ent_short_name": "光云科技",
        "ent_name": "杭州光云科技股份有限公司",
        "year": "2019",
        "key_word": "无|不|没有|未|否|非|莫|抱歉|毋",
    },
}


def figures(row, answer):
    return {
        k: None if v is None else v[0] / v[1]
        for k, v in judge_finglm(FinglmGold.from_row(row), answer).items()
    }


def test_finglm_key_value_and_key_words_score_half_a_point():
    full = figures(LOOKUP, "2021年中泰证券的利息支出为3,309,822,042.69元。")
    assert (full["value"], full["key_words"], full["official"]) == (1, 1, 1)
    no_words = figures(LOOKUP, "3309822042.69元")
    assert (no_words["value"], no_words["key_words"], no_words["official"]) == (1, 0, 0.5)


def test_finglm_wrong_value_scores_zero_even_with_the_key_words():
    wrong = figures(LOOKUP, "2021年中泰证券的利息支出是13309822042.69元")
    assert (wrong["value"], wrong["key_words"], wrong["official"]) == (0, 1, 0)


def test_finglm_numeric_key_value_must_not_be_part_of_a_longer_number():
    assert contains_value("比值为0.36。", "0.36")
    assert not contains_value("比值为10.36", "0.36") and not contains_value("比值为0.365", "0.36")
    assert figures(RATIO, "2019年康尼机电研发费用与净利润的比值是0.36")["official"] == 1


def test_finglm_two_field_questions_need_every_field_value():
    both = figures(TWO_FIELDS, "2020年博彦科技的利润总额和净利润分别为391095210.6元和342388849.22元")
    one = figures(TWO_FIELDS, "2020年博彦科技的利润总额是391095210.6元，净利润不详")
    assert (both["official"], one["value"]) == (1, 0)


def test_finglm_same_is_not_found_in_not_same_and_year_prefixed_key_words_split():
    assert FinglmGold.from_row(SAME).key_words == ("法定代表人", "2019", "2020")
    assert figures(SAME, "2019年与2020年法定代表人都是张能勇，相同。")["official"] == 1
    assert figures(SAME, "2019年与2020年法定代表人不相同。")["value"] == 0
    assert figures(SAME, "2019年和2020年法定代表人是否相同？")["value"] == 0


def test_finglm_report_text_has_the_year_as_its_only_criterion_and_open_questions_none():
    with_year = figures(REPORT_TEXT, "江化微2019年前五名客户销售额占41.47%")
    assert (with_year["official"], with_year["value"], with_year["key_words"], with_year["negative"]) == (
        1,
        None,
        1,
        None,
    )
    assert figures(REPORT_TEXT, "前五名客户销售额占41.47%")["official"] == 0
    open_figures = figures(OPEN, "存货周转率是衡量存货管理效率的指标")
    assert open_figures["official"] is None and 0 < open_figures["bigram_f1"] < 1


def test_finglm_negative_questions_need_a_negative_word():
    assert FinglmGold.from_row(NEGATIVE).negative_words == (
        "无",
        "不",
        "没有",
        "未",
        "否",
        "非",
        "莫",
        "抱歉",
        "毋",
    )
    assert figures(NEGATIVE, "没有光云科技2019年的年报。")["official"] == 1
    assert figures(NEGATIVE, "光云科技2019年的财务费用是123.4元")["negative"] == 0


def test_finglm_report_by_type_with_missing_answers_and_the_semantic_part_not_computed(tmp_path, capsys):
    gold = write_lines(
        tmp_path / "A-list-answer.jsonl", [LOOKUP, TWO_FIELDS, RATIO, SAME, REPORT_TEXT, OPEN, NEGATIVE]
    )
    preds = write_lines(
        tmp_path / "pred.jsonl",
        [
            pred("1", "2021年中泰证券的利息支出是3309822042.69元"),
            pred("3", "2019年康尼机电研发费用与净利润的比值是10.36", qtype="formula"),
            pred("6", "存货周转率是一个衡量企业存货管理效率的指标", qtype="open"),
            pred("7", "未查询到光云科技2019年的年报"),
        ],
    )
    out = tmp_path / "figures.json"
    assert main(["--gold", str(gold), "--pred", str(preds), "--show-errors", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "semantic similarity (weight 0.5): not computed" in printed
    assert "missing predictions: 3 (counted wrong): 2, 4, 5" in printed
    assert "first 2 wrong:" in printed and "\n  2\t" in printed and "\n  3\t" in printed
    figures_json = json.loads(out.read_text(encoding="utf-8"))
    assert figures_json["task"] == "finglm" and figures_json["missing"] == ["2", "4", "5"]
    by_type = figures_json["by_group"]
    assert (
        by_type["1"]["n"] == 2
        and by_type["1"]["negative"]["score"] == 1
        and by_type["1"]["value"]["score"] == 1
    )
    assert by_type["2-1"]["official"]["score"] == 0
    assert by_type["3-2"]["official"] is None
    assert figures_json["by_predicted_type"]["(missing)"]["n"] == 3


# --- CLI errors ------------------------------------------------------------------------------------------------------


def test_bad_prediction_line_is_a_one_line_error_with_exit_2(tmp_path, capsys):
    gold = write_json(
        tmp_path / "gold.json", {"ground_truths": [{"qid": 1, "retrieve": 2, "category": "faq"}]}
    )
    preds = tmp_path / "pred.jsonl"
    preds.write_text(json.dumps(pred("1")) + "\n" + '{"id": 2, "answer": \n', encoding="utf-8")
    assert main(["--gold", str(gold), "--pred", str(preds)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {preds}:2: invalid JSON line") and err.count("\n") == 1


def test_gold_in_the_wrong_form_for_the_task_is_an_input_error(tmp_path):
    gold = write_json(tmp_path / "gold.json", {"q1": {"cell_id": "x", "value": "1"}})
    preds = write_lines(tmp_path / "pred.jsonl", [pred("q1", "1")])
    with pytest.raises(InputError, match="not the AI CUP gold form"):
        score(gold, preds, "aicup")
    with pytest.raises(InputError, match="cannot read"):
        score(tmp_path / "absent.json", preds)


def test_prediction_without_id_names_its_line(tmp_path):
    gold = write_lines(tmp_path / "gold.jsonl", [{"id": "a", "answer": "1"}])
    preds = write_lines(tmp_path / "pred.jsonl", [pred("a", "1"), {"answer": "2"}])
    with pytest.raises(InputError, match=r"pred.jsonl:2: prediction 2: expected an object with an \"id\""):
        score(gold, preds)


# --- against the real development gold -------------------------------------------------------------------------------


def test_aicup_and_ntcir_gold_scored_against_itself_is_perfect(shared_data, tmp_path):
    aicup_gold = shared_data / "aicup" / "ground_truths_dev.json"
    truths = json.loads(aicup_gold.read_text(encoding="utf-8"))["ground_truths"]
    preds = write_lines(
        tmp_path / "aicup.jsonl",
        [pred(str(t["qid"]), documents=[f"{t['category']}/{t['retrieve']}"]) for t in truths],
    )
    assert score(aicup_gold, preds).totals()["p_at_1"]["score"] == 1.0

    ntcir_gold = shared_data / "ntcir18-u4" / "gold_dev.json"
    gold = json.loads(ntcir_gold.read_text(encoding="utf-8"))
    preds = write_lines(
        tmp_path / "ntcir.jsonl",
        [pred(qid, g["value"], value=g["value"], cells=[g["cell_id"]]) for qid, g in gold.items()],
    )
    totals = score(ntcir_gold, preds).totals()
    assert (
        totals["value"]["score"] == 1.0
        and totals["cell_id"]["score"] == 1.0
        and totals["value"]["of"] == len(gold)
    )


def finglm_rows(shared_data):
    path = shared_data / "finglm" / "A-list-answer.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_finglm_negative_questions_are_the_company_years_without_a_report(shared_data):
    reports = set()
    for line in (shared_data / "finglm" / "A-list-txt-name.txt").read_text(encoding="utf-8").splitlines():
        parts = unicodedata.normalize("NFKC", line).split("__")
        reports.add((parts[1], parts[4][:4]))
    rows = [r for r in finglm_rows(shared_data) if r["prompt"]]
    negative = [r for r in rows if FinglmGold.from_row(r).negative_words]
    assert len(negative) == 22
    assert not any(
        (unicodedata.normalize("NFKC", r["prompt"]["ent_name"]), r["prompt"]["year"]) in reports
        for r in negative
    )


def test_finglm_key_values_match_the_reference_answers(shared_data, tmp_path):
    """The key-value reading of each type agrees with the references: a check of the definitions, not of an engine."""
    rows = finglm_rows(shared_data)
    for row in rows:
        if row["type"] == "1" and "prom_answer" in row["prompt"]:
            fields = [
                v
                for k, v in row["prompt"].items()
                if k not in ("ent_short_name", "ent_name", "year", "key_word", "prom_answer")
            ]
            assert fields == [row["prompt"]["prom_answer"]]
    gold = write_lines(tmp_path / "gold.jsonl", rows)
    preds = write_lines(tmp_path / "pred.jsonl", [pred(str(r["id"]), r["answer"][0]) for r in rows])
    report = score(gold, preds)
    by_type = report.to_json()["by_group"]
    assert report.task == "finglm" and not report.missing
    for qtype in ("1", "1-2", "2-1", "2-2"):
        assert by_type[qtype]["value"]["score"] >= 0.98, qtype
        assert by_type[qtype]["key_words"]["score"] >= 0.85, qtype
    assert by_type["3-1"]["value"] is None and by_type["3-2"]["official"] is None
    assert report.totals()["negative"] == {"points": 22, "of": 22, "score": 1.0}


# --- choice ----------------------------------------------------------------------------------------------------------


def test_choice_task_scores_letters_and_groups_by_question_kind(tmp_path):
    gold = write_json(
        tmp_path / "gold.json",
        {
            "q1": {"answer": "c", "law_ids": [], "file": "金商法_第2章_選択式_関連法令_問題番号57"},
            "q2": {"answer": "ｄ", "law_ids": [], "file": "金商法_第2章_選択式_根拠条文_問題番号58"},
            "q3": {"answer": "a", "law_ids": [], "file": "借地借家法_選択式_関連法令_問題番号1"},
        },
    )
    preds = write_lines(
        tmp_path / "pred.jsonl",
        [
            pred("q1", "c：…", value="c", qtype="multiple_choice"),
            pred("q2", "d：…", value="D", qtype="multiple_choice"),
        ],
    )
    report = score(gold, preds)
    assert report.task == "choice"
    assert [j.correct for j in report.judgements] == [True, True, False]
    assert report.missing == ["q3"]
    assert report.to_json()["by_group"]["related law"]["accuracy"]["score"] == 0.5


def test_choice_task_reads_the_lawqa_samples_form(tmp_path):
    gold = write_json(
        tmp_path / "selection.json", {"samples": [{"ファイル名": "x_根拠条文_1", "output": "b"}]}
    )
    preds = write_lines(tmp_path / "pred.jsonl", [pred("x_根拠条文_1", value="a", qtype="multiple_choice")])
    report = score(gold, preds, task="choice")
    assert [j.correct for j in report.judgements] == [False] and report.judgements[0].group == "which article"


def test_choice_task_prints_its_table_from_the_command_line(tmp_path, capsys):
    gold = write_json(tmp_path / "gold.json", {"q1": {"answer": "a", "law_ids": [], "file": "x_関連法令_1"}})
    preds = write_lines(tmp_path / "pred.jsonl", [pred("q1", value="a", qtype="multiple_choice")])
    assert main(["--gold", str(gold), "--pred", str(preds)]) == 0
    out = capsys.readouterr().out
    assert "question kind" in out and "related law" in out
