"""Trials played side by side: at most `width` at once on daemon threads, their results collected by the calling
thread, cut short by an error or a stop request.

Daemon threads, not a ThreadPoolExecutor: the executor's threads are joined when the process exits, so a stopped
run would wait for every running trial however long it takes.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Generic, NamedTuple, TypeVar

from harness.run.interrupt import StopRequest

T = TypeVar("T")
POLL_S = 0.1
"""How often the calling thread looks at the stop request while it waits."""


class Played(NamedTuple):
    """How a batch of jobs ended under a stop request (all zeros when it ran to its end)."""

    after_stop: int
    """Jobs handed over after the stop request: they finished within the grace."""
    left_behind: int
    """Jobs still running when the grace ran out."""
    not_started: int
    """Jobs that never started."""


class Outcome(Generic[T]):
    """What one job left: its result, or the error it raised."""

    def __init__(self, index: int, result: T | None, error: BaseException | None) -> None:
        self.index = index
        self.result = result
        self.error = error


def play_side_by_side(
    jobs: Sequence[Callable[[], T]],
    width: int,
    on_done: Callable[[T], None],
    stop: StopRequest,
    grace_s: float,
) -> Played:
    """Run `jobs`, at most `width` at once, handing each result to `on_done` in this thread as it comes.

    A job that raises: no further job starts, the running ones finish and are handed over, then its error is
    raised. A stop request: no further job starts, and the running ones get `grace_s` seconds; those still running
    then are left behind (their threads never hold up the process's exit).
    """
    done: queue.Queue[Outcome[T]] = queue.Queue()
    waiting = list(enumerate(jobs))
    running: set[int] = set()
    first_error: BaseException | None = None
    after_stop = 0
    deadline: float | None = None

    def start(index: int, job: Callable[[], T]) -> None:
        def play() -> None:
            try:
                done.put(Outcome(index, job(), None))
            except BaseException as error:  # handed to the calling thread, which raises it
                done.put(Outcome(index, None, error))

        running.add(index)
        threading.Thread(target=play, name=f"trial-{index}", daemon=True).start()

    while True:
        while waiting and len(running) < width and first_error is None and not stop.is_set():
            start(*waiting.pop(0))
        if not running:
            break
        wait_s = POLL_S
        if stop.is_set():
            deadline = deadline if deadline is not None else time.monotonic() + grace_s
            left = deadline - time.monotonic()
            if left <= 0:
                return Played(after_stop, len(running), len(waiting))
            wait_s = min(wait_s, left)
        try:
            outcome = done.get(timeout=wait_s)
        except queue.Empty:
            continue
        running.discard(outcome.index)
        if outcome.error is not None:
            first_error = first_error or outcome.error
            continue
        on_done(outcome.result)  # type: ignore[arg-type]  # an outcome without an error holds its result
        after_stop += int(stop.is_set())
    if first_error is not None:
        raise first_error
    return Played(after_stop, 0, len(waiting))
