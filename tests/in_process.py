"""The command line run inside the test process: `run.py`'s own path (argv -> the checks before Hydra -> Hydra's
composition -> the input guard -> the run) or a package's `main`, with what a process would leave behind put back.

A new interpreter costs 2-4 s of imports per call; a refusal or a replayed run shows nothing more in one. What only a
process shows (exit by signal, kill -9, Ctrl-C, console scripts, `python -m`, the sandbox) stays in
`tests.runner.run_process`.
"""

from __future__ import annotations

import importlib
import io
import logging
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from harness.cli.leave import exit_code

ROOT = Path(__file__).resolve().parents[1]
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE)


@dataclass(frozen=True)
class Outcome:
    """What a command left: its exit code and its two streams, as `subprocess.CompletedProcess` names them."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _process_state(argv: list[str], cwd: Path = ROOT) -> Iterator[None]:
    """Put back what a command changes for the whole process: argv, the working directory, the stop signals'
    handlers, the loggers (a library's logging config, alembic's under mlflow's sqlite store, disables every logger
    that exists: harmless at the end of a process, not in the one that runs the next test)."""
    saved_argv, saved_cwd = sys.argv[:], os.getcwd()
    handlers = {number: signal.getsignal(number) for number in _SIGNALS}
    root = logging.getLogger()
    root_handlers, root_level = root.handlers[:], root.level
    loggers = {
        logger: (logger.disabled, logger.level, logger.propagate, logger.handlers[:])
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    }
    sys.argv[:] = argv
    os.chdir(cwd)
    try:
        yield
    finally:
        sys.argv[:] = saved_argv
        os.chdir(saved_cwd)
        for number, handler in handlers.items():
            signal.signal(number, handler)
        for handler in root.handlers[:]:
            if handler not in root_handlers:
                root.removeHandler(handler)
                handler.close()
        root.handlers[:] = root_handlers
        root.setLevel(root_level)
        for logger, (disabled, level, propagate, logger_handlers) in loggers.items():
            logger.disabled, logger.propagate, logger.handlers[:] = disabled, propagate, logger_handlers
            if logger.level != level:  # setLevel clears every logger's cache: once per changed logger, not per logger
                logger.setLevel(level)


@contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


# The filters a new interpreter starts with (no -W, no PYTHONWARNINGS): pytest's own would hide or record them.
_FRESH_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


@contextmanager
def _warnings_to(stderr: io.StringIO) -> Iterator[None]:
    """Warnings printed on `stderr` as a new process prints them, instead of recorded by pytest."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category, module in reversed(_FRESH_FILTERS):
            warnings.filterwarnings(action, category=category, module=module)

        def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
            stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

        warnings.showwarning = show
        yield


def call_main(
    main: Callable[[], object],
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    program: str = "python",
    cwd: Path = ROOT,
    stdin: str = "",
) -> Outcome:
    """`main()` with `sys.argv = [program, *argv]` in `cwd`, `stdin` as its input (not a terminal), its streams
    captured, its `sys.exit` (or the exit code it returns, as `sys.exit(main())` would pass it on) turned into a code."""
    arguments = [program, *argv]
    stdout, stderr = io.StringIO(), io.StringIO()
    with _environment(env), _process_state(arguments, cwd), _stdin(stdin), redirect_stdout(stdout), \
            redirect_stderr(stderr), _warnings_to(stderr):
        try:
            code = exit_code(main())  # inside the redirection: a message goes to the captured stderr
        except SystemExit as stop:
            code = exit_code(stop.code)
    return Outcome(arguments, code, stdout.getvalue(), stderr.getvalue())


def run_module(
    module: str, *argv: str, env: Mapping[str, str] | None = None, cwd: Path = ROOT, stdin: str = ""
) -> Outcome:
    """`python -m <module> <argv>` in this process: the module's (or its package's `__main__`'s) `main()`."""
    try:
        loaded = importlib.import_module(f"{module}.__main__")
    except ModuleNotFoundError as error:
        if error.name != f"{module}.__main__":
            raise
        loaded = importlib.import_module(module)
    return call_main(loaded.main, argv, env=env, program=f"python -m {module}", cwd=cwd, stdin=stdin)


def _reset_run_command() -> None:
    """What one `python run.py` leaves in module globals, dropped: the config folders it added."""
    from harness.run import config_dirs

    config_dirs._EXTRA.clear()


def _run_command_main() -> Callable[[], None]:
    # run_command installs its start-up signal handlers when imported: import it where they are put back.
    with _process_state(sys.argv[:]):
        from harness.cli.run_command import main
    return main


def run_in_process(*arguments: str, env: Mapping[str, str] | None = None, cwd: Path = ROOT) -> Outcome:
    """`python run.py <arguments>` in this process, from `cwd`."""
    main = _run_command_main()
    _reset_run_command()
    try:
        return call_main(main, arguments, env=env, program=str(ROOT / "run.py"), cwd=cwd)
    finally:
        _reset_run_command()
