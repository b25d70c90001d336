"""Command-line plumbing: checks before Hydra starts, logging, and one-sentence failures."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import NoReturn

from harness.run.config import CONFIG_GROUPS, check_group_choice
from harness.errors import HarnessError

EXIT_BAD_INPUT = 2
ROLE_MODEL_KEYS = ("actor_model", "reflector_model")
LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"


def preflight(overrides: list[str]) -> None:
    """Check config-group choices before Hydra composes, so a typo costs one sentence, not a traceback."""
    for override in overrides:
        key, sep, value = override.lstrip("+~").partition("=")
        if not sep or "${" in value or "(" in value:
            continue
        group = "model" if key in ROLE_MODEL_KEYS else key
        if group not in CONFIG_GROUPS:
            continue
        # `strategy=a,b` sweeps, `strategy=[a,b]` selects several at once: either way, each name must exist.
        for choice in value.strip("[]").split(","):
            if key in ROLE_MODEL_KEYS and choice in ("", "null"):
                continue
            try:
                check_group_choice(group, choice)
            except HarnessError as error:
                fail(error, None)


def fail(error: HarnessError, created_dir: Path | None) -> NoReturn:
    """Print one sentence, remove a run directory only if it is still empty, and exit non-zero."""
    if created_dir is not None and created_dir.is_dir() and not any(created_dir.iterdir()):
        created_dir.rmdir()
    print(f"error: {error}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def setup_logging(run_dir: Path) -> None:
    """Also log to `<run_dir>/run.log`; the terminal handler comes from configs/hydra/job_logging/console.yaml."""
    handler = logging.FileHandler(run_dir / "run.log")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.getLogger().addHandler(handler)
