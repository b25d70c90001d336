"""Games translated ahead of their first reset, by a process of their own that runs only on idle CPU.

    python -m envs.alfworld_prefetch [--normal-priority] TRANSLATIONS_DIR GAME_FILE...

A game's first reset spends about a quarter of a second of CPU in fast_downward's translation
(envs/alfworld_memos.py) on the engine worker its episode is pinned to, and every other episode's step on that
worker waits behind it. The prefetcher translates the games into the translations folder in the order given,
skipping those already there, while the cores would otherwise idle (episodes spend most of their time waiting
for the model): it runs under SCHED_IDLE (nice 19 where that is refused), so it gives way to the run and its
workers. A reset reads what it has written; a game it has not reached yet is translated by the reset as before.
Either way the translation is the same call on the same texts, so nothing a run records changes.

Its stdin is a pipe from the run: it ends when the pipe closes (the run closed it, or died), even mid-translation,
and until then waits, so its CPU time stays countable with the run's children. A file is written aside and
renamed, so an end at any moment leaves no torn one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from envs.alfworld_memos import PersistedTranslations

ROOT = Path(__file__).resolve().parents[1]
STOP_WAIT_S = 5.0


def translate_games(folder: Path, game_files: Sequence[Path]) -> int:
    """Translate each game into `folder` as an engine's reset would (fast_downward.pddl2sas of its PDDL domain and
    problem); how many were translated here (the others were there already)."""
    import fast_downward

    translations = PersistedTranslations(fast_downward.pddl2sas, folder)
    for game_file in game_files:
        data = json.loads(Path(game_file).read_text())
        if not translations.translation_path(data["pddl_domain"], data["pddl_problem"]).exists():
            translations(data["pddl_domain"], data["pddl_problem"])
    return translations.writes


def _end_when_stdin_closes() -> None:
    sys.stdin.buffer.read()
    os._exit(0)


def _idle_priority() -> None:
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or refused: the lowest nice value instead
        os.nice(19)


class TranslationPrefetch:
    """The prefetcher process of one run, stopped by close()."""

    def __init__(self, folder: Path, game_files: Sequence[Path], idle: bool = True) -> None:
        """idle: False keeps the process at its parent's priority (for tests on a busy machine, where idle CPU
        may not come for minutes)."""
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "envs.alfworld_prefetch", *([] if idle else ["--normal-priority"]), str(folder),
             *map(str, game_files)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": path},
            start_new_session=True,
        )

    def close(self) -> None:
        """Kill the process (done or not) and wait for it; safe to call twice."""
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=STOP_WAIT_S)
        finally:
            if self.process.stdin is not None:
                self.process.stdin.close()


if __name__ == "__main__":
    watchdog = threading.Thread(target=_end_when_stdin_closes, daemon=True)
    watchdog.start()
    arguments = sys.argv[1:]
    if arguments[:1] == ["--normal-priority"]:
        arguments = arguments[1:]
    else:
        _idle_priority()
    translate_games(Path(arguments[0]), [Path(name) for name in arguments[1:]])
    watchdog.join()
