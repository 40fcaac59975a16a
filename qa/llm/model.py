"""The small local language model: offline, deterministic, few-shot examples as chat history.

Loads a Hugging Face model folder with transformers, and a single .gguf file
with llama.cpp (qa/llm/llama.py, the `llama` extra: quantised on the CPU, several
times faster) or, when that is not installed or `backend="transformers"`, with
transformers (de-quantised to float32; needs the `gguf` and `accelerate`
packages); never touching the network, once per process. Each task's few-shot examples (rules/fewshot.yaml,
company and year masked as <company>/<year>) go into the chat history as
alternating user/assistant turns after the task's system message; the
tokenizer's chat template renders them. Decoding is greedy, bounded by
`max_new_tokens` and by a wall-clock timeout.

The model only words things; the engine decides what is true:
- `extract_keywords` is the key-word fallback of question understanding;
- `answer_from_passages` answers a report_text question in one sentence from
  retrieved passages, citing them ("[doc, 第N页]"); a sentence writing a number
  or a name that is in neither the question nor the passages is rejected, with
  the reason, so the caller keeps its extractive answer;
- `answer_open` explains a finance concept (task "open");
- `rephrase` rewords a computed answer; the template answer is kept unless
  every number of the new wording is in the template answer and the value is
  among them.

>>> llm = LocalLLM.load(Path("~/.cache/small-llm/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf").expanduser())
>>> llm.extract_keywords("2021年华夏银行的营业外支出是多少元?", companies=["华夏银行"])
['营业外支出']
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.rulebook import pattern_per_book, per_book
from core.vocabulary import vocabulary
from qa.fewshot import FewShot
from qa.records import Analysis
from search.backend import Hit

LLM_EXTRA = "pip install 'finqa[llm]'"
DTYPES = ("float32", "bfloat16", "float16")
# auto: a .gguf file runs on llama.cpp when llama-cpp-python is installed, anything else on transformers.
BACKENDS = ("auto", "transformers", "llama.cpp")
_DEVICE = re.compile(r"cpu|mps|cuda(?::\d+)?")
_PROMPTS = per_book(lambda: vocabulary("prompts"))  # rules/prompts.yaml
# A number as written in an answer: thousands separators allowed, a sign, decimals.
_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:,\d{3})*(?:\.\d+)?")
_ORGANISATION = pattern_per_book(
    lambda: re.compile(
        "|".join(map(re.escape, sorted(vocabulary("companies")["organisation_words"], key=len, reverse=True)))
    )
)
_HAN_NAME = re.compile(r"[\u3400-\u9fff)]+")  # compared after NFKC: （） are ()
_REFERENCES = per_book(lambda: set(vocabulary("companies")["organisation_references"]))
_SENTENCE_END = pattern_per_book(
    lambda: re.compile(f"[{re.escape(vocabulary('punctuation')['sentence_ends'])}]" + r"(?:\[[^\]]*\])?")
)
# Tokens that end a chat turn in the common chat templates (Qwen/ChatML, Llama 3, Phi, Gemma).
END_MARKERS = ("<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>")
_FENCE = re.compile(r"\A```(?:json)?\s*\n(.*)\n```\Z", re.DOTALL)


@dataclass(frozen=True)
class LLMSettings:
    """How the model runs. Validated on construction.

    >>> settings = LLMSettings(device="cuda:0", dtype="bfloat16", max_new_tokens=128, timeout=30)
    """

    device: str = "cpu"
    dtype: str = "float32"  # float32 | bfloat16 | float16 (bfloat16 was ~8x slower on CPU)
    max_new_tokens: int = 192  # most tokens one reply may have
    timeout: float = 120.0  # wall-clock seconds one generation may take; it stops there
    retries: int = 1  # extra tries when a JSON reply does not parse
    context_tokens: int = 1536  # most prompt tokens: few-shot turns, question and passages
    threads: int = 0  # CPU threads (torch, llama.cpp); 0: torch's default, half the cores for llama.cpp
    fewshot_path: Path | None = None  # None: rules/fewshot.yaml
    backend: str = "auto"  # one of BACKENDS

    def __post_init__(self):
        if not _DEVICE.fullmatch(self.device):
            raise InputError(f"device must be cpu, mps, cuda or cuda:N, got {self.device!r}")
        if self.dtype not in DTYPES:
            raise InputError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if self.max_new_tokens < 1:
            raise InputError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        if not self.timeout > 0:
            raise InputError(f"timeout must be positive seconds, got {self.timeout}")
        if not 0 <= self.retries <= 5:
            raise InputError(f"retries must be 0..5, got {self.retries}")
        if self.context_tokens < 64:
            raise InputError(f"context_tokens must be at least 64, got {self.context_tokens}")
        if self.backend not in BACKENDS:
            raise InputError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.threads < 0:
            raise InputError(f"threads must be 0 (default) or more, got {self.threads}")
        if self.fewshot_path is not None:
            object.__setattr__(self, "fewshot_path", Path(self.fewshot_path))


@dataclass(frozen=True)
class Generation:
    """One reply and what it cost."""

    text: str
    prompt_tokens: int
    new_tokens: int
    seconds: float
    stopped: str  # "end" (end-of-turn token), "max_new_tokens" or "timeout"


@dataclass(frozen=True)
class JsonReply:
    """A JSON-shaped reply: `value` is the parsed JSON when `ok`, else the caller's fallback."""

    value: Any
    ok: bool
    attempts: int
    error: str = ""  # why the last attempt was refused
    raw: str = ""  # the last reply as generated


