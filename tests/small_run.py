"""The smallest real run: one ALFWorld game, two trials, replayed from the committed cache (about 15 s)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.runner import REPLAY_CACHE, ROOT, quiet

GAME = "pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165"
SMALL_RUN = (
    "llm.cache.mode=replay",
    f"llm.cache.path={REPLAY_CACHE}",
    "env.set=null",
    f"env.games=[{GAME}]",
    "experiment.trials=2",
)


def small_run_command(run_dir: Path, *extra: str) -> list[str]:
    """`python run.py` with SMALL_RUN into `run_dir`, for Popen (run_cli takes SMALL_RUN as it is)."""
    return [sys.executable, str(ROOT / "run.py"), *quiet(*SMALL_RUN, *extra, f"hydra.run.dir={run_dir}")]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` by relative path, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
