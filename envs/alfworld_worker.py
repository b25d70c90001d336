"""An ALFWorld engine process: plays the episodes its parent opens, one request at a time.

    python -m envs.alfworld_worker FD RUN_PID [TRANSLATIONS_DIR]

FD is this end of a socket pair; RUN_PID only shows in `ps` which run the worker belongs to;
TRANSLATIONS_DIR is where translations are kept on disk (envs/alfworld_memos.py); requests and replies are pickled `multiprocessing.connection` messages. The
worker ends when its parent closes the socket (or dies), so it never outlives the run. It runs in a session
of its own: a Ctrl-C at the terminal reaches the run, which decides when its workers stop.
"""

from __future__ import annotations

import pickle
import signal
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from envs.alfworld import AlfworldEpisode, AlfworldGame
from envs.alfworld_engine import load_engine
from envs.alfworld_memos import keep_translations_in


@dataclass(frozen=True)
class Open:
    """Start an episode of `game` under the parent's id for it."""

    episode: int
    game: AlfworldGame
    max_episode_steps: int | None
    policy_commands: bool


@dataclass(frozen=True)
class Reset:
    episode: int


@dataclass(frozen=True)
class Step:
    episode: int
    action: str


@dataclass(frozen=True)
class Close:
    episode: int


Request = Open | Reset | Step | Close


@dataclass(frozen=True)
class Reply:
    """A request's result (or the exception it raised) and the engine CPU seconds it took in this process."""

    result: Any
    error: BaseException | None
    cpu_s: float


def handle(request: Request, episodes: dict[int, AlfworldEpisode]) -> Any:
    """Carry out one request on this worker's episodes."""
    if isinstance(request, Open):
        episodes[request.episode] = AlfworldEpisode(request.game, request.max_episode_steps, request.policy_commands)
        return None
    if isinstance(request, Close):
        episode = episodes.pop(request.episode, None)
        if episode is not None:
            episode.close()
        return None
    episode = episodes[request.episode]
    return episode.reset() if isinstance(request, Reset) else episode.step(request.action)


def _picklable(error: BaseException) -> BaseException:
    try:
        pickle.dumps(error)
    except Exception:  # an engine error carrying unpicklable state still reaches the parent as text
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def serve(connection: Connection) -> None:
    """Load the engine, then answer requests until the parent hangs up."""
    # Ctrl-C and a closed terminal reach the whole process group: the parent decides when a worker ends (it hangs
    # up), so a worker ignores them instead of dying mid-reply with a traceback.
    for stop_signal in (signal.SIGINT, signal.SIGHUP):
        signal.signal(stop_signal, signal.SIG_IGN)
    # Loaded before the first request arrives, while the run is still starting; an engine that cannot be
    # loaded is the answer to every request, as it would have been in the run's own process.
    try:
        load_engine()
        broken: BaseException | None = None
    except Exception as error:
        broken = _picklable(error)
    episodes: dict[int, AlfworldEpisode] = {}
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        started = time.process_time()
        try:
            if broken is not None:
                raise broken
            reply = Reply(handle(request, episodes), None, 0.0)
        except Exception as error:
            reply = Reply(None, _picklable(error), 0.0)
        try:
            connection.send(Reply(reply.result, reply.error, time.process_time() - started))
        except OSError:  # the parent hung up while this request ran (BrokenPipeError): nobody is left to answer
            return


if __name__ == "__main__":
    # Run from the module by its own name, so what it pickles names envs.alfworld_worker, not __main__.
    from envs import alfworld_worker

    keep_translations_in(Path(sys.argv[3]) if len(sys.argv) > 3 else None)
    alfworld_worker.serve(Connection(int(sys.argv[1])))
