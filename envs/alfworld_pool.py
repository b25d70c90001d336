"""ALFWorld engines in worker processes, so concurrent episodes run on every core instead of under one GIL.

The engine is pure Python and not thread-safe (see envs/alfworld_engine.py), so in one process episodes take turns.
An `EngineWorkers` pool starts up to `size` worker processes (envs/alfworld_worker.py) as episodes need them;
each episode is pinned to one worker for its life, and a thread waiting on its worker holds no lock but that
worker's. A worker plays the same game file through the same code as the in-process engine, so the text is
the same wherever an episode runs.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from envs.alfworld import AlfworldGame, ClosingEpisode, StepResult
from envs.alfworld_worker import Close, Open, Reply, Request, Reset, Step
from harness.errors import EngineWorkerError

ROOT = Path(__file__).resolve().parents[1]
STOP_WAIT_S = 5.0


def _ended(process: subprocess.Popen[bytes]) -> str:
    """How a worker process ended, in words."""
    try:
        code = process.wait(timeout=STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        return "stopped answering"
    return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"


class EngineWorker:
    """One worker process and this side of its socket; one request in flight at a time."""

    def __init__(self, index: int, translations: Path | None) -> None:
        self.index = index
        parent, child = socket.socketpair()
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        environment = {**os.environ, "PYTHONPATH": path}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "envs.alfworld_worker",
                str(child.fileno()),
                str(os.getpid()),
                *([str(translations)] if translations else []),
            ],
            pass_fds=(child.fileno(),),
            env=environment,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        child.close()
        self._socket = parent
        self._connection = Connection(os.dup(parent.fileno()))
        self._lock = threading.Lock()
        self.live = 0
        """Episodes open on this worker (guarded by the pool's lock)."""
        self.dead: str | None = None
        self._answered = False

    def call(self, request: Request, game_id: str) -> tuple[Reply, float]:
        """Send one request and wait for its reply; with it, the seconds the request waited for this worker to finish
        another episode's. A worker that dies meanwhile is named in one sentence."""
        asked = time.perf_counter()
        with self._lock:
            waited = time.perf_counter() - asked
            if self.dead is None:
                try:
                    self._connection.send(request)
                    reply: Reply = self._connection.recv()
                    self._answered = True
                    return reply, waited
                except (EOFError, OSError):
                    self.dead = self.dead or _ended(self.process)
        raise EngineWorkerError(
            f"ALFWorld engine worker {self.index} (pid {self.process.pid}) {self.dead} while playing {game_id}; "
            "its trial is not recorded and is played again when the run is resumed."
        )

    def stop(self) -> None:
        """Hang up, then wait for the process (killing it if it does not end), so no zombie is left."""
        self.dead = "was stopped as the run ended"
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._socket.close()
        with self._lock:
            self._connection.close()
            if not self._answered:
                # Still loading its engine (a run refused after warm_up): it holds nothing, and would only
                # notice the hang-up once loaded, seconds later.
                self.process.kill()
        try:
            self.process.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class EngineWorkers:
    """Up to `size` engine processes, started as concurrent episodes need them; close() stops them all."""

    def __init__(self, size: int, translations: Path | None = None) -> None:
        """translations: where the workers keep translations on disk (None: in memory only)."""
        if size < 1:
            raise ValueError(f"an engine pool needs at least 1 worker, got {size}")
        self.size = size
        self.translations = translations
        self._workers: list[EngineWorker] = []
        self._homes: dict[str, EngineWorker] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._closed = False

    def _assign(self, game_id: str) -> EngineWorker:
        """The worker for a new episode: an idle one, a new one while below size, else the least busy.

        Among equally busy workers the game's last one wins: it holds the game's translation already.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine pool is closed")
            alive = [w for w in self._workers if w.dead is None]
            least = min((w.live for w in alive), default=None)
            if least is None or (least > 0 and len(alive) < self.size):
                worker = EngineWorker(len(self._workers), self.translations)
                self._workers.append(worker)
            else:
                home = self._homes.get(game_id)
                worker = home if home in alive and home.live == least else next(w for w in alive if w.live == least)
            worker.live += 1
            self._homes[game_id] = worker
            return worker

    def _release(self, worker: EngineWorker) -> None:
        with self._lock:
            worker.live -= 1

    def start(self, count: int) -> None:
        """Start workers until `count` (at most size) are running; each loads its engine while the caller goes on."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine pool is closed")
            while len(self._workers) < min(count, self.size):
                self._workers.append(EngineWorker(len(self._workers), self.translations))

    def episode(
        self, game: AlfworldGame, max_episode_steps: int | None = 50, policy_commands: bool = False
    ) -> RemoteEpisode:
        """An episode of `game` on one worker; arguments as AlfworldEpisode's."""
        return RemoteEpisode(self, next(self._ids), game, max_episode_steps, policy_commands)

    def close(self) -> None:
        """Stop every worker and wait for it; safe to call twice."""
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()

    def pids(self) -> list[int]:
        """Process ids of the workers started so far and not stopped."""
        with self._lock:
            return [w.process.pid for w in self._workers]


class RemoteEpisode(ClosingEpisode):
    """AlfworldEpisode's interface, played on a worker: env_seconds is the wait for it (queueing included),
    wait_seconds the part of it spent queueing behind other episodes' requests to the same worker, cpu_seconds the
    engine's own CPU time in the worker."""

    def __init__(
        self,
        pool: EngineWorkers,
        episode_id: int,
        game: AlfworldGame,
        max_episode_steps: int | None,
        policy_commands: bool,
    ) -> None:
        self.game = game
        self.max_episode_steps = max_episode_steps
        self.policy_commands = policy_commands
        self.env_seconds = 0.0
        self.wait_seconds = 0.0
        self.cpu_seconds = 0.0
        self.steps = 0
        self._pool = pool
        self._id = episode_id
        self._worker: EngineWorker | None = None

    def _call(self, request: Request) -> Any:
        assert self._worker is not None
        started = time.perf_counter()
        reply, waited = self._worker.call(request, self.game.game_id)
        self.env_seconds += time.perf_counter() - started
        self.wait_seconds += waited
        self.cpu_seconds += reply.cpu_s
        if reply.error is not None:
            raise reply.error
        return reply.result

    def reset(self) -> StepResult:
        """Start (or restart) the game on this episode's worker and return its opening text."""
        if self._worker is None:
            self._worker = self._pool._assign(self.game.game_id)
            self._call(Open(self._id, self.game, self.max_episode_steps, self.policy_commands))
        result: StepResult = self._call(Reset(self._id))
        self.steps = 0
        return result

    def step(self, action: str) -> StepResult:
        """Send one command, as AlfworldEpisode.step."""
        if self._worker is None:
            raise RuntimeError(f"{self.game.game_id}: step() before reset().")
        result: StepResult = self._call(Step(self._id, action))
        self.steps += 1
        return result

    def close(self) -> None:
        """Give the worker's engine back and the worker to the pool; safe to call twice."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        try:
            if worker.dead is None:
                worker.call(Close(self._id), self.game.game_id)
        finally:
            self._pool._release(worker)
