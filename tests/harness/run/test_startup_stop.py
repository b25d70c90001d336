"""A stop signal while the harness starts: it stops at once, and is remembered even when library code on the way
up catches the exception it raises."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.run.interrupt import STOP_SIGNALS, StartupStop
from tests.runner import ROOT, as_from_a_terminal

CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"


@pytest.fixture
def kept_handlers() -> Iterator[None]:
    previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for stop_signal, handler in previous.items():
            signal.signal(stop_signal, handler)


def test_a_start_up_signal_says_so_and_exits_with_128_plus_the_signal(
    kept_handlers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    stop = StartupStop("stopped at once")
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    stop.install()
    with pytest.raises(SystemExit) as exited:
        signal.raise_signal(signal.SIGTERM)
    assert exited.value.code == 143 and stop.received is signal.SIGTERM
    assert capsys.readouterr().err == "stopped at once\n"


def test_a_caught_start_up_signal_is_remembered_and_the_first_one_counts(
    kept_handlers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    stop = StartupStop("stopped at once")
    for stop_signal in (signal.SIGHUP, signal.SIGINT):
        signal.signal(stop_signal, signal.SIG_DFL)
    stop.install()
    for stop_signal in (signal.SIGHUP, signal.SIGINT):
        try:
            signal.raise_signal(stop_signal)
        except BaseException:  # what library code that catches everything does
            pass
    assert stop.received is signal.SIGHUP
    assert capsys.readouterr().err == "stopped at once\n"


def test_a_signal_the_caller_ignores_stays_ignored(kept_handlers: None) -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    stop = StartupStop("stopped at once")
    stop.install()
    signal.raise_signal(signal.SIGHUP)
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN and stop.received is None


SWALLOWING_RUN = """
import runpy, signal, sys
from harness.run import experiment

built = experiment.Experiment.__init__

def built_then_signalled(self, *args, **kwargs):
    built(self, *args, **kwargs)
    try:
        signal.raise_signal(signal.SIGINT)
    except BaseException:  # library code that catches everything, as the stop's exception passes through it
        pass

experiment.Experiment.__init__ = built_then_signalled
sys.argv = ["run.py", *sys.argv[1:]]
runpy.run_path("run.py", run_name="__main__")
"""


@pytest.mark.slow
def test_a_run_whose_start_up_stop_was_caught_does_not_begin_and_leaves_nothing(tmp_path: Path) -> None:
    overrides = (
        "experiment=five_conditions_demo",
        "strategy=[gated]",
        "llm.cache.mode=replay",
        f"llm.cache.path={CACHE}",
        "progress=false",
        f"hydra.run.dir={tmp_path / 'run'}",
    )
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWING_RUN, *overrides],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=as_from_a_terminal,
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines() == [
        "interrupted: stopped at once; every trial recorded so far is kept, run the same command to resume."
    ]
    assert list(tmp_path.iterdir()) == []
