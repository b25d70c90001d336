"""`python -m harness.cli.expert_plays`: data/alfworld/expert_trajectories.json rewritten, the planner's play of every
environment of the published run that wrote a reflection (harness/audit/expert_trajectories.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from harness.audit.expert_trajectories import EXPERT_FILE, SOURCE, env_games, play_expert, published_tasks, reflecting
from harness.records.propagation import ExpertTrajectories


def main(argv: Sequence[str] | None = None) -> None:
    # No options, but `--help` or a stray argument must not rewrite the shipped file.
    argparse.ArgumentParser(description="Rewrite data/alfworld/expert_trajectories.json: the planner's play of every "
                            "environment of the published run that wrote a reflection.").parse_args(argv)
    tasks = reflecting(published_tasks())
    games = env_games()
    played = [play_expert(t.task_id, games[t.task_id]) for t in tasks]
    lost = [p.env_id for p in played if not p.won]
    if lost:
        sys.exit(f"error: the planner did not win {', '.join(lost)}.")
    EXPERT_FILE.write_text(ExpertTrajectories(source=SOURCE, trajectories=played).model_dump_json(indent=1) + "\n")
    print(f"{len(played)} expert trajectories written to {EXPERT_FILE}")


if __name__ == "__main__":
    main()
