"""`python -m eval.score`: score `python -m qa.run` output against a data set's gold answers.

    python -m eval.score --gold GOLD --pred PRED [--task finglm|aicup|ntcir|exact|choice]
                         [--show-errors N] [--json OUT]

PRED is qa.run's JSON lines ({"id", "question", "answer", "type", "route",
"value", "documents", "evidence"}). Without --task the task is told from the
gold file's form. A question without a prediction counts as wrong and is
listed; predictions without gold are counted and ignored. Exit 0 when scored,
2 on a bad file (one line naming the file and line).

Tasks:

aicup   GOLD = ground_truths_dev.json {"ground_truths": [{qid, retrieve, category}]}.
        Precision@1 by category: documents[0] is f"{category}/{retrieve}" (the
        corpus-relative document id), or the bare id, or ends with
        f"/{category}/{retrieve}".
ntcir   GOLD = gold_dev.json {id: {cell_id, value}}. Value accuracy with the task's
        official normalisation (eval.normalize.ntcir_value) of the prediction's
        "value" (its "answer" when value is null), and cell-id accuracy of
        evidence[0].cell_id. Grouped by report (the doc id the cell belongs to).
exact   GOLD = JSON lines {"id", "answer"} (or "value"), optional "type"/"category"
        to group by. Equal after NFKC, whitespace and comma removal, or both
        numbers within a relative tolerance of 1e-4.
choice  GOLD = lawqa_jp gold_dev.json {id: {answer}} (a letter), the lawqa_jp
        {"samples": [{"ファイル名", "output"}]} form, or JSON lines {"id", "answer"}.
        Accuracy of the chosen letter (the prediction's "value"), grouped by
        the gold row's "file" kind (関連法令 / 根拠条文) where it has one.
finglm  GOLD = A-list-answer.jsonl. The official FinGLM criteria, per question:
        0.25 if the key value appears in the answer, +0.25 if every key word and
        the year appear too, +0.5 x semantic similarity to the references. A
        wrong (absent) key value scores 0 for the whole question.

How the FinGLM criteria are read from the gold rows (worked out from the data;
"appears" is a substring test after NFKC and removal of whitespace and commas
on both sides, because gold values carry stray spaces the references drop,
e.g. "无终西街3129 号", "CO., LTD."):

- key value, by type:
  1    prom_answer, which equals the one field value ("3309822042.69元", "17",
       an e-mail address);
  1-2  every field value of the prompt (prom_answer is a "字段：值；" listing that
       no reference reproduces);
  2-1  prom_answer, the computed result ("51.44%", "0.36"); the formula inputs
       listed in the prompt are not required;
  2-2  prom_answer, "相同" or "不相同";
  3-1, 3-2  none: only the key-word part applies.
  A key value that begins or ends with a digit must not be part of a longer
  number ("0.36" is not found in "10.36" or "0.365"), and one that begins with
  a Chinese character must not follow 不 or 否 ("相同" is not found in
  "不相同" or "是否相同"): the official plain substring test would credit those
  wrong values.
- key words: key_word split on "、", plus the prompt's year. A key word of the
  form "2019年法定代表人" (type 2-2) counts as the word "法定代表人" and the
  year "2019", the way the references write it. 3-1 rows have no key words
  (the year alone); 3-2 rows have neither, so no official part applies to them.
- negative questions: the company-year has no report (A-list-txt-name.txt);
  the gold marks them with key_word "无|不|没有|未|否|非|莫|抱歉|毋" and no
  prom_answer. The answer must contain one of those words; that one test
  stands for the value and the key-word criteria (the references, e.g.
  "未查询到该公司该年份的年报信息，无法回答您的问题。", name no year).

The semantic part (weight 0.5) needs the organisers' embedding model, which we
do not have: it is reported as not computed. The "bigram F1" column (best
character-bigram F1 against the references) is a lexical stand-in for it, kept
apart from the official figures.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.command_names import command_name
from core.errors import InputError
from core.logs import add_verbosity, configure
from eval.normalize import as_number, flat_text, ntcir_value
from qa.io.questions import JsonFile, read_json

TASKS = ("finglm", "aicup", "ntcir", "exact", "choice")
MISSING = "(missing)"
RELATIVE_TOLERANCE = 1e-4

# A score is (points, attainable points); None when the metric does not apply to the question.
Score = tuple[float, float]


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    rate: bool = True  # True: 0/1 per question, shown with its count; False: points


@dataclass
class Judgement:
    """One gold question, judged against its prediction."""

    id: str
    group: str  # what the table groups by: category, type, report
    scores: dict[str, Score | None]
    correct: bool  # every criterion that applies was met (--show-errors lists the others)
    gold: str
    predicted: str
    pred_type: str  # the engine's question type; MISSING when there is no prediction


@dataclass
class Report:
    task: str
    metrics: tuple[Metric, ...]  # the first is the headline figure
    judgements: list[Judgement]
    missing: list[str]  # gold ids without a prediction (counted wrong)
    unknown: list[str]  # prediction ids without gold (ignored)
    notes: tuple[str, ...] = ()

    def totals(self, judgements: list[Judgement] | None = None) -> dict[str, dict[str, float] | None]:
        """Per metric: points, attainable and their ratio over `judgements` (default: all)."""
        rows = self.judgements if judgements is None else judgements
        out: dict[str, dict[str, float] | None] = {}
        for metric in self.metrics:
            scores = [j.scores.get(metric.key) for j in rows]
            scores = [s for s in scores if s is not None]
            attainable = sum(s[1] for s in scores)
            if not attainable:
                out[metric.key] = None
                continue
            points = sum(s[0] for s in scores)
            out[metric.key] = {"points": points, "of": attainable, "score": points / attainable}
        return out

    def groups(self, key: Callable[[Judgement], str]) -> dict[str, list[Judgement]]:
        grouped: dict[str, list[Judgement]] = defaultdict(list)
        for judgement in self.judgements:
            grouped[key(judgement)].append(judgement)
        return dict(sorted(grouped.items()))

    def to_json(self) -> dict[str, Any]:
        def block(rows: list[Judgement]) -> dict[str, Any]:
            return {"n": len(rows), **self.totals(rows)}

        return {
            "task": self.task,
            "questions": len(self.judgements),
            "correct": sum(j.correct for j in self.judgements),
            "overall": block(self.judgements),
            "by_group": {g: block(rows) for g, rows in self.groups(lambda j: j.group).items()},
            "by_predicted_type": {g: block(rows) for g, rows in self.groups(lambda j: j.pred_type).items()},
            "missing": self.missing,
            "unknown_predictions": len(self.unknown),
            "metrics": {m.key: m.label for m in self.metrics},
            "notes": list(self.notes),
        }


# --- predictions -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    id: str
    answer: str
    value: str | None
    type: str
    documents: tuple[str, ...]
    cell_ids: tuple[str, ...]  # evidence cell ids in evidence order ("" for evidence without one)


def load_predictions(path: Path) -> dict[str, Prediction]:
    """qa.run's JSON lines (a JSON list works too), by id; InputError at the offending line."""
    source = read_json(path)
    rows = source.data if isinstance(source.data, list) else [source.data]
    predictions: dict[str, Prediction] = {}
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or "id" not in row:
            raise source.error(
                f'prediction {index + 1}: expected an object with an "id" (qa.run output)', index
            )
        qid = str(row["id"])
        if qid in predictions:
            raise source.error(f"prediction {index + 1}: id {qid!r} appears twice", index)
        documents, evidence = row.get("documents") or [], row.get("evidence") or []
        if not isinstance(documents, list) or not isinstance(evidence, list):
            raise source.error(f'prediction {qid!r}: "documents" and "evidence" must be lists', index)
        value = row.get("value")
        predictions[qid] = Prediction(
            id=qid,
            answer=str(row.get("answer") or ""),
            value=None if value is None else str(value),
            type=str(row.get("type") or "?"),
            documents=tuple(str(d) for d in documents),
            cell_ids=tuple(str(e.get("cell_id") or "") if isinstance(e, dict) else "" for e in evidence),
        )
    return predictions


