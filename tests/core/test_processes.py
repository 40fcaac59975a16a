"""Ctrl-C held over a block that must finish whole (a batch's commit, forking workers), then raised."""

from __future__ import annotations

import os
import signal
import time

import pytest

from core.processes import interrupts_deferred


def test_ctrl_c_in_a_deferred_block_is_raised_when_the_block_ends():
    finished = []
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.1)  # the handler runs here: a plain KeyboardInterrupt would stop the block
                finished.append(True)
        assert finished == [True]
        with interrupts_deferred():  # without Ctrl-C nothing is raised
            finished.append(True)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_deferred_block_where_ctrl_c_is_ignored_stays_ignoring_it():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
