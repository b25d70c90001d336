"""`python -m harness.cli.frozen_set`: data/alfworld/sets/frozen_published.txt rewritten from the published logs
(harness/audit/frozen.py), so the shipped set is computed, never typed in."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from harness.audit.alfworld_mention import DEFAULT_ENV_TO_GAME
from harness.audit.frozen import PUBLISHED_SET, published_set_text


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write the frozen_published game set from the published logs.")
    parser.add_argument("--out", type=Path, default=PUBLISHED_SET, help="where to write the set file")
    parser.add_argument("--env-to-game", type=Path, default=DEFAULT_ENV_TO_GAME, help="env_N -> game id mapping (JSON)")
    args = parser.parse_args(argv)
    args.out.write_text(published_set_text(env_to_game=args.env_to_game))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
