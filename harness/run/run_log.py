"""run.log beside the terminal's log lines, both rendered by VisibleFormatter."""

from __future__ import annotations

import logging
from pathlib import Path

from harness.errors import visible

LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"


class VisibleFormatter(logging.Formatter):
    """A log line with its control characters shown: a run directory, task id or model text in a message can carry
    neither a terminal control sequence nor a newline that fakes a log line of its own. A traceback of `exc_info`
    is appended after this, as written, so it stays readable."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible(super().formatMessage(record))


class RunLogHandler(logging.FileHandler):
    """run.log: when a write fails (a full disk), it stops writing instead of printing a traceback per line; the
    terminal still gets every line."""

    def handleError(self, record: logging.LogRecord) -> None:
        logging.getLogger().removeHandler(self)
        self.close()


def setup_logging(run_dir: Path) -> None:
    """Also log to `<run_dir>/run.log`; the terminal handler comes from configs/hydra/job_logging/console.yaml."""
    handler = RunLogHandler(run_dir / "run.log")
    handler.setFormatter(VisibleFormatter(LOG_FORMAT))
    logging.getLogger().addHandler(handler)
