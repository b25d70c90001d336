"""The environments whose memory froze in the published Reflexion ALFWorld run.

`python -m harness.cli.frozen_set` rewrites data/alfworld/sets/frozen_published.txt from the logs, so the shipped set
is computed by this code, never typed in; a run reads the set as data.
"""

from __future__ import annotations

from pathlib import Path

from harness.audit.alfworld_mention import DEFAULT_ENV_TO_GAME, read_env_to_game
from harness.audit.env_results import load_env_results_run
from harness.audit.sources import DEFAULT_ROOT
from harness.errors import GameNotFoundError
from harness.metrics.frozen import frozen_ids

PUBLISHED_RUN = "alfworld_runs/root/reflexion_run_logs"
PUBLISHED_SET = Path(__file__).resolve().parents[2] / "data" / "alfworld" / "sets" / "frozen_published.txt"


def published_frozen_games(
    logs_dir: Path = DEFAULT_ROOT, env_to_game: Path = DEFAULT_ENV_TO_GAME
) -> list[tuple[str, str]]:
    """(env_N, game id) of every environment whose final memory froze in the published run, in env order."""
    tasks = load_env_results_run(logs_dir / PUBLISHED_RUN, domain="alfworld", source=PUBLISHED_RUN)
    mapping = read_env_to_game(env_to_game)
    frozen = frozen_ids({task.task_id: task.reflections for task in tasks})
    missing = [env for env in frozen if env not in mapping]
    if missing:
        raise GameNotFoundError(f"{env_to_game} maps no game for {', '.join(missing)}.")
    return [(env, mapping[env]) for env in frozen]


def published_set_text(logs_dir: Path = DEFAULT_ROOT, env_to_game: Path = DEFAULT_ENV_TO_GAME) -> str:
    """The frozen_published set file, with a header saying how it was made."""
    lines = [
        "# Environments whose memory froze (RRR >= 0.5 over the final memory) in the published Reflexion",
        f"# ALFWorld run, data/reflexion-logs/{PUBLISHED_RUN}, mapped to games with alfworld_env_to_game.json.",
        "# Written by `python -m harness.cli.frozen_set`; do not edit by hand.",
    ]
    lines += [f"{game}  # {env}" for env, game in published_frozen_games(logs_dir, env_to_game)]
    return "\n".join(lines) + "\n"
