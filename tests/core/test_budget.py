"""A time budget holds even when its error is raised where Python cannot pass it on."""

import time

import pytest

from core.budget import time_limit


class Late(BaseException):
    pass


class Swallows:
    """Its destructor runs Python code: an error raised there is only reported, never passed on."""

    def __del__(self):
        deadline = time.perf_counter() + 0.2
        while time.perf_counter() < deadline:
            pass


def test_the_block_is_stopped_past_its_budget():
    with pytest.raises(Late):
        with time_limit(0.05, Late):
            time.sleep(0.5)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the lost raise, as reported
def test_an_error_lost_in_a_destructor_is_raised_when_the_block_ends():
    with pytest.raises(Late):
        with time_limit(0.05, Late):
            Swallows()  # the timer goes off inside __del__, where the raise is lost


def test_a_block_within_its_budget_runs_to_the_end():
    with time_limit(5, Late):
        done = True
    assert done
