"""Errors the memory gate raises on purpose; the command line prints each as one sentence."""

from __future__ import annotations

from harness.errors import HarnessError


class GateError(HarnessError):
    """Base of every gate error; also a pile or dropped log line that is not what the gate wrote."""


class InvalidGateStoreError(GateError):
    """A path given as a gate store is not one (no directory, no marker, another kind or version)."""


class GateDecisionError(GateError):
    """A decision was refused: unknown id, already decided, bad decision or reviewer, or a broken chain."""


class GateChainError(GateError):
    """The decision chain does not verify, so nothing can be derived from it."""
