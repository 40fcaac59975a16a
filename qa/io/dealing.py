"""Which worker process answers which questions of a batch: a document's questions stay with one worker.

Much of a question's cost is work done the first time a process meets its document (the document's table rows,
text chunks and labels, kept for its next questions). Questions arrive interleaved across documents, so batches
cut in consecutive parts made every worker meet every document: two workers answering UFO-2024 that way executed
18% more instructions between them than one process answering it all; split by document, 3% more. The dealer
gives a document's questions (those naming the same `sources`) to the worker that answered its earlier ones, and
keeps the workers' loads even: a document moves to the least loaded worker when its own is more than
SLACK_QUESTIONS questions' time ahead (a load is the seconds a worker reported plus its questions in flight at
the workers' mean pace). Questions that name no document fill the gaps.

>>> dealer = Dealer(2)
>>> batch = [Question("1", "a", ("D1",)), Question("2", "b", ("D2",)), Question("3", "c", ("D1",))]
>>> dealer.deal(batch)
[[0, 2], [1]]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qa.records import Question

SLACK_QUESTIONS = 24  # a worker keeps its documents while ahead by less than this many questions' time


@dataclass
class _Worker:
    """What a worker has reported (questions, seconds) and has in flight (questions dealt, not reported)."""

    answered: int = 0
    seconds: float = 0.0
    in_flight: int = 0

    def load(self, pace: float) -> float:
        """Seconds of work given to it so far, those in flight at `pace` seconds a question."""
        return self.seconds + self.in_flight * pace


@dataclass
class Dealer:
    """Deals each batch's questions among `workers` processes (see the module docstring)."""

    workers: int
    owner: dict[tuple[str, ...], int] = field(default_factory=dict)  # a document's worker
    _state: list[_Worker] = field(default_factory=list)

    def __post_init__(self):
        self._state = [_Worker() for _ in range(self.workers)]

    def deal(self, batch: list[Question]) -> list[list[int]]:
        """For each worker, the positions in `batch` of the questions it answers (in batch order)."""
        groups: dict[tuple[str, ...] | int, list[int]] = {}
        for i, question in enumerate(batch):
            groups.setdefault(question.sources or i, []).append(i)  # no document: a group of its own
        # Documents with a worker first, so that the others, and the questions naming none, fill the gaps.
        order = sorted(groups, key=lambda key: key not in self.owner)
        pace = self._pace()
        slack = SLACK_QUESTIONS * pace
        dealt: list[list[int]] = [[] for _ in range(self.workers)]
        for key in order:
            for position in groups[key]:
                loads = [w.load(pace) for w in self._state]
                least = min(range(self.workers), key=loads.__getitem__)
                worker = self.owner.get(key) if isinstance(key, tuple) else None
                if worker is None or loads[worker] - loads[least] > slack:
                    # a new document, or its worker too far ahead: it moves (a large one is shared)
                    worker = least
                    if isinstance(key, tuple):
                        self.owner[key] = worker
                dealt[worker].append(position)
                self._state[worker].in_flight += 1
        return [sorted(positions) for positions in dealt]

    def reported(self, worker: int, questions: int, seconds: float) -> None:
        """Worker `worker` answered `questions` of its questions in flight in `seconds`."""
        state = self._state[worker]
        state.answered += questions
        state.seconds += seconds
        state.in_flight -= questions

    def lost(self, worker: int, questions: int) -> None:
        """Worker `worker` died holding `questions`: they are answered by nobody, and its documents start afresh."""
        self._state[worker].in_flight -= questions
        self.owner = {key: n for key, n in self.owner.items() if n != worker}

    def _pace(self) -> float:
        """Seconds a question, as answered so far (1 before any answer: only the loads' differences matter). The
        workers' mean: what one worker paid once (a library loaded by its first question of a kind) is in its
        reported seconds, not in what its next questions are expected to cost."""
        answered = sum(w.answered for w in self._state)
        return sum(w.seconds for w in self._state) / answered if answered else 1.0
