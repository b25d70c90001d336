"""Ctrl-C and SIGTERM as a request to stop: the run starts no further trial, gives the running ones a short grace,
and records what finished; a second signal stops at once."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_GRACE_S = 5.0
"""Seconds the trials running when the signal came get to finish and be recorded."""
# SIGHUP too: a closed terminal or ssh session stops the run as cleanly as Ctrl-C (nohup keeps it ignored).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _handle_unignored(handler: Callable[[int, FrameType | None], None]) -> dict[signal.Signals, Any]:
    """Give `handler` every stop signal the process was not started to ignore; the handlers it replaced."""
    return {
        stop_signal: signal.signal(stop_signal, handler)
        for stop_signal in STOP_SIGNALS
        if signal.getsignal(stop_signal) is not signal.SIG_IGN
    }


class StartupStop:
    """A stop signal while the harness loads or plans: nothing is under way, so it prints `message` and exits with
    128 + the signal, and is remembered, for the run to refuse to begin if library code caught the SystemExit."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.received: signal.Signals | None = None

    def install(self) -> None:
        """Handle the stop signals until the run installs its own (stop_on_signals); ignored ones stay ignored."""
        _handle_unignored(self._handle)

    def hold(self) -> None:
        """Until `release_held_stops`, a stop signal prints its line but exits only then: Hydra composing the config
        would take an exit raised inside it for an error of its own (exit 1 and a garbled message)."""
        if self not in _HELD:
            _HELD.append(self)

    def release(self) -> None:
        """Exit now if a stop signal came while held; from here on one exits at once again."""
        if self in _HELD:
            _HELD.remove(self)
        if self.received is not None:
            sys.exit(128 + self.received)

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signal.Signals(number)
            print(self.message, file=sys.stderr)
        if self not in _HELD:
            sys.exit(128 + self.received)


_HELD: list[StartupStop] = []


def release_held_stops() -> None:
    """The config is composed, the harness's own code runs again: a stop held meanwhile exits here."""
    for stop in list(_HELD):
        stop.release()


class StopAtOnce(KeyboardInterrupt):
    """The second stop signal: the run ends now, with 128 + that signal as its exit code."""

    def __init__(self, received: signal.Signals) -> None:
        super().__init__(received.name)
        self.received = received

    @property
    def exit_code(self) -> int:
        return 128 + self.received


class StopRequest:
    """Set once by the first stop signal; read by the loop between trials."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.signal: signal.Signals | None = None

    def request(self, received: signal.Signals) -> None:
        self.signal = received
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()


@contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """Within this block SIGINT, SIGTERM and SIGHUP set the yielded StopRequest; a second one raises StopAtOnce.

    A signal the process was started to ignore (nohup, a background job) stays ignored. Outside the main thread
    (a launcher's worker thread) no handler can be set, and the request is never set.
    """
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handle(number: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise StopAtOnce(signal.Signals(number))  # the second signal: the user will not wait for the grace
        stop.request(signal.Signals(number))

    previous = _handle_unignored(handle)
    try:
        yield stop
    finally:
        for stop_signal, handler in previous.items():
            signal.signal(stop_signal, handler)