@dataclass
class LLMStats:
    """Running totals of one model's generations (for benchmarks and the run summary)."""

    calls: int = 0
    prompt_tokens: int = 0
    new_tokens: int = 0
    seconds: float = 0.0
    timeouts: int = 0

    def add(self, generation: Generation) -> None:
        self.calls += 1
        self.prompt_tokens += generation.prompt_tokens
        self.new_tokens += generation.new_tokens
        self.seconds += generation.seconds
        self.timeouts += generation.stopped == "timeout"


@dataclass(frozen=True)
class ModelSentence:
    """The model's answer sentence, and why the evidence check rejected it ("" when it passed)."""

    text: str
    rejected: str = ""


@dataclass(frozen=True)
class Passage:
    """A piece of context for the model, with where it came from."""

    doc: str
    page: int
    text: str

    @property
    def citation(self) -> str:
        if self.page:
            return _PROMPTS["citation"].format(doc=self.doc, page=self.page)
        return _PROMPTS["citation_unpaged"].format(doc=self.doc)


_CACHE: dict[tuple[str, LLMSettings], LocalLLM] = {}
_CACHE_LOCK = threading.Lock()


class LocalLLM:
    """A local causal language model on a runtime (transformers or llama.cpp); build it with `LocalLLM.load`."""

    def __init__(self, path: Path, runtime, settings: LLMSettings, fewshot: FewShot, load_seconds: float):
        self.path = path
        self.runtime = runtime
        self.settings = settings
        self.fewshot = fewshot
        self.load_seconds = load_seconds
        self.stats = LLMStats()
        self.end_ids = runtime.end_ids
        if not self.end_ids:
            raise InputError("the model has no end-of-sequence token (eos_token_id)", str(path))
        self._lock = threading.Lock()  # one generation at a time: the model is not re-entrant

    @property
    def model(self):
        return self.runtime.model

    @property
    def tokenizer(self):
        """The transformers tokenizer (None on llama.cpp, whose model tokenizes itself)."""
        return self.runtime.tokenizer

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: Path | str, settings: LLMSettings = LLMSettings()) -> LocalLLM:
        """The model at `path` (a model folder or a .gguf file), loaded once per process and settings.

        InputError (one line naming the path) when it is missing, unreadable,
        or the extra it needs is not installed.
        """
        path = Path(path).expanduser()
        if not path.exists():
            raise InputError("language model not found (give a model folder or a .gguf file)", str(path))
        key = (str(path.resolve()), settings)
        with _CACHE_LOCK:
            if key not in _CACHE:
                _CACHE[key] = cls._load(path, settings)
            return _CACHE[key]

    @classmethod
    def _load(cls, path: Path, settings: LLMSettings) -> LocalLLM:
        fewshot = FewShot.load(settings.fewshot_path)
        if path.is_file() and path.suffix.lower() != ".gguf":
            raise InputError("not a model: give a model folder (config.json ...) or a .gguf file", str(path))
        if path.is_dir() and not (path / "config.json").is_file():
            raise InputError("not a model folder: config.json is missing", str(path))
        backend = settings.backend
        if backend == "auto":
            from qa.llm.llama import available

            backend = "llama.cpp" if path.is_file() and available() else "transformers"
        if backend == "llama.cpp" and not path.is_file():
            raise InputError("llama.cpp runs a .gguf file, not a model folder", str(path))
        started = time.perf_counter()
        if backend == "llama.cpp":
            from qa.llm.llama import LlamaCppRuntime

            runtime = LlamaCppRuntime.load(
                path, settings.context_tokens, settings.max_new_tokens, settings.threads
            )
        else:
            runtime = _TransformersRuntime.load(path, settings)
        return cls(path, runtime, settings, fewshot, time.perf_counter() - started)

    # ------------------------------------------------------------------ generation
    def messages(self, task: str, user_text: str, context: str | None = None) -> list[dict]:
        """The chat for a task: system message, few-shot turns as user/assistant turns, then the question.

        When the prompt would be over `context_tokens`, the oldest few-shot turns are left out.
        """
        turns = self.fewshot.turns(task)
        question = {"role": "user", "content": user_text if not context else f"{user_text}\n{context}"}
        while True:
            messages = [{"role": "system", "content": self.fewshot.system(task)}]
            for user, assistant in turns:
                messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
            messages.append(question)
            if not turns or len(self.prompt_ids(messages)) <= self.settings.context_tokens:
                return messages
            turns = turns[1:]

    def prompt_ids(self, messages: list[dict]) -> list[int]:
        """The token ids the model reads for `messages`, ready for its reply."""
        return self.runtime.chat_ids(messages)

    def count_tokens(self, text: str) -> int:
        return len(self.runtime.encode(text))

    def generate(self, messages: list[dict], max_new_tokens: int | None = None) -> Generation:
        """Greedy decoding of a reply to `messages`, stopped at the end-of-turn token, the token limit or the timeout."""
        limit = min(max_new_tokens or self.settings.max_new_tokens, self.settings.max_new_tokens)
        ids = self.prompt_ids(messages)
        with self._lock:  # the clock starts once the model is ours
            started = time.perf_counter()
            new, stopped = self.runtime.generate(ids, limit, self.settings.timeout)
            seconds = time.perf_counter() - started
        generation = Generation(self.runtime.decode(new).strip(), len(ids), len(new), seconds, stopped)
        self.stats.add(generation)
        return generation

    def label_logprobs(self, task: str, user_text: str, labels: Sequence[str]) -> dict[str, float]:
        """How likely the model's reply to `user_text` (after the task's few-shot turns) starts with each label:
        the log-probability of the label's first token, read from one forward pass instead of a generated reply."""
        ids = self.prompt_ids(self.messages(task, user_text))
        firsts = [self.runtime.encode(label)[0] for label in labels]
        with self._lock:
            scores = self.runtime.next_logprobs(ids, firsts)
        return dict(zip(labels, scores))

    def chat(
        self, task: str, user_text: str, context: str | None = None, max_new_tokens: int | None = None
    ) -> str:
        """The model's reply to `user_text` (and `context`) after the task's few-shot turns."""
        return self.generate(self.messages(task, user_text, context), max_new_tokens).text

    def chat_json(
        self,
        task: str,
        user_text: str,
        context: str | None = None,
        *,
        check: Callable[[Any], str] | None = None,
        fallback: Any = None,
        max_new_tokens: int | None = None,
    ) -> JsonReply:
        """A JSON reply parsed strictly (the whole reply, or one ```json fence, is one JSON value).

        `check(value)` returns "" when the value has the wanted shape, else why
        not. A refused reply is retried `retries` times with the reply and the
        reason added to the chat (greedy decoding would repeat itself
        otherwise); then `fallback` is returned with ok False.
        """
        messages = self.messages(task, user_text, context)
        error, raw = "", ""
        for attempt in range(1, self.settings.retries + 2):
            raw = self.generate(messages, max_new_tokens).text
            value, error = parse_json_reply(raw)
            if not error and check is not None:
                error = check(value)
            if not error:
                return JsonReply(value, True, attempt, raw=raw)
            messages = messages + [
                {"role": "assistant", "content": raw},
                {"role": "user", "content": _PROMPTS["retry"].format(error=error)},
            ]
        return JsonReply(fallback, False, self.settings.retries + 1, error, raw)

    # ------------------------------------------------------------------ uses
    def extract_keywords(self, question: str, companies: Iterable[str] = ()) -> list[str]:
        """Key words of a question (task "keywords"), each as written in the question; [] when the model gives none.

        Company names and years are masked before the model sees the question,
        as in the few-shot turns; words not found in the question are dropped.
        """
        masked = FewShot.mask(question, companies=list(companies))
        reply = self.chat_json("keywords", masked, check=_list_of_strings, fallback=[], max_new_tokens=64)
        folded = _fold(question)
        words = [w.strip() for w in reply.value if w.strip()]
        return list(dict.fromkeys(w for w in words if _fold(w) in folded and "<" not in w))

    def answer_from_passages(self, analysis: Analysis, hits: Sequence[Hit]) -> ModelSentence:
        """A report_text answer in one sentence from retrieved passages, with a citation ("[doc, 第N页]").

        Passages go in best first while the prompt fits `context_tokens`. Only the
        reply's first sentence is kept; it is rejected (`rejected` says why) when it is
        empty or writes a number or a name that is in neither the question nor the
        passages (`unsupported`); a missing citation is added.
        """
        passages = [
            Passage(h.chunk.doc_id, h.chunk.page_start, h.chunk.text) for h in hits if h.chunk.text.strip()
        ]
        if not passages:
            return ModelSentence("", "no passages")
        question = _PROMPTS["question"].format(question=analysis.question.text)
        base = len(self.prompt_ids(self.messages("report_text", question)))
        budget = self.settings.context_tokens - base
        lines: list[str] = []
        for passage in passages:
            line = _PROMPTS["passage"].format(citation=passage.citation, text=passage.text)
            cost = self.count_tokens(line) + 1
            if cost > budget:
                if lines:
                    break
                line = _cut_to_tokens(
                    self, line, budget
                )  # the best passage alone is too long: keep its start
                cost = budget
            lines.append(line)
            budget -= cost
        used = passages[: len(lines)]
        context = "\n".join(lines)
        answer = first_sentence(self.chat("report_text", question, context))
        if not answer:
            return ModelSentence("", "empty reply")
        if _PROMPTS["no_answer"] in answer:
            return ModelSentence(answer, "the model found no answer in the passages")
        why = unsupported(answer, question + "\n" + context)
        if why:
            return ModelSentence(answer, why)
        if not any(p.citation in answer or p.doc in answer for p in used):
            answer = f"{answer.rstrip()}{used[0].citation}"
        return ModelSentence(answer)

    def answer_open(self, question: str) -> str:
        """An explanation of a finance concept (task "open")."""
        return self.chat("open", question)

    def rephrase(self, answer_text: str, value: str) -> str:
        """The template answer reworded by the model (task "rephrase"), or `answer_text` unchanged.

        The new wording is used only when the computed value's number is in it
        and every number in it is in the template answer; rules/fewshot.yaml
        without a "rephrase" task keeps the template answer.
        """
        if "rephrase" not in self.fewshot.tasks or not answer_text.strip():
            return answer_text
        reply = self.chat("rephrase", answer_text)
        return reply if reply and rephrase_keeps_numbers(reply, answer_text, value) else answer_text


