"""The textworld engine inside one process: loading it, one call at a time, and reusing idle engines."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from envs.alfworld_knowledge_base import knowledge_base_kept_in
from envs.alfworld_memos import install_memos, memos_installed, translations_folder
from envs.alfworld_replanning import skip_replanning

DEFAULT_DATA_DIR: Path = Path(__file__).resolve().parents[1] / "data" / "alfworld"
"""The project's copy of the ALFWorld data; holds `json_2.1.1/valid_unseen/` and `sets/`."""

# One engine call at a time per process: fast_downward's PDDL translation (every load and reset)
# rebinds sys.argv and sets module-level options, and textworld parses text on every reset and step
# with module-level tatsu parsers that break when two threads share them.
ENGINE_LOCK = threading.Lock()


@contextmanager
def kept_argv() -> Iterator[None]:
    argv = sys.argv
    try:
        yield
    finally:
        sys.argv = argv


@contextmanager
def _alfworld_data_env() -> Iterator[None]:
    """Importing alfworld creates and exports $ALFWORLD_DATA (default ~/.cache/alfworld); playing a
    game file needs neither, so point it at the project's data for the import and unset it after."""
    if "alfworld" in sys.modules or "ALFWORLD_DATA" in os.environ:
        yield
        return
    os.environ["ALFWORLD_DATA"] = str(DEFAULT_DATA_DIR)
    try:
        yield
    finally:
        os.environ.pop("ALFWORLD_DATA", None)


def load_engine() -> None:
    """Import the engine (seconds: textworld parses its knowledge base on import, unless the translations folder
    keeps it: envs/alfworld_knowledge_base.py) and install its memos, as the first episode would; an engine worker
    does it as it starts, before its first request."""
    with _alfworld_data_env(), knowledge_base_kept_in(translations_folder()):
        import alfworld.agents.environment.alfred_tw_env  # noqa: F401 (imported to load it, not to use a name)
    import textworld.envs.wrappers  # noqa: F401 (imported to load it, not to use a name)

    install_memos()


def start_engine(policy_commands: bool, keep_replanning: bool = False) -> Any:
    """A textworld engine with the wrappers ALFWorld's AlfredTWEnv uses at eval time, so the text is
    what Reflexion saw; Filter turns its states into (observation, infos) as textworld.gym does.

    Built as textworld.start builds a .tw-pddl game's engine, but without its load: every reset loads its game.
    keep_replanning: an engine without the per-step plan that can still replan when its caller asks
    (envs/alfworld_replay.py).
    """
    load_engine()
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
    import textworld
    from textworld.envs.pddl import PddlEnv
    from textworld.envs.wrappers import Filter

    pddl_env = PddlEnv(textworld.EnvInfos(won=True, admissible_commands=True, policy_commands=policy_commands))
    if not (policy_commands or keep_replanning) and memos_installed():  # the replanner's translation is deferred
        skip_replanning(pddl_env)
    engine: Any = pddl_env
    for wrapper in (AlfredDemangler(shuffle=False), AlfredInfos, Filter):
        engine = wrapper(engine)
    return engine


class EnginePool:
    """Idle engines, by whether they report the planner's plan.

    Every engine loads its own copy of fast_downward's 34 MB libdownward.so and never unloads it, so
    an engine per episode grows the process by about 5 MB a game (thousands of games in a run).
    Episodes borrow an idle engine and give it back on close; loading a game resets it fully.
    """

    def __init__(self) -> None:
        self._idle: dict[bool, list[Any]] = {False: [], True: []}
        self._lock = threading.Lock()

    def take(self, policy_commands: bool) -> Any:
        with self._lock:
            idle = self._idle[policy_commands]
            if idle:
                return idle.pop()
        return start_engine(policy_commands)

    def give(self, engine: Any, policy_commands: bool) -> None:
        with self._lock:
            self._idle[policy_commands].append(engine)


ENGINES = EnginePool()
