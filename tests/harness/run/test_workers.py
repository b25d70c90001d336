"""Trials side by side: bounded, handed over in the calling thread, cut short by a stop request or an error."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from harness.run.interrupt import StopRequest, stop_on_signals
from harness.run.workers import Played, play_side_by_side


def sleeper(seconds: float, value: int, started: list[int]) -> object:
    def job() -> int:
        started.append(value)
        time.sleep(seconds)
        return value

    return job


def test_every_job_runs_at_most_width_at_once_and_is_handed_over_in_this_thread() -> None:
    started: list[int] = []
    handed: list[tuple[int, bool]] = []
    jobs = [sleeper(0.05, k, started) for k in range(6)]
    played = play_side_by_side(
        jobs, 2, lambda v: handed.append((v, threading.current_thread() is threading.main_thread())), StopRequest(), 1.0
    )
    assert played == Played(0, 0, 0)
    assert sorted(v for v, _ in handed) == list(range(6)) and all(main for _, main in handed)


def test_a_stop_starts_nothing_more_and_leaves_a_slow_job_behind_after_the_grace() -> None:
    stop, started, handed = StopRequest(), [], []
    jobs = [sleeper(0.2, 0, started), sleeper(30.0, 1, started), *(sleeper(0.01, k, started) for k in range(2, 8))]
    timer = threading.Timer(0.05, stop.request, [signal.SIGINT])
    timer.start()
    began = time.monotonic()
    played = play_side_by_side(jobs, 2, handed.append, stop, grace_s=0.5)
    assert time.monotonic() - began < 2.0
    assert played == Played(after_stop=1, left_behind=1, not_started=6)
    assert handed == [0] and sorted(started) == [0, 1]


def test_an_error_starts_nothing_more_lets_the_running_finish_then_raises() -> None:
    started, handed = [], []

    def broken() -> int:
        started.append(-1)
        raise RuntimeError("broken trial")

    jobs = [broken, sleeper(0.2, 1, started), sleeper(0.01, 2, started), sleeper(0.01, 3, started)]
    with pytest.raises(RuntimeError, match="broken trial"):
        play_side_by_side(jobs, 2, handed.append, StopRequest(), 1.0)
    assert handed == [1], "the running job was kept; no job started after the error"


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stop_signal_sets_the_request_and_a_second_one_stops_at_once(stop_signal: signal.Signals) -> None:
    inherited = signal.getsignal(stop_signal)
    # As from a terminal: a suite started in the background (or under nohup) inherits SIGINT (SIGHUP) ignored,
    # which the run keeps ignored (tests/harness/run/test_interrupt.py::test_a_signal_ignored_by_the_caller_stays_ignored).
    signal.signal(stop_signal, signal.default_int_handler if stop_signal == signal.SIGINT else signal.SIG_DFL)
    before = signal.getsignal(stop_signal)
    try:
        with stop_on_signals() as stop:
            os.kill(os.getpid(), stop_signal)
            time.sleep(0.05)  # the handler runs between bytecodes of this thread
            assert stop.is_set() and stop.signal == stop_signal
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), stop_signal)
                time.sleep(0.05)
        assert signal.getsignal(stop_signal) == before, "the handler was not put back"
    finally:
        signal.signal(stop_signal, inherited)
