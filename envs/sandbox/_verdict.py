"""What a sandbox run concluded: one status, the per-test results behind it, and what the process did."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["passed", "failed", "error", "timeout", "resource_limit", "killed_by_signal", "exited_early"]
ResourceLimit = Literal["memory", "cpu", "file_size", "disk_space", "processes"]

# Signals the kernel sends for an exceeded limit (Python ignores SIGXFSZ unless the code restores it).
_LIMIT_SIGNALS: dict[str, ResourceLimit] = {"SIGXCPU": "cpu", "SIGXFSZ": "file_size"}


class SourceLine(BaseModel):
    """One line of the implementation or of the test script."""

    model_config = ConfigDict(frozen=True)

    line: int = Field(description="1-based line number within its own file.")
    text: str = Field(description="The line's source text, stripped.")


class RaisedException(BaseModel):
    """An exception that escaped the code or a test."""

    model_config = ConfigDict(frozen=True)

    type: str = Field(description='Class name, e.g. "ZeroDivisionError".')
    message: str = Field(description="str() of the exception, truncated.")
    implementation_line: SourceLine | None = Field(
        description="Deepest traceback line inside the implementation (for a SyntaxError: the bad line); null if none."
    )
    test_line: SourceLine | None = Field(
        description="Deepest traceback line inside a test script (check_script tests only); null otherwise."
    )
    resource_limit: ResourceLimit | None = Field(
        description="The limit this exception reports: MemoryError, EFBIG, ENOSPC, EAGAIN from fork; null otherwise."
    )
    system_exit: bool = Field(description="A SystemExit: the code called sys.exit(), exit() or quit().")

    def where(self) -> str:
        """' at line N of the implementation: <text>', or '' if the implementation is not involved."""
        line = self.implementation_line or self.test_line
        if line is None:
            return ""
        place = "the implementation" if self.implementation_line else "the tests"
        return f" at line {line.line} of {place}: {line.text}"


class TestResult(BaseModel):
    """One assert of an assert list, or the whole check() call of a test script."""

    model_config = ConfigDict(frozen=True)
    __test__ = False  # not a pytest test class, whatever pytest imports it into

    source: str = Field(
        description="The statement (asserts), or for a script the failing assert's text or 'check(<entry point>)'."
    )
    line: int | None = Field(description="Line of the failing assert within the test script; null otherwise.")
    outcome: Literal["passed", "failed", "error"] = Field(
        description="failed: an assert of the tests was false; error: an exception escaped (see error)."
    )
    actual: str | None = Field(
        None, description="repr (truncated) of the failing comparison's left side, or of the asserted expression."
    )
    actual_str: str | None = Field(
        None, description="str() (truncated) of the same value: what Reflexion's feedback printed after '# output:'."
    )
    expected: str | None = Field(None, description="repr (truncated) of the failing comparison's right side.")
    error: RaisedException | None = Field(None, description="The exception, when outcome is error.")


class CapturedOutput(BaseModel):
    """What the code wrote to stdout or stderr, capped."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The first bytes written, decoded as UTF-8 (invalid bytes replaced).")
    total_bytes: int = Field(description="Everything written, kept or not.")
    truncated: bool = Field(description="total_bytes exceeded the cap, so text is only the beginning.")


class Isolation(BaseModel):
    """What contained this run, as the runner reported it before the code started."""

    model_config = ConfigDict(frozen=True)

    uid: int = Field(description="User id the code ran as.")
    gid: int = Field(description="Group id the code ran as.")
    privileges_dropped: bool = Field(
        description="Root was dropped to a dedicated uid with no capabilities, inside private mount, network and "
        "IPC namespaces (read-only filesystem but the tmpfs workdir and /dev/shm, home hidden, /proc listing only "
        "the sandbox's processes, no network, SysV IPC and POSIX message queues of its own)."
    )
    unix_sockets_refused: bool = Field(
        False, description="A seccomp filter refuses creating Unix sockets (but connected stream pairs)."
    )
    writes_outside_refused: bool = Field(
        False,
        description="Landlock refuses opening a file for writing (a named pipe included) outside the workdir, "
        "/dev/shm and /dev/null-like devices; False where the kernel has no Landlock.",
    )


