"""A .gguf model run quantised on the CPU by llama.cpp (llama-cpp-python, the `llama` extra).

transformers de-quantises a .gguf to float32 and runs it at a few tokens/s;
llama.cpp keeps the quantised weights and runs several times faster (measured
by `python -m eval.bench llm`). The runtime has the same small surface as the
transformers one in qa/llm/model.py, so LocalLLM uses either:

- `chat_ids(messages)`: the chat template stored in the file (rendered with
  jinja2 in a sandbox, as transformers does), tokenized with its special tokens;
- `generate(ids, limit, seconds)`: greedy decoding, stopped at an end-of-turn
  token, after `limit` tokens or when `seconds` have passed;
- `next_logprobs(ids, tokens)`: how likely each token is to come next (one
  forward pass, no sampling), for choosing among given labels.

>>> runtime = LlamaCppRuntime.load(Path("model.gguf"), LLMSettings())
"""

from __future__ import annotations

import atexit
import os
import time
from pathlib import Path

from core.errors import InputError
from qa.llm.model import END_MARKERS, first_line, plain_chat

LLAMA_EXTRA = "pip install 'finqa[llama]'"


def available() -> bool:
    """Whether llama-cpp-python is installed (without importing it: that loads the native library)."""
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


class LlamaCppRuntime:
    """One loaded llama.cpp model; `LocalLLM` serialises calls (a context is not re-entrant)."""

    name = "llama.cpp"

    def __init__(self, model, template: str | None):
        self.model = model
        self.tokenizer = None  # the model tokenizes itself
        self.template = template
        self._render = _compile(template) if template else None
        ends = [model.token_eos()]
        for marker in END_MARKERS:
            ids = model.tokenize(marker.encode("utf-8"), add_bos=False, special=True)
            if len(ids) == 1:
                ends.append(ids[0])
        self.end_ids = [i for i in dict.fromkeys(ends) if i >= 0]

    @classmethod
    def load(cls, path: Path, context_tokens: int, max_new_tokens: int, threads: int) -> LlamaCppRuntime:
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise InputError(
                f"running a .gguf with llama.cpp needs llama-cpp-python ({exc}): {LLAMA_EXTRA}", str(path)
            ) from None
        # Room for the prompt, a JSON retry's reply and correction, and the replies.
        n_ctx = 2 * (context_tokens + max_new_tokens)
        # llama.cpp's threads spin at every step: with another job on a core they stall each other
        # (measured here: 1 thread 9 tokens/s, 2 threads 0.7 on a busy 2-core machine). Half the cores by default.
        threads = threads or max(1, (os.cpu_count() or 2) // 2)
        try:
            model = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                seed=0,
                verbose=False,
            )
        except Exception as exc:  # noqa: BLE001 - llama.cpp says ValueError for every unreadable file
            raise InputError(
                f"cannot load the language model with llama.cpp: {first_line(exc)}", str(path)
            ) from None
        # Freed before the interpreter tears down the bindings (else llama.cpp complains at exit).
        atexit.register(model.close)
        return cls(model, model.metadata.get("tokenizer.chat_template"))

    def encode(self, text: str) -> list[int]:
        return self.model.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def decode(self, ids: list[int]) -> str:
        return self.model.detokenize(list(ids), special=False).decode("utf-8", errors="replace")

    def chat_ids(self, messages: list[dict]) -> list[int]:
        if self._render is None:
            return self.model.tokenize(plain_chat(messages).encode("utf-8"), add_bos=True, special=False)
        text = self._render(
            messages=messages,
            add_generation_prompt=True,
            bos_token=self._piece(self.model.token_bos()),
            eos_token=self._piece(self.model.token_eos()),
        )
        return self.model.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def generate(self, ids: list[int], limit: int, seconds: float) -> tuple[list[int], str]:
        """Greedy new tokens after `ids` and why they stopped ("end", "max_new_tokens" or "timeout")."""
        deadline = time.monotonic() + seconds
        limit = min(limit, self.model.n_ctx() - len(ids))
        new: list[int] = []
        if limit < 1:
            return new, "max_new_tokens"
        for token in self.model.generate(
            ids, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0, reset=True
        ):
            new.append(token)
            if token in self.end_ids:
                return new, "end"
            if len(new) >= limit:
                return new, "max_new_tokens"
            if time.monotonic() >= deadline:
                return new, "timeout"
        return new, "end"

    def next_logprobs(self, ids: list[int], tokens: list[int]) -> list[float]:
        """The log-probability of each of `tokens` coming right after `ids` (the last position's logits)."""
        import llama_cpp
        import numpy

        # the prompts of one task share their system message and few-shot turns: the cached keys and values of
        # the longest prefix already evaluated are kept, and only the rest is read (eval drops the cache past
        # n_tokens); the last token is read again, for its logits
        evaluated = self.model.input_ids[: self.model.n_tokens].tolist()
        kept = min(self.model.longest_token_prefix(evaluated, ids), len(ids) - 1)
        self.model.n_tokens = kept
        self.model.eval(ids[kept:])
        logits = numpy.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(self.model.ctx, -1), shape=(self.model.n_vocab(),)
        ).astype("float64")
        top = logits.max()
        total = top + numpy.log(numpy.exp(logits - top).sum())
        return [float(logits[t] - total) for t in tokens]

    def _piece(self, token: int) -> str:
        return (
            self.model.detokenize([token], special=True).decode("utf-8", errors="ignore")
            if token >= 0
            else ""
        )


def _compile(template: str):
    """The chat template as a function of its variables: jinja2's sandbox, as transformers renders it."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise InputError(f"the model's chat template refused the chat: {message}")

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    environment.globals["raise_exception"] = raise_exception
    return environment.from_string(template).render
