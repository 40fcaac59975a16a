"""Answering a stream of question batches, in this process or in worker processes, answers in input order.

A batch's first searches and fact look-ups go to the index together (Engine.prefetch). With more than one
worker, each worker process opens its own Engine over the same index, and each batch is dealt out among the
workers (qa/io/dealing.py: a document's questions to the worker that met it before, the workers' loads kept
even); at most three batches are in flight, so memory stays bounded however long the stream. Answering is
Python code that holds the GIL, so processes, not threads, are what use a machine's cores.

>>> with BatchAnswerer(EngineSettings(index=settings), BatchSettings(workers=2)) as answerer:  # doctest: +SKIP
...     for question, answer, steps in answerer.run(batches):  # batches: lists of Question
...         print(answer.to_json(steps))
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from core.budget import time_limit
from core.errors import InputError
from core.processes import become_worker
from qa.engine import Engine, EngineSettings
from qa.io.dealing import Dealer
from qa.records import Analysis, Answer, Question

DEFAULT_QUESTION_SECONDS = 300.0  # a text question with a CPU model takes ~22 s
# Batches given out at a time. Answers are written in input order, so the oldest batch is collected before another
# is dealt: with two, a worker whose parts were done waited for the other's (0.40 s of a 2.8 s UFO run idle).
IN_FLIGHT = 3

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
        self._pools: list[ProcessPoolExecutor] = []  # one process each: a worker keeps its documents
        self._dealer = Dealer(self.settings.workers)

    def __enter__(self) -> BatchAnswerer:
        if self.settings.workers == 1:
            self._engine = Engine(self.engine_settings)
        else:
            self._pools = [self._start() for _ in range(self.settings.workers)]
        return self

    def __exit__(self, failing, *_) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        for pool in self._pools:
            # Interrupted: no waiting for the parts in flight; the workers end with this process (become_worker)
            pool.shutdown(wait=failing is not KeyboardInterrupt, cancel_futures=True)
        self._pools = []

    def run(self, batches: Iterable[list[Question]]) -> Iterator[Answered]:
        """(question, answer, analysis steps) for every question, in input order. A stream that breaks (an
        InputError while reading it) is raised once the batches before the break are answered."""
        if self._engine is not None:
            for batch in batches:
                yield from _paired(batch, answer_batch(self._engine, batch, self.settings))
            return
        pending: deque[tuple[list[Question], list[_Part]]] = deque()
        broken: InputError | None = None
        try:
            for batch in batches:
                self._report_finished(pending)
                pending.append((batch, self._deal(batch)))
                while len(pending) >= IN_FLIGHT:
                    yield from self._collect(*pending.popleft())
        except InputError as exc:
            broken = exc
        while pending:
            yield from self._collect(*pending.popleft())
        if broken is not None:
            raise broken

    def _deal(self, batch: list[Question]) -> list[_Part]:
        parts = []
        for worker, positions in enumerate(self._dealer.deal(batch)):
            if positions:
                questions = [batch[i] for i in positions]
                try:
                    future = self._pools[worker].submit(_answer_in_worker, questions)
                except BrokenProcessPool:  # its process died since its last part was collected
                    self._restart(worker)
                    future = self._pools[worker].submit(_answer_in_worker, questions)
                parts.append(_Part(worker, positions, future, self._pools[worker]))
        return parts

    def _report_finished(self, pending: Iterable[tuple[list[Question], list[_Part]]]) -> None:
        """Tell the dealer about the parts answered since, so that it deals by the workers' loads as they stand
        (a part that failed is told when it is collected)."""
        for _, parts in pending:
            for part in parts:
                future = part.future
                if (
                    not part.reported
                    and future.done()
                    and not future.cancelled()
                    and future.exception() is None
                ):
                    self._report(part)

    def _report(self, part: _Part) -> list[tuple[Answer, tuple[str, ...]]] | None:
        """The part's answers (None: its worker died), told to the dealer once."""
        try:
            answered, seconds = part.future.result()
        except (BrokenProcessPool, CancelledError):  # cancelled: by the shutdown of its broken pool
            if not part.reported:
                self._dealer.lost(part.worker, len(part.positions))
            part.reported = True
            return None
        if not part.reported:
            self._dealer.reported(part.worker, len(answered), seconds)
        part.reported = True
        return answered

    def _collect(self, batch: list[Question], parts: list[_Part]) -> Iterator[Answered]:
        answers: list[tuple[Answer, tuple[str, ...]] | None] = [None] * len(batch)
        for part in parts:
            answered = self._report(part)
            if answered is None:
                # A worker died (a fault in a native library, out of memory): the parts its process held are lost,
                # a new process answers its share of the rest.
                if part.pool is self._pools[part.worker]:
                    self._restart(part.worker)
                reason = "its worker process died (a fault in a native library, or out of memory)"
                answered = [(Answer.failed(batch[i], reason), ()) for i in part.positions]
            for position, one in zip(part.positions, answered):
                answers[position] = one
        yield from _paired(batch, answers)

    def _restart(self, worker: int) -> None:
        self._pools[worker].shutdown(wait=False, cancel_futures=True)
        self._pools[worker] = self._start()

    def _start(self) -> ProcessPoolExecutor:
        # Forked where the system can (the modules are loaded already); this process opens no index of its own,
        # whose readers a fork must not copy.
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        return ProcessPoolExecutor(
            1,
            mp_context=context,
            initializer=_init_worker,
            initargs=(self.engine_settings, self.settings, os.getpid()),
        )


@dataclass
class _Part:
    """The questions of a batch dealt to one worker: their positions in the batch, and the answers to come."""

    worker: int
    positions: list[int]
    future: Future
    pool: ProcessPoolExecutor
    reported: bool = False  # its answers' count and seconds told to the dealer


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


def _answer_in_worker(batch: list[Question]) -> tuple[list[tuple[Answer, tuple[str, ...]]], float]:
    # The engine opens with the first batch: an index it cannot open is then that batch's InputError, raised to
    # the caller, rather than an initializer failure the pool would only report as broken.
    global _worker_engine
    started = time.process_time()  # CPU seconds, for the dealer: what the part cost, however busy the machine
    engine_settings, settings = _worker_settings
    if _worker_engine is None:
        _worker_engine = Engine(engine_settings)
        # The engine lives as long as the worker: the collector's full passes need not walk its objects (nor those
        # inherited from the parent, whose pages they would copy). A UFO-2024 pass: 0.19 -> 0.11 s of collection.
        gc.freeze()
    return answer_batch(_worker_engine, batch, settings), time.process_time() - started