class Verdict(BaseModel):
    """The outcome of running code against tests in the sandbox."""

    model_config = ConfigDict(frozen=True)

    status: Status = Field(
        description="passed | failed (an assert was false) | error (an exception escaped) | timeout (wall time) | "
        "resource_limit (see resource_limit) | killed_by_signal (see signal) | exited_early (the process ended, "
        "or cut its report channel, before the tests finished: sys.exit, os._exit, closed descriptors)."
    )
    summary: str = Field(description="One sentence saying what happened, for people and prompts.")
    tests: list[TestResult] = Field(description="Results of the tests that finished, in order.")
    load_error: RaisedException | None = Field(
        description="Exception raised while the code itself ran (module level, before any test); null if none."
    )
    resource_limit: ResourceLimit | None = Field(description="The limit that stopped the code, if that is the status.")
    signal: str | None = Field(description='Signal that ended the process, e.g. "SIGSEGV"; null if it exited.')
    exit_code: int | None = Field(description="Exit status of the runner process; null if a signal ended it.")
    duration_s: float = Field(description="Wall time from start to the end of the runner process.")
    cpu_s: float = Field(description="CPU time (user + system) of the runner process.")
    stdout: CapturedOutput
    stderr: CapturedOutput
    isolation: Isolation | None = Field(description="Null only if the process ended before its setup finished.")

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def decide(
    *,
    timed_out: bool,
    signal: str | None,
    cpu_exhausted: bool,
    finished: bool,
    load_error: RaisedException | None,
    tests: list[TestResult],
) -> tuple[Status, ResourceLimit | None]:
    """The status of a run, and the limit hit if that is the status; the first rule that applies wins."""
    if timed_out:
        return "timeout", None
    if signal in _LIMIT_SIGNALS:
        return "resource_limit", _LIMIT_SIGNALS[signal]
    if signal == "SIGKILL" and cpu_exhausted:
        return "resource_limit", "cpu"  # RLIMIT_CPU's hard limit, after the code caught SIGXCPU
    if signal is not None:
        return "killed_by_signal", None
    errors = [e for e in [load_error, *(t.error for t in tests)] if e is not None]
    if not finished or any(e.system_exit for e in errors):
        return "exited_early", None
    limit = next((e.resource_limit for e in errors if e.resource_limit), None)
    if limit is not None:
        return "resource_limit", limit
    if errors:
        return "error", None
    if any(t.outcome == "failed" for t in tests):
        return "failed", None
    return "passed", None


def summarize(
    status: Status,
    *,
    tests: list[TestResult],
    load_error: RaisedException | None,
    resource_limit: ResourceLimit | None,
    signal: str | None,
    exit_code: int | None,
    timeout_s: float,
) -> str:
    """One sentence for a verdict."""
    errors = [e for e in [load_error, *(t.error for t in tests)] if e is not None]
    if status == "passed":
        return f"All {len(tests)} test(s) passed."
    if status == "failed":
        failed = [t for t in tests if t.outcome == "failed"]
        first = failed[0]
        where = f" (line {first.line} of the tests)" if first.line is not None else ""
        got = f": got {first.actual}" if first.actual is not None else ""
        wanted = f", expected {first.expected}" if first.expected is not None else ""
        return f"{len(failed)} of {len(tests)} test(s) failed; first: {first.source}{where}{got}{wanted}."
    if status == "error":
        error = errors[0]
        erring = next((t for t in tests if t.error is error), None)
        when = f"in test {erring.source}" if erring else "while loading the code"
        return f"{error.type} {when}: {error.message}{error.where()}."
    if status == "timeout":
        return f"Still running after {timeout_s:g} s of wall time; every process of the run was killed."
    if status == "resource_limit":
        cause = next((f" ({e.type}{e.where()})" for e in errors if e.resource_limit), "")
        return f"Stopped by the {(resource_limit or '').replace('_', ' ')} limit{cause}."
    if status == "killed_by_signal":
        return f"The process was killed by {signal}."
    exit_call = next((e for e in errors if e.system_exit), None)
    if exit_call is not None:
        return f"The code called sys.exit({exit_call.message}) before the tests finished{exit_call.where()}."
    return (
        f"The process ended with exit code {exit_code} before the tests finished (os._exit or a closed report channel)."
    )