# ---------------------------------------------------------------------- checks
def parse_json_reply(text: str) -> tuple[Any, str]:
    """(value, "") when the reply is one JSON value (optionally in one ```json fence), else (None, why not)."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        return None, "empty reply"
    try:
        return json.loads(body), ""
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at column {exc.colno}"


def numbers(text: str) -> list[Decimal]:
    """The numbers written in a text (NFKC; "1,234.50" -> Decimal("1234.50"))."""
    found = []
    for match in _NUMBER.finditer(unicodedata.normalize("NFKC", text)):
        try:
            found.append(Decimal(match.group().replace(",", "")))
        except InvalidOperation:
            continue
    return found


def numbers_within(answer: str, source: str) -> bool:
    """Whether every number in `answer` is also written in `source` (equal as numbers)."""
    allowed = set(numbers(source))
    return all(n in allowed or abs(n) in allowed for n in numbers(answer))


def unsupported(sentence: str, evidence: str) -> str:
    """Why `sentence` is not borne out by `evidence` ("" when it is): a number it writes that the evidence does
    not (equal as numbers), or an organisation's name (…有限公司, …会计师事务所, rules/companies.yaml
    `organisation_words`) whose ending and the two characters before it are not in the evidence (本公司, 子公司:
    `organisation_references`, are no names).

    >>> unsupported("公司聘请天健会计师事务所，每10股派3元。", "续聘天健会计师事务所（特殊普通合伙）；每10股派发现金红利3元")
    ''
    >>> unsupported("审计机构为致同会计师事务所。", "续聘天健会计师事务所")
    'name 致同会计师事务所 is not in the evidence'
    """
    allowed = set(numbers(evidence))
    for n in numbers(sentence):
        if n not in allowed and abs(n) not in allowed:
            return f"number {n} is not in the evidence"
    said, source = _fold(sentence), _fold(evidence)
    for match in _ORGANISATION.finditer(said):
        name = said[max(match.start() - 2, 0) : match.end()]
        # 公司 alone, 本公司, 子公司: a reference, not a name; a name is two characters or more and its ending.
        if (
            len(name) - len(match.group()) < 2
            or not _HAN_NAME.fullmatch(name[:2])
            or name[1] in _REFERENCES.value()
        ):
            continue
        if name not in source:
            return f"name {name} is not in the evidence"
    return ""


def first_sentence(reply: str) -> str:
    """The reply up to its first full stop (a citation right after the stop stays with it)."""
    text = reply.strip()
    match = _SENTENCE_END.search(text)
    return text[: match.end()].strip() if match else text


def rephrase_keeps_numbers(reply: str, answer_text: str, value: str) -> bool:
    """A rewording is safe when it states the value and adds or changes no number of the template answer."""
    wanted = numbers(value)
    said = set(numbers(reply))
    return bool(wanted) and all(n in said for n in wanted) and numbers_within(reply, answer_text)


def _list_of_strings(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ""
    return "not a JSON array of strings"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _cut_to_tokens(llm: LocalLLM, text: str, tokens: int) -> str:
    return llm.runtime.decode(llm.runtime.encode(text)[: max(tokens, 1)])


def plain_chat(messages: list[dict]) -> str:
    """A chat for a model without a chat template: role-labelled lines, the reply starts after "assistant:"."""
    return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant:"


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type when empty), at most 300 characters."""
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]