# --- aicup ---------------------------------------------------------------------------------------------------------


def _score_aicup(gold: JsonFile, predictions: dict[str, Prediction]) -> Report:
    rows = gold.data.get("ground_truths") if isinstance(gold.data, dict) else None
    if not isinstance(rows, list):
        raise gold.error('not the AI CUP gold form {"ground_truths": [{"qid", "retrieve", "category"}]}')
    metric = Metric("p_at_1", "P@1")
    judgements = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not {"qid", "retrieve"} <= row.keys():
            raise gold.error(f'ground truth {index + 1}: needs "qid" and "retrieve"')
        qid, retrieve, category = str(row["qid"]), str(row["retrieve"]), str(row.get("category") or "")
        wanted = f"{category}/{retrieve}" if category else retrieve
        prediction = predictions.get(qid)
        top = prediction.documents[0] if prediction and prediction.documents else ""
        hit = top in (wanted, retrieve) or top.endswith(f"/{wanted}")
        judgements.append(
            Judgement(
                qid,
                category or "?",
                {metric.key: (float(hit), 1.0)},
                hit,
                wanted,
                top if prediction else MISSING,
                _pred_type(prediction),
            )
        )
    return _report("aicup", (metric,), judgements, predictions)


# --- ntcir ---------------------------------------------------------------------------------------------------------


