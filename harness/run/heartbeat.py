"""A call every few seconds on a thread of its own, for as long as a `with` block runs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType


class Heartbeat:
    """Calls `beat` every `interval_s` seconds while the block runs; leaving the block stops the thread and waits
    for it, so no beat comes after the block (a beat under way when it ends finishes first)."""

    def __init__(self, interval_s: float, beat: Callable[[], None], name: str = "heartbeat") -> None:
        self.interval_s = interval_s
        self._beat = beat
        self._stopped = threading.Event()
        # A daemon as well: should the block never be left (the interpreter dying), it holds up no exit.
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        while not self._stopped.wait(self.interval_s):
            self._beat()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stopped.set()
        self._thread.join()