class _TransformersRuntime:
    """A model folder or .gguf file (de-quantised) run by transformers and torch."""

    name = "transformers"

    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer
        self.end_ids = _end_ids(model, tokenizer)

    @classmethod
    def load(cls, path: Path, settings: LLMSettings) -> _TransformersRuntime:
        # Offline whatever the environment says elsewhere: a model is never fetched from a hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise InputError(
                f"the language model needs torch and transformers ({exc.name} is missing): {LLM_EXTRA}",
                str(path),
            ) from None
        hf_logging.set_verbosity_error()
        if settings.threads:
            torch.set_num_threads(settings.threads)
        where = dict(
            pretrained_model_name_or_path=str(path.parent if path.is_file() else path), local_files_only=True
        )
        if path.is_file():
            where["gguf_file"] = path.name
        try:
            tokenizer = AutoTokenizer.from_pretrained(**where)
            model = AutoModelForCausalLM.from_pretrained(**where, dtype=getattr(torch, settings.dtype))
            model.to(settings.device)
            model.eval()
        except ImportError as exc:  # gguf / accelerate are needed for .gguf files only
            raise InputError(
                f"loading this model needs a missing package ({exc}): {LLM_EXTRA}", str(path)
            ) from None
        except Exception as exc:  # noqa: BLE001 - any unreadable model becomes one line naming the path
            raise InputError(f"cannot load the language model: {first_line(exc)}", str(path)) from None
        return cls(model, tokenizer)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    def chat_ids(self, messages: list[dict]) -> list[int]:
        if self.tokenizer.chat_template:
            return list(
                self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            )
        return self.tokenizer(plain_chat(messages), add_special_tokens=True)["input_ids"]

    def generate(self, ids: list[int], limit: int, seconds: float) -> tuple[list[int], str]:
        """Greedy new tokens after `ids` and why they stopped ("end", "max_new_tokens" or "timeout")."""
        import torch
        from transformers import GenerationConfig, StoppingCriteriaList

        eos = self.end_ids
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else eos[0]
        config = GenerationConfig(
            max_new_tokens=limit, do_sample=False, num_beams=1, eos_token_id=eos, pad_token_id=pad
        )
        with torch.inference_mode():
            deadline = _deadline(seconds)
            inputs = torch.tensor([ids], device=self.model.device)
            output = self.model.generate(
                inputs,
                attention_mask=torch.ones_like(inputs),
                generation_config=config,
                stopping_criteria=StoppingCriteriaList([deadline]),
            )
        new = output[0, len(ids) :].tolist()
        ended = bool(new) and new[-1] in eos
        return new, "end" if ended else "timeout" if deadline.expired else "max_new_tokens"

    def next_logprobs(self, ids: list[int], tokens: list[int]) -> list[float]:
        """The log-probability of each of `tokens` coming right after `ids`."""
        import torch

        with torch.inference_mode():
            logits = self.model(torch.tensor([ids], device=self.model.device)).logits[0, -1]
        scores = torch.log_softmax(logits.float(), dim=-1)
        return [float(scores[t]) for t in tokens]


def _deadline(seconds: float):
    """A StoppingCriteria that ends generation once `seconds` of wall time have passed."""
    import torch
    from transformers import StoppingCriteria

    class Deadline(StoppingCriteria):
        def __init__(self):
            self.at = time.monotonic() + seconds
            self.expired = False

        def __call__(self, input_ids, scores, **kwargs):
            self.expired = self.expired or time.monotonic() >= self.at
            return torch.full((input_ids.shape[0],), self.expired, dtype=torch.bool, device=input_ids.device)

    return Deadline()


def _set(ids) -> list[int]:
    if ids is None:
        return []
    return [ids] if isinstance(ids, int) else list(ids)


def _end_ids(model, tokenizer) -> list[int]:
    """Tokens that end a reply: the generation config's, the tokenizer's eos, and a chat template's end-of-turn."""
    ends = _set(getattr(model.generation_config, "eos_token_id", None)) + _set(tokenizer.eos_token_id)
    vocab = tokenizer.get_vocab()
    ends += [vocab[marker] for marker in END_MARKERS if marker in vocab]
    return list(dict.fromkeys(ends))
