"""Progress in process: the plan's upper bound, the progress line's arithmetic on a fake clock, the bar's selection,
and a line thread that stops with the loop."""

from __future__ import annotations

import io
import logging
import threading

import pytest

from harness.llm import Price, Usage
from harness.metrics.cost import ConditionPrices, RolePrice, UsageTotals
from harness.records import TrialRecord
from harness.records.config_diff import shaping_changes
from harness.run.heartbeat import Heartbeat
from harness.run.progress import Progress
from harness.run.progress_line import ProgressSnapshot, eta_s, progress_line
from harness.records.trial_count import TrialCount
from tests.harness.factories import make_record

CHAINS = [("self_diagnosis", "a/b", 0), ("self_diagnosis", "c/d", 0)]


def ended(record: TrialRecord) -> bool:
    return record.success


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def snapshot(**fields: object) -> ProgressSnapshot:
    values: dict[str, object] = dict(
        done=0, planned=6, in_flight=2, finished_here=0, elapsed_s=30.0, usage=UsageTotals(), priced=False
    )
    return ProgressSnapshot(**{**values, **fields})  # type: ignore[arg-type]


def test_the_plan_shrinks_as_tasks_end_and_meets_the_records_at_the_end() -> None:
    count = TrialCount(CHAINS, trials=3, ended=ended)
    assert (count.done, count.planned) == (0, 6)
    count.add(make_record(0, "r", success=True, task="a/b"))  # a/b solved at once: its trials 1 and 2 never come
    assert (count.done, count.planned) == (1, 4)
    count.add(make_record(0, "r", task="c/d"))
    count.add(make_record(1, "r", task="c/d"))
    count.add(make_record(2, None, task="c/d"))
    assert count.done == count.planned == 4


def test_records_outside_the_plan_count_in_neither() -> None:
    recorded = [make_record(5, "r", task="a/b"), make_record(0, "r", task="a/b", condition="no_memory")]
    count = TrialCount(CHAINS, trials=3, ended=ended, recorded=recorded)
    assert (count.done, count.planned) == (0, 6)


def test_eta_is_the_mean_time_per_finished_trial_times_the_trials_left() -> None:
    assert eta_s(elapsed_s=30.0, finished_here=0, left=5) is None
    assert eta_s(elapsed_s=30.0, finished_here=3, left=5) == pytest.approx(50.0)
    assert eta_s(elapsed_s=30.0, finished_here=3, left=0) == 0.0
    assert eta_s(elapsed_s=0.0, finished_here=0, left=0) == 0.0  # a resumed run with nothing left to play


def test_the_line_says_eta_unknown_before_the_first_trial_and_shows_cost_only_when_priced() -> None:
    first = progress_line(snapshot())
    assert first.startswith("progress: 0 of at most 6 trials done, 2 in flight")
    assert first.endswith("elapsed 00:30, ETA unknown")
    assert "$" not in first
    usage = UsageTotals(calls=1234, prompt_tokens=1_000_000, completion_tokens=234_567, cost_usd=0.5)
    later = progress_line(snapshot(done=3, finished_here=2, elapsed_s=120.0, usage=usage, priced=True))
    assert "1,234 model calls, 1,234,567 tokens, $0.5000 at list price" in later
    assert later.endswith("elapsed 02:00, ETA 03:00")  # 60 s a trial, 3 left


def test_progress_counts_calls_in_flight_and_times_from_the_loop_s_start() -> None:
    clock = FakeClock()
    price = Price(prompt_usd_per_million=1.0, completion_usd_per_million=2.0, as_of="2026-11-30")
    roles = ConditionPrices(actor=RolePrice(model="m", price=price), reflector=RolePrice(model="m", price=None))
    prices = {"self_diagnosis": roles}
    progress = Progress(3, enabled=False, prices=prices, clock=clock)
    resumed = [make_record(0, "r", task="a/b")]  # one call, 2 tokens, recorded by an earlier invocation
    clock.now += 500  # the time before the loop starts is no trial's
    with progress.running(TrialCount(CHAINS, 3, ended, resumed), resumed):
        clock.now += 10
        before = progress.snapshot()
        progress.episode_started()
        progress.call_made("self_diagnosis", "actor", Usage(prompt_tokens=1_000_000, completion_tokens=0))
        progress.call_made("self_diagnosis", "reflector", Usage(prompt_tokens=10, completion_tokens=0))
        clock.now += 20
        progress.trial_done(make_record(0, "r", task="c/d"))
        after = progress.snapshot()
    assert (before.done, before.planned, before.elapsed_s, before.usage.calls) == (1, 6, 10.0, 1)
    assert "ETA unknown" in progress_line(before)
    assert (after.done, after.in_flight, after.finished_here, after.elapsed_s) == (2, 0, 1, 30.0)
    assert after.usage.calls == 3 and after.usage.tokens == 2 + 1_000_010
    # The actor's million prompt tokens and the resumed trial's 1 + 1 actor tokens; the reflector is unpriced.
    assert after.usage.cost_usd == pytest.approx(1.0 + 3e-6)
    assert progress_line(after).endswith("ETA 02:00")  # 30 s for the one trial finished here, 4 left


def test_a_terminal_gets_the_bar_with_the_step_in_flight_and_a_pipe_does_not() -> None:
    assert not Progress(2, stream=io.StringIO()).live
    assert not Progress(2, enabled=False, stream=Terminal()).live
    terminal = Terminal()
    progress = Progress(2, stream=terminal)
    assert progress.live
    with progress.running(TrialCount(CHAINS, 2, ended)):
        progress.episode_started()
        progress.step("self_diagnosis a/b", 0, 7)
        progress.trial_done(make_record(0, "r", success=True, task="a/b"))
    shown = terminal.getvalue()
    assert "trials:" in shown and "trial 1/2 | self_diagnosis a/b step 7" in shown
    assert "1/3" in shown  # a/b was solved: the bar's total shrank from 4 to 3


def test_off_a_terminal_the_loop_ends_with_one_last_line(caplog: pytest.LogCaptureFixture) -> None:
    progress = Progress(2, stream=io.StringIO(), interval_s=3600)
    with caplog.at_level(logging.INFO, logger="harness.run.progress"):
        with progress.running(TrialCount(CHAINS[:1], 1, ended)):
            progress.episode_started()
            progress.trial_done(make_record(0, None, task="a/b"))
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("progress:")]
    assert len(lines) == 1 and lines[0].startswith("progress: 1 of at most 1 trials done, 0 in flight")


def test_the_line_thread_is_gone_when_the_loop_ends_even_by_an_error() -> None:
    beats: list[int] = []
    first = threading.Event()

    def beat() -> None:
        beats.append(1)
        first.set()

    with pytest.raises(KeyboardInterrupt):
        with Heartbeat(0.001, beat, name="test-beat") as heartbeat:
            assert first.wait(30)
            raise KeyboardInterrupt
    seen = len(beats)
    assert not heartbeat._thread.is_alive()
    assert "test-beat" not in [t.name for t in threading.enumerate()]
    assert len(beats) == seen


def test_the_progress_settings_may_change_or_appear_on_resume() -> None:
    before_it_existed = {"progress": True, "experiment": {"seed": 0}}
    now = {"progress": False, "progress_interval_s": 5.0, "experiment": {"seed": 0}}
    assert shaping_changes(before_it_existed, now) == {}
    assert shaping_changes(now, {**now, "progress_interval_s": 600.0}) == {}

