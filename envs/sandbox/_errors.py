"""The error the sandbox raises when it cannot do its own job (never for what the code under test does)."""

from __future__ import annotations

from harness.errors import HarnessError


class SandboxError(HarnessError):
    """The sandbox could not isolate, run or clean up after the code; the code's own failures are verdicts."""
