"""How qa/io/dealing.py deals a batch's questions among worker processes."""

from __future__ import annotations

from qa.io.dealing import SLACK_QUESTIONS, Dealer
from qa.records import Question


def _batch(documents: list[str | None], start: int = 0) -> list[Question]:
    return [Question(str(start + i), "q", (doc,) if doc else ()) for i, doc in enumerate(documents)]


def _owners(dealt: list[list[int]], batch: list[Question]) -> dict[tuple[str, ...], set[int]]:
    owners: dict[tuple[str, ...], set[int]] = {}
    for worker, positions in enumerate(dealt):
        for i in positions:
            owners.setdefault(batch[i].sources, set()).add(worker)
    return owners


def _answer(dealer: Dealer, dealt: list[list[int]], seconds_each: list[float]) -> None:
    for worker, positions in enumerate(dealt):
        if positions:
            dealer.reported(worker, len(positions), len(positions) * seconds_each[worker])


def test_every_question_is_dealt_once_each_workers_share_in_batch_order():
    batch = _batch(["A", "B", None, "A", "C", None, "B", "D"] * 8)
    dealt = Dealer(3).deal(batch)
    assert sorted(i for part in dealt for i in part) == list(range(len(batch)))
    assert all(part == sorted(part) for part in dealt)
    assert max(map(len, dealt)) - min(map(len, dealt)) <= SLACK_QUESTIONS


def test_a_documents_questions_stay_with_the_worker_that_met_it_batch_after_batch():
    dealer = Dealer(2)
    documents = [f"D{n}" for n in range(12)]
    first = _batch(documents * 4)
    dealt = dealer.deal(first)
    owner = {doc: workers.pop() for doc, workers in _owners(dealt, first).items()}
    assert len(owner) == 12 and set(owner.values()) == {0, 1}  # each document on one worker, both busy
    _answer(dealer, dealt, [0.01, 0.01])
    for n in range(1, 5):
        batch = _batch(list(reversed(documents)) * 4, start=48 * n)
        dealt = dealer.deal(batch)
        assert {doc: workers.pop() for doc, workers in _owners(dealt, batch).items()} == owner
        _answer(dealer, dealt, [0.01, 0.01])


def test_a_slower_worker_gives_documents_to_the_other_until_their_loads_are_even():
    dealer = Dealer(2)
    documents = [f"D{n}" for n in range(16)]
    given = [0, 0]
    for n in range(10):
        batch = _batch(documents * 4, start=64 * n)
        dealt = dealer.deal(batch)
        _answer(dealer, dealt, [0.03, 0.01])  # worker 0's questions take three times as long
        given = [g + len(part) for g, part in zip(given, dealt)]
    seconds = [given[0] * 0.03, given[1] * 0.01]
    assert given[1] > 2 * given[0]
    assert abs(seconds[0] - seconds[1]) <= 2 * SLACK_QUESTIONS * 0.02  # within the slack of a mean pace


def test_questions_naming_no_document_and_a_single_document_are_shared_evenly():
    for documents in ([None] * 64, ["only"] * 64):
        dealer = Dealer(2)
        given = [0, 0]
        for n in range(4):
            dealt = dealer.deal(_batch(documents, start=64 * n))
            _answer(dealer, dealt, [0.01, 0.01])
            given = [g + len(part) for g, part in zip(given, dealt)]
            assert abs(given[0] - given[1]) <= SLACK_QUESTIONS + 1


def test_a_dead_workers_documents_are_dealt_afresh():
    dealer = Dealer(2)
    batch = _batch(["A", "B"] * 4)
    dealt = dealer.deal(batch)
    dead = dealer.owner[("A",)]
    dealer.lost(dead, len(dealt[dead]))
    assert ("A",) not in dealer.owner and dealer._state[dead].in_flight == 0
