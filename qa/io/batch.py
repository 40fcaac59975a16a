"""Answering a stream of question batches, in this process or in worker processes, answers in input order.

A batch's first searches and fact look-ups go to the index together (Engine.prefetch). With more than one
worker, each worker process opens its own Engine over the same index, and each batch is shared out among
the workers in equal parts (`shares`); at most two parts per worker are in flight, so memory stays bounded
however long the stream. Answering is Python code
that holds the GIL, so processes, not threads, are what use a machine's cores.

>>> with BatchAnswerer(EngineSettings(index=settings), BatchSettings(workers=2)) as answerer:  # doctest: +SKIP
...     for question, answer, steps in answerer.run(batches):  # batches: lists of Question
...         print(answer.to_json(steps))
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from core.budget import time_limit
from core.errors import InputError
from core.processes import become_worker
from qa.engine import Engine, EngineSettings
from qa.records import Analysis, Answer, Question

DEFAULT_QUESTION_SECONDS = 300.0  # a text question with a CPU model takes ~22 s
IN_FLIGHT = 2  # parts per worker given out at a time: one being answered, one waiting

Answered = tuple[Question, Answer, tuple[str, ...]]  # a question, its answer, its analysis steps (with trace)


@dataclass(frozen=True)
class BatchSettings:
    """How a stream of questions is answered, validated on construction."""

    workers: int = 1  # processes answering; 1: this one
    question_seconds: float = DEFAULT_QUESTION_SECONDS  # budget per question, 0 for none
    trace: bool = False  # hand back the question's analysis steps with each answer

    def __post_init__(self):
        if self.workers < 1:
            raise InputError(f"workers must be at least 1, got {self.workers}")
        if self.question_seconds < 0:
            raise InputError(f"--question-seconds must not be negative, got {self.question_seconds:g}")


class BatchAnswerer:
    """Answers batches of questions over one index; `run` is the entry point. Open it once for a stream."""

    def __init__(self, engine: EngineSettings, settings: BatchSettings | None = None):
        self.engine_settings = engine
        self.settings = settings or BatchSettings()
        self._engine: Engine | None = None
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> BatchAnswerer:
        if self.settings.workers == 1:
            self._engine = Engine(self.engine_settings)
        else:
            self._pool = self._start()
        return self

    def __exit__(self, failing, *_) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        if self._pool is not None:
            # Interrupted: no waiting for the parts in flight; the workers end with this process (become_worker)
            self._pool.shutdown(wait=failing is not KeyboardInterrupt, cancel_futures=True)
            self._pool = None

    def run(self, batches: Iterable[list[Question]]) -> Iterator[Answered]:
        """(question, answer, analysis steps) for every question, in input order. A stream that breaks (an
        InputError while reading it) is raised once the batches before the break are answered."""
        if self._engine is not None:
            for batch in batches:
                yield from _paired(batch, answer_batch(self._engine, batch, self.settings))
            return
        pending: deque[tuple[list[Question], Future, ProcessPoolExecutor]] = deque()
        broken: InputError | None = None
        try:
            for batch in batches:
                for part in shares(batch, self.settings.workers):
                    pending.append((part, self._pool.submit(_answer_in_worker, part), self._pool))
                    while len(pending) >= IN_FLIGHT * self.settings.workers:
                        yield from self._collect(*pending.popleft())
        except InputError as exc:
            broken = exc
        while pending:
            yield from self._collect(*pending.popleft())
        if broken is not None:
            raise broken

    def _collect(
        self, batch: list[Question], future: Future, pool: ProcessPoolExecutor
    ) -> Iterator[Answered]:
        try:
            answered = future.result()
        except BrokenProcessPool:
            # A worker died (a fault in a native library, out of memory): the parts its pool held are lost, a new
            # pool answers the rest.
            if pool is self._pool:
                pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._start()
            reason = "its worker process died (a fault in a native library, or out of memory)"
            answered = [(Answer.failed(q, reason), ()) for q in batch]
        yield from _paired(batch, answered)

    def _start(self) -> ProcessPoolExecutor:
        # Forked where the system can (the modules are loaded already); this process opens no index of its own,
        # whose readers a fork must not copy.
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        return ProcessPoolExecutor(
            self.settings.workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(self.engine_settings, self.settings, os.getpid()),
        )


def shares(batch: list[Question], workers: int) -> list[list[Question]]:
    """The batch in `workers` consecutive parts of near-equal size (none empty), one for each worker: whole
    batches leave a worker idle at the end of a short file (663 questions in batches of 64: 6 batches for one
    worker, 5 for the other), parts at most one part's time.

    >>> [len(part) for part in shares(list(range(64)), 3)], shares([1], 2)
    ([22, 21, 21], [[1]])
    """
    size, extra = divmod(len(batch), workers)
    parts, start = [], 0
    for n in range(min(workers, len(batch))):
        end = start + size + (n < extra)
        parts.append(batch[start:end])
        start = end
    return parts


def answer_batch(
    engine: Engine, batch: list[Question], settings: BatchSettings
) -> list[tuple[Answer, tuple[str, ...]]]:
    """Each question's answer (an error answer past its time budget) and, with `settings.trace`, its analysis."""
    seconds = settings.question_seconds
    analyses, spent = [], []
    for question in batch:  # the rules' regexes run in the analysis: under the question's budget too
        started = time.monotonic()
        analyses.append(_within(seconds, question, lambda q=question: engine.analysis_for_answer(q)))
        spent.append(time.monotonic() - started)
    answered = []
    for question, analysis, used in zip(batch, engine.prefetch(batch, analyses), spent):
        left = max(seconds - used, 0.001) if seconds else 0  # an analysis past the budget is its error answer
        answer = _within(left, question, lambda q=question, a=analysis: engine.answer(q, a), seconds)
        steps = tuple(analysis.trace) if settings.trace and isinstance(analysis, Analysis) else ()
        answered.append((answer, steps))
    return answered


