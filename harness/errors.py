"""Typed errors the harness raises on purpose, and the one way a command turns one into a sentence and an exit code.

A sentence quotes paths, overrides and library messages that echo them, so it is printed with its control
characters shown, never acted on. The table that shows them sits here, at the bottom of the layers, as every package
(records, the report, the gate, the run's log lines) prints data through it too.
"""

from __future__ import annotations

import sys
from typing import NoReturn

EXIT_BAD_INPUT = 2
"""Every command's exit code for input it refuses (argparse's too)."""
EXIT_BROKEN = 1
"""A store or file the command found damaged, as opposed to input it refuses."""
EXIT_INTERRUPTED = 130
"""128 + SIGINT, the shell's code for a process stopped by Ctrl-C."""
EXIT_PIPE_CLOSED = 141
"""128 + SIGPIPE: what the shell reports for a reader that stopped reading (`| head`)."""

_BIDI = (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
# C0 controls and DEL as their Unicode control pictures (U+2400 block, newline as U+240A), the others as their code
# point in angle brackets: a newline or carriage return would end a line or table row, the rest are invisible and can
# reorder or hide what is around them.
_VISIBLE: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20)},
    0x7F: "\u2421",
    **{code: f"<U+{code:04X}>" for code in (*range(0x80, 0xA0), *_BIDI, 0x2028, 0x2029)},
}
_VISIBLE_IN_PROSE = {code: shown for code, shown in _VISIBLE.items() if chr(code) not in "\n\t"}


def visible(text: str) -> str:
    """`text` with every control, bidirectional override and line separator shown as a symbol."""
    return text.translate(_VISIBLE)


def visible_in_prose(text: str) -> str:
    """visible(), keeping newlines and tabs: for text a page lays out as written (a reflection, an observation)."""
    return text.translate(_VISIBLE_IN_PROSE)