def _score_ntcir(gold: JsonFile, predictions: dict[str, Prediction]) -> Report:
    if not isinstance(gold.data, dict) or not all(isinstance(v, dict) for v in gold.data.values()):
        raise gold.error('not the NTCIR gold form {id: {"cell_id", "value"}}')
    value_metric, cell_metric = Metric("value", "value acc"), Metric("cell_id", "cell_id acc")
    judgements = []
    for qid, row in gold.data.items():
        if "value" not in row:
            raise gold.error(f'question {qid!r}: no "value"')
        gold_value, gold_cell = str(row["value"]), str(row.get("cell_id") or "")
        prediction = predictions.get(qid)
        if prediction is None:
            predicted, cell = MISSING, ""
            value_ok = False
        else:
            predicted = prediction.value if prediction.value is not None else prediction.answer
            cell = prediction.cell_ids[0] if prediction.cell_ids else ""
            value_ok = ntcir_value(predicted) == ntcir_value(gold_value)
        cell_ok = bool(gold_cell) and cell == gold_cell
        scores = {
            value_metric.key: (float(value_ok), 1.0),
            cell_metric.key: (float(cell_ok), 1.0) if gold_cell else None,
        }
        report_id = gold_cell.split("-")[0] if gold_cell else "?"
        judgements.append(
            Judgement(
                str(qid),
                report_id,
                scores,
                value_ok,
                f"{gold_value} [{gold_cell}]",
                predicted if prediction is None else f"{predicted} [{cell}]",
                _pred_type(prediction),
            )
        )
    return _report("ntcir", (value_metric, cell_metric), judgements, predictions)


# --- exact ---------------------------------------------------------------------------------------------------------


def answers_match(predicted: str, gold: str) -> bool:
    """Equal after NFKC/whitespace/comma normalisation, or numbers within RELATIVE_TOLERANCE."""
    if flat_text(predicted) == flat_text(gold):
        return True
    a, b = as_number(predicted), as_number(gold)
    return a is not None and b is not None and math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE)


def _score_exact(gold: JsonFile, predictions: dict[str, Prediction]) -> Report:
    rows = gold.data if isinstance(gold.data, list) else [gold.data]
    metric = Metric("exact", "exact")
    judgements = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or "id" not in row or not ({"answer", "value"} & row.keys()):
            raise gold.error(f'gold entry {index + 1}: expected {{"id", "answer"}} (or "value")', index)
        qid = str(row["id"])
        wanted = str(row["answer"] if row.get("answer") is not None else row.get("value"))
        prediction = predictions.get(qid)
        if prediction is None:
            predicted, ok = MISSING, False
        else:
            predicted = prediction.value if prediction.value is not None else prediction.answer
            ok = answers_match(predicted, wanted) or answers_match(prediction.answer, wanted)
        group = str(row.get("type") or row.get("category") or "all")
        judgements.append(
            Judgement(
                qid, group, {metric.key: (float(ok), 1.0)}, ok, wanted, predicted, _pred_type(prediction)
            )
        )
    return _report("exact", (metric,), judgements, predictions)


def _choice_rows(gold: JsonFile) -> list[tuple[str, str, str]]:
    """(id, letter, group) of each gold question, whatever form the file has."""
    data = gold.data
    if isinstance(data, dict) and isinstance(data.get("samples"), list):
        rows = [
            (str(r.get("ファイル名", i + 1)), r.get("output"), r.get("ファイル名", ""))
            for i, r in enumerate(data["samples"])
            if isinstance(r, dict)
        ]
    elif isinstance(data, dict):
        rows = [(str(k), v.get("answer"), v.get("file", "")) for k, v in data.items() if isinstance(v, dict)]
    else:
        rows = [
            (str(r.get("id")), r.get("answer"), r.get("category", "")) for r in data if isinstance(r, dict)
        ]
    out = []
    for index, (qid, letter, where) in enumerate(rows):
        if not isinstance(letter, str) or not letter.strip():
            raise gold.error(
                f"gold entry {index + 1} ({qid!r}): no answer letter", index if gold.is_lines else None
            )
        group = "which article" if "根拠条文" in where else ("related law" if "関連法令" in where else "all")
        out.append((qid, unicodedata.normalize("NFKC", letter).strip().lower(), group))
    return out