class QuestionTimeout(BaseException):
    """A question ran past its time budget (a BaseException: see core/budget.py)."""


def answer_within(
    engine: Engine, question: Question, seconds: float, analysis: Analysis | Answer | None = None
) -> Answer:
    """The engine's answer (from `analysis` when the batch's prefetch made it), or an error answer when it
    takes longer than `seconds` (0: no limit)."""
    return _within(seconds, question, lambda: engine.answer(question, analysis))


def _within(seconds: float, question: Question, work, budget: float = 0.0):
    """work(), or an error answer when it runs past `seconds` (0: no limit). The timer interrupts the rules'
    regexes too: `re` checks for signals while it backtracks (Python 3.11+), so a catastrophic pattern in any
    rule file costs one question its budget, not the run."""
    shown = budget or seconds
    try:
        with time_limit(
            seconds, lambda: QuestionTimeout(f"no answer within {shown:g} s (--question-seconds)")
        ):
            return work()
    except QuestionTimeout as exc:
        return Answer.failed(question, str(exc))


def _paired(batch: list[Question], answered: list[tuple[Answer, tuple[str, ...]]]) -> Iterator[Answered]:
    for question, (answer, steps) in zip(batch, answered):
        yield question, answer, steps


_worker_engine: Engine | None = None
_worker_settings: tuple[EngineSettings, BatchSettings] | None = None


def _init_worker(engine: EngineSettings, settings: BatchSettings, parent: int) -> None:
    global _worker_settings
    _worker_settings = engine, settings
    become_worker(parent)  # Ctrl-C is the parent's: it stops the pool and says what was written


def _answer_in_worker(batch: list[Question]) -> list[tuple[Answer, tuple[str, ...]]]:
    # The engine opens with the first batch: an index it cannot open is then that batch's InputError, raised to
    # the caller, rather than an initializer failure the pool would only report as broken.
    global _worker_engine
    engine_settings, settings = _worker_settings
    if _worker_engine is None:
        _worker_engine = Engine(engine_settings)
    return answer_batch(_worker_engine, batch, settings)