def fail(error: Exception | str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print `error: <one sentence>` on stderr, its control characters shown (a newline too, so it stays one line),
    and exit with `code`."""
    print(f"error: {visible(str(error))}", file=sys.stderr)
    sys.exit(code)


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class LLMError(HarnessError):
    """A model could not answer a request."""


class LLMRequestError(LLMError):
    """The API refused the request (400/401/403/404/422 or another non-retryable status); retrying cannot help."""

    def __init__(self, *, status: int, model: str, base_url: str, detail: str, check: str) -> None:
        self.status = status
        self.model = model
        self.base_url = base_url
        super().__init__(
            f"HTTP {status} from {base_url} for model {model!r}: {detail.strip() or 'no detail'}. Check {check}."
        )


class ContextOverflowError(LLMError):
    """The prompt plus the requested completion does not fit the model's context window."""

    def __init__(self, *, model: str, prompt_tokens: int, max_tokens: int, n_ctx: int) -> None:
        self.model = model
        self.prompt_tokens = prompt_tokens
        self.max_tokens = max_tokens
        self.n_ctx = n_ctx
        super().__init__(
            f"prompt of {prompt_tokens} tokens plus max_tokens={max_tokens} exceeds the context window "
            f"n_ctx={n_ctx} of model {model!r} (at most {n_ctx - max_tokens} prompt tokens fit)."
        )


class ReplayMissError(LLMError):
    """Replay mode found no cached answer; no model was called."""

    def __init__(self, *, key: str, identity: str, cache_path: str, caller: str) -> None:
        self.key = key
        self.identity = identity
        self.cache_path = cache_path
        super().__init__(
            f"replay miss for {caller}: key {key} (model {identity}) is not in {cache_path}; "
            "no model was called. Record it first with cache mode 'auto' or 'record'."
        )


class CacheCorruptError(LLMError):
    """A cache file line is not what was written (bad JSON, missing fields, a checksum mismatch), or answers a key an
    earlier line answers."""

    def __init__(self, *, path: str, line: int, key: str | None, reason: str, remedy: str = "delete that line") -> None:
        self.path = path
        self.line = line
        self.key = key
        super().__init__(
            f"cache file {path} line {line} (key {key or 'unreadable'}) is corrupt: {reason}; "
            f"{remedy} or restore the file from git."
        )


class RecordedBeforeError(LLMError):
    """Cache mode `record` met a key the cache file answered before the run opened it."""

    def __init__(self, *, key: str, cache_path: str, caller: str) -> None:
        self.key = key
        super().__init__(
            f"llm.cache.mode=record asks the model afresh, but {cache_path} already answered key {key} ({caller}) "
            "before this run opened it, and a cache keeps one answer per key; record into a new llm.cache.path, or "
            "take the recorded answers with llm.cache.mode=auto (which also resumes a recording)."
        )


class ModelIntegrityError(LLMError):
    """An embedded model's package is missing, has the wrong version, or its bytes do not match the pinned hash."""


class MissingAPIKeyError(LLMError):
    """The environment variable that should hold the API key is unset or empty."""

    def __init__(self, *, env_var: str, model: str, base_url: str | None) -> None:
        self.env_var = env_var
        where = base_url or "the OpenAI API"
        super().__init__(
            f"environment variable {env_var} is not set, but model {model!r} at {where} needs an API key from it; "
            f"for a local server that accepts any key, set {env_var}=none."
        )


class GameNotFoundError(HarnessError):
    """An environment, game, game set or task type name matches nothing shipped; the message says what would."""


class ConfigError(HarnessError):
    """The composed configuration is invalid; raised before any work starts."""


class RecordCorruptError(HarnessError):
    """A run's records cannot be trusted as they are (a bad line that is not a torn tail, a duplicate)."""


class LogLineError(RecordCorruptError):
    """A line of a durable log is not a record of its kind, or records a key an earlier line holds."""

    def __init__(
        self, message: str, *, path: str, line: int, reason: str, raw: bytes, repeats: int | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        self.raw = raw
        self.repeats = repeats
        """The earlier line holding the same key, when this line repeats a key."""
        super().__init__(message)


class LogChangedError(RecordCorruptError):
    """A log that only one process writes changed since that process last read or wrote it."""


class RecordWriteError(HarnessError):
    """A record or a run's file could not be written (a full disk, a filesystem gone read-only)."""


class CacheWriteError(RecordWriteError, LLMError):
    """The LLM cache (or its lock file beside it) could not be written; the message names the file and its disk."""


class ResumeMismatchError(HarnessError):
    """A run directory was started under a configuration that would change its finished trials."""


class RecordsWithoutManifestError(HarnessError):
    """A run directory holds records but no manifest, so no one can tell what configuration played them."""


class ModelUnreachableError(LLMError):
    """An API-backed model's server did not answer before the run started; nothing was written."""

    def __init__(self, *, model: str, url: str, reason: str) -> None:
        self.model = model
        self.url = url
        super().__init__(
            f"model {model!r} cannot be reached: GET {url} failed ({reason}); start the server or correct "
            "model.base_url (replaying with llm.cache.mode=replay needs no server)."
        )


class GameFileError(HarnessError):
    """A shipped game file cannot be read or parsed."""


class RunDirBusyError(HarnessError):
    """Another live process is writing the run directory."""


class RunLockUnusableError(HarnessError):
    """run.lock is not a regular file (a directory, device or pipe is in its place), so nothing can be locked."""


class RunDirLostError(HarnessError):
    """The run directory this process locked was moved or replaced, or another process took its run.lock."""


class RateLimitError(LLMError):
    """One request needs more tokens than the model's whole tokens_per_minute budget, so it could never be sent."""

    def __init__(self, *, model: str, tokens: int, tokens_per_minute: int) -> None:
        self.model = model
        self.tokens = tokens
        self.tokens_per_minute = tokens_per_minute
        super().__init__(
            f"a request to model {model!r} needs about {tokens} tokens (prompt plus max_tokens), more than its whole "
            f"tokens_per_minute={tokens_per_minute}, so it would wait forever; raise model.tokens_per_minute to "
            "your API tier's limit or set it to null."
        )


class EngineWorkerError(HarnessError):
    """An ALFWorld engine worker process died mid-episode; that trial is not recorded."""


class RunInterrupted(HarnessError):
    """SIGINT or SIGTERM stopped the run: no trial started after it, what finished in the grace was recorded."""

    def __init__(self, *, signal_name: str, signal_number: int, finished: int, dropped: int, recorded: int) -> None:
        self.signal_name = signal_name
        self.exit_code = 128 + signal_number  # the shell's convention for a process ended by a signal
        running = f"{finished} running trial(s) finished and were recorded"
        if dropped:
            running += f", {dropped} still running were dropped (played again on resume)"
        super().__init__(
            f"{signal_name} received: no further trial started, {running}; {recorded} trial(s) are recorded in all, "
            "and the same command resumes the run."
        )