def _score_choice(gold: JsonFile, predictions: dict[str, Prediction]) -> Report:
    metric = Metric("accuracy", "accuracy")
    judgements = []
    for qid, wanted, group in _choice_rows(gold):
        prediction = predictions.get(qid)
        predicted = (
            MISSING
            if prediction is None
            else unicodedata.normalize("NFKC", prediction.value or "").strip().lower()
        )
        ok = predicted == wanted
        judgements.append(
            Judgement(
                qid, group, {metric.key: (float(ok), 1.0)}, ok, wanted, predicted, _pred_type(prediction)
            )
        )
    return _report("choice", (metric,), judgements, predictions)


# --- finglm --------------------------------------------------------------------------------------------------------

_PROMPT_META = frozenset({"ent_short_name", "ent_name", "year", "key_word", "prom_answer", "公式"})
_TYPES_WITH_VALUE = frozenset({"1", "1-2", "2-1", "2-2"})
_YEAR_PREFIXED = re.compile(r"^((?:19|20)\d\d)年(.+)$")


@dataclass(frozen=True)
class FinglmGold:
    """What one A-list answer row asks of an answer (see the module docstring)."""

    id: str
    type: str
    references: tuple[str, ...]
    key_values: tuple[str, ...] = ()  # empty: no value criterion
    key_words: tuple[str, ...] = ()  # key words and years; empty: no key-word criterion
    negative_words: tuple[str, ...] = ()  # non-empty: a negative question

    @classmethod
    def from_row(cls, row: dict) -> FinglmGold:
        prompt = row.get("prompt") or {}
        qtype, references = str(row["type"]), tuple(str(a) for a in row.get("answer") or ())
        key_word = str(prompt.get("key_word") or "")
        if "|" in key_word:
            return cls(
                str(row["id"]), qtype, references, negative_words=tuple(w for w in key_word.split("|") if w)
            )
        values: tuple[str, ...] = ()
        if qtype == "1-2":
            values = tuple(str(v) for k, v in prompt.items() if k not in _PROMPT_META)
        elif qtype in _TYPES_WITH_VALUE and prompt.get("prom_answer"):
            values = (str(prompt["prom_answer"]),)
        words: list[str] = []
        for word in filter(None, (w.strip() for w in key_word.split("、"))):
            prefixed = _YEAR_PREFIXED.match(word)
            words.extend(prefixed.group(2, 1) if prefixed else (word,))
        if prompt.get("year"):
            words.append(str(prompt["year"]))
        return cls(str(row["id"]), qtype, references, values, tuple(dict.fromkeys(words)))

    @property
    def has_value(self) -> bool:
        return self.type in _TYPES_WITH_VALUE

    def describe(self) -> str:
        if self.negative_words:
            return "(a negative answer)"
        shown = (
            " / ".join(self.key_values)
            if self.key_values
            else _clip(self.references[0] if self.references else "")
        )
        return shown + (f"  [key words: {'、'.join(self.key_words)}]" if self.key_words else "")


def contains_value(answer: str, value: str) -> bool:
    """Whether the key value appears in the answer as a value of its own (see the module docstring)."""
    flat_answer, flat_value = flat_text(answer), flat_text(value)
    if not flat_value:
        return False
    before = (
        r"(?<![\d.\-])" if flat_value[0].isdigit() else (r"(?<![不否])" if _is_cjk(flat_value[0]) else "")
    )
    after = r"(?!\.?\d)" if flat_value[-1].isdigit() else ""
    return re.search(before + re.escape(flat_value) + after, flat_answer) is not None


def _is_cjk(char: str) -> bool:
    return unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH")


def _bigrams(text: str) -> Counter:
    flat = flat_text(text)
    return Counter(flat[i : i + 2] for i in range(len(flat) - 1))


def bigram_f1(answer: str, references: tuple[str, ...]) -> float:
    """Best character-bigram F1 against the references: a lexical stand-in, not the official similarity."""
    mine, best = _bigrams(answer), 0.0
    for reference in references:
        theirs = _bigrams(reference)
        common = sum((mine & theirs).values())
        if common:
            precision, recall = common / sum(mine.values()), common / sum(theirs.values())
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


