"""run.log beside the terminal's log lines."""

from __future__ import annotations

import logging
from pathlib import Path

LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"


class RunLogHandler(logging.FileHandler):
    """run.log: when a write fails (a full disk), it stops writing instead of printing a traceback per line; the
    terminal still gets every line."""

    def handleError(self, record: logging.LogRecord) -> None:
        logging.getLogger().removeHandler(self)
        self.close()


def setup_logging(run_dir: Path) -> None:
    """Also log to `<run_dir>/run.log`; the terminal handler comes from configs/hydra/job_logging/console.yaml."""
    handler = RunLogHandler(run_dir / "run.log")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.getLogger().addHandler(handler)
