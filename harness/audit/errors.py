"""Errors of the audit command's inputs; the command line prints each as one sentence and exits 2."""

from __future__ import annotations

from harness.errors import HarnessError


class LogsDirError(HarnessError):
    """The logs folder given to the audit does not exist."""


class EnvMappingError(HarnessError):
    """The env_N -> game mapping is unreadable or lacks an environment that has reflections."""


class UnknownTaskError(HarnessError):
    """A task id matches no task of the chosen source."""