FINGLM_METRICS = (
    Metric("official", "official part", rate=False),
    Metric("value", "value"),
    Metric("key_words", "key words"),
    Metric("negative", "negative"),
    Metric("bigram_f1", "bigram F1 (proxy)", rate=False),
)


def judge_finglm(gold: FinglmGold, answer: str | None) -> dict[str, Score | None]:
    """The official criteria for one answer (None: no prediction, which meets none of them)."""
    text = answer or ""
    if gold.negative_words:
        met = answer is not None and any(word in text for word in gold.negative_words)
        value_ok = met if gold.has_value else None
        words_ok: bool | None = met
    else:
        value_ok = (
            all(contains_value(text, v) for v in gold.key_values) and bool(gold.key_values)
            if gold.has_value
            else None
        )
        words_ok = all(flat_text(w) in flat_text(text) for w in gold.key_words) if gold.key_words else None
        if answer is None:
            value_ok = False if value_ok is not None else None
            words_ok = False if words_ok is not None else None
    if value_ok is not None:
        official: Score | None = (0.25 * value_ok + (0.25 * bool(words_ok) if value_ok else 0.0), 0.5)
    elif words_ok is not None:
        official = (0.25 * words_ok, 0.25)
    else:
        official = None
    return {
        "official": official,
        "value": None if value_ok is None else (float(value_ok), 1.0),
        "key_words": None if words_ok is None else (float(words_ok), 1.0),
        "negative": (float(bool(words_ok)), 1.0) if gold.negative_words else None,
        "bigram_f1": (bigram_f1(text, gold.references) if answer is not None else 0.0, 1.0),
    }


def _score_finglm(gold: JsonFile, predictions: dict[str, Prediction]) -> Report:
    rows = gold.data if isinstance(gold.data, list) else [gold.data]
    judgements = []
    for index, row in enumerate(rows):
        if (
            not isinstance(row, dict)
            or not {"id", "type", "prompt", "answer"} <= row.keys()
            or not isinstance(row["prompt"], dict)
        ):
            raise gold.error(
                f'answer row {index + 1}: expected {{"id", "question", "prompt": {{...}}, "answer", "type"}}',
                index,
            )
        expected = FinglmGold.from_row(row)
        prediction = predictions.get(expected.id)
        answer = prediction.answer if prediction else None
        scores = judge_finglm(expected, answer)
        correct = all(scores[k] is None or scores[k][0] == scores[k][1] for k in ("value", "key_words"))
        judgements.append(
            Judgement(
                expected.id,
                expected.type,
                scores,
                correct and prediction is not None,
                expected.describe(),
                MISSING if answer is None else _clip(answer),
                _pred_type(prediction),
            )
        )
    notes = (
        "official part = 0.25 key value + 0.25 key words and year (0 when the value is wrong), "
        "as a share of the points attainable without the semantic part (0.5 per question with a value, "
        "0.25 for 3-1; 3-2 has none)",
        "semantic similarity (weight 0.5): not computed - it needs the organisers' embedding model",
        "bigram F1 is a lexical proxy for the semantic part, not an official figure",
    )
    return _report("finglm", FINGLM_METRICS, judgements, predictions, notes)


# --- common --------------------------------------------------------------------------------------------------------


def _pred_type(prediction: Prediction | None) -> str:
    return prediction.type if prediction else MISSING


def _clip(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _report(
    task: str,
    metrics: tuple[Metric, ...],
    judgements: list[Judgement],
    predictions: dict[str, Prediction],
    notes: tuple[str, ...] = (),
) -> Report:
    gold_ids = {j.id for j in judgements}
    return Report(
        task,
        metrics,
        judgements,
        missing=[j.id for j in judgements if j.pred_type == MISSING],
        unknown=[qid for qid in predictions if qid not in gold_ids],
        notes=notes,
    )


_SCORERS: dict[str, Callable[[JsonFile, dict[str, Prediction]], Report]] = {
    "aicup": _score_aicup,
    "ntcir": _score_ntcir,
    "exact": _score_exact,
    "finglm": _score_finglm,
    "choice": _score_choice,
}


def detect_task(gold: JsonFile) -> str:
    """The task a gold file belongs to, told from its form."""
    data = gold.data
    if isinstance(data, dict) and "ground_truths" in data:
        return "aicup"
    rows = data if isinstance(data, list) else [data]
    if rows and all(isinstance(r, dict) and "prompt" in r and "type" in r for r in rows):
        return "finglm"
    if isinstance(data, dict) and data and all(isinstance(v, dict) and "cell_id" in v for v in data.values()):
        return "ntcir"
    if isinstance(data, dict) and (
        isinstance(data.get("samples"), list)
        or data
        and all(isinstance(v, dict) and "answer" in v and "law_ids" in v for v in data.values())
    ):
        return "choice"
    return "exact"


def score(gold_path: Path, pred_path: Path, task: str | None = None) -> Report:
    """Score qa.run output against a gold file; InputError on an unusable file or task.

    >>> report = score(Path("ground_truths_dev.json"), Path("answers.jsonl"))  # doctest: +SKIP
    >>> report.totals()["p_at_1"]["score"]  # doctest: +SKIP
    """
    if task is not None and task not in TASKS:
        raise InputError(f"unknown task {task!r}; choose one of {', '.join(TASKS)}")
    gold = read_json(gold_path)
    predictions = load_predictions(pred_path)
    return _SCORERS[task or detect_task(gold)](gold, predictions)


# --- output --------------------------------------------------------------------------------------------------------


def _cell(metric: Metric, total: dict[str, float] | None) -> str:
    if total is None:
        return "n/a"
    if metric.rate:
        return f"{total['score']:.3f} ({total['points']:g}/{total['of']:g})"
    return f"{total['score']:.3f}"


def _table(
    report: Report, title: str, groups: dict[str, list[Judgement]], metrics: tuple[Metric, ...]
) -> list[str]:
    header = [title, "n", *(m.label for m in metrics)]
    body = [
        [name, str(len(rows)), *(_cell(m, report.totals(rows)[m.key]) for m in metrics)]
        for name, rows in groups.items()
    ]
    body.append(["all", str(len(report.judgements)), *(_cell(m, report.totals()[m.key]) for m in metrics)])
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

    return [line(header), *(line(r) for r in body)]


GROUP_TITLES = {
    "aicup": "category",
    "ntcir": "report",
    "exact": "group",
    "finglm": "type",
    "choice": "question kind",
}


def format_report(report: Report, show_errors: int = 0) -> str:
    lines = [
        f"{report.task}: {len(report.judgements)} questions, {sum(j.correct for j in report.judgements)} "
        "fully correct",
        "",
    ]
    lines += _table(report, GROUP_TITLES[report.task], report.groups(lambda j: j.group), report.metrics)
    lines += ["", "by the engine's question type:"]
    lines += _table(report, "predicted type", report.groups(lambda j: j.pred_type), report.metrics[:1])
    lines.append("")
    if report.missing:
        shown = ", ".join(report.missing[:10]) + (" ..." if len(report.missing) > 10 else "")
        lines.append(f"missing predictions: {len(report.missing)} (counted wrong): {shown}")
    if report.unknown:
        lines.append(f"predictions without gold (ignored): {len(report.unknown)}")
    lines += [f"note: {note}" for note in report.notes]
    wrong = [j for j in report.judgements if not j.correct][:show_errors]
    if wrong:
        lines += ["", f"first {len(wrong)} wrong:"]
        lines += [f"  {j.id}\tgold: {j.gold}\tpredicted: {j.predicted}" for j in wrong]
    return "\n".join(lines).rstrip()


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=command_name("eval.score"),
        description="Score answers (the JSON lines finqa ask wrote) against a labelled "
        "data set's right answers, by question type.",
    )
    ap.add_argument(
        "--gold",
        type=Path,
        required=True,
        help="the right answers: a labelled file of FinGLM, AI CUP, NTCIR or lawqa_jp, "
        "or JSON lines of {id, answer}",
    )
    ap.add_argument(
        "--pred", type=Path, required=True, help="the answers to score: the JSON lines finqa ask wrote"
    )
    ap.add_argument("--task", choices=TASKS, help="scoring rules (default: told from the gold file)")
    ap.add_argument(
        "--show-errors", type=int, default=0, metavar="N", help="list the first N wrong questions"
    )
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write the figures as JSON")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    add_verbosity(ap)
    args = ap.parse_args(argv)
    configure(args)
    try:
        report = score(args.gold, args.pred, args.task)
        if args.json:
            try:
                args.json.write_text(
                    json.dumps(report.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
                )
            except OSError as exc:
                raise InputError(f"cannot write: {exc}", str(args.json)) from None
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_report(report, max(args.show_errors, 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
