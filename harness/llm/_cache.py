"""The response cache: a wrapper around any Backend, backed by an append-only JSONL file."""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import IO, Any, get_args

from pydantic import BaseModel, ValidationError

from harness.errors import CacheCorruptError, ReplayMissError
from harness.llm._backend import Backend
from harness.llm._config import CacheMode
from harness.llm._types import CallContext, LLMRequest, LLMResponse

log = logging.getLogger(__name__)

_LINE_FIELDS = ("key", "checksum", "identity", "request", "response")


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(identity: str, request: LLMRequest) -> str:
    """SHA-256 of the backend identity and the request: only what changes the output, never keys or URLs."""
    return _sha256(_canonical_json({"identity": identity, "request": request.model_dump(mode="json")}))


def _response_checksum(response_json: dict[str, Any]) -> str:
    return _sha256(_canonical_json(response_json))


class CacheStore:
    """An append-only JSONL file of responses by key; later lines win, so 'record' overwrites by appending.

    Several threads and processes may share one file: appends hold an exclusive flock and are fsynced,
    reads hold a shared one, and a miss re-reads whatever other writers appended since.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._entries: dict[str, LLMResponse] = {}
        self._offset = 0  # bytes of complete lines already read
        self._lines_read = 0
        self._torn_reported_at: int | None = None  # warn once per torn tail, not on every miss
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._read_new_lines()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, key: str) -> LLMResponse | None:
        """The stored response for `key`, or None."""
        with self._lock:
            if key not in self._entries:
                self._read_new_lines()
            return self._entries.get(key)

    def put(self, key: str, response: LLMResponse, request: LLMRequest, identity: str) -> None:
        """Append one entry durably: written, flushed and fsynced before returning."""
        # Retries tell how one call went, not what the model said: left out, they cannot make replays differ.
        response_json = response.model_dump(mode="json", exclude={"retries"})
        line = _canonical_json(
            {
                "key": key,
                "checksum": _response_checksum(response_json),
                "identity": identity,
                "request": request.model_dump(mode="json"),
                "response": response_json,
            }
        )
        with self._lock, open(self.path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self._ingest(handle)
                self._truncate_torn_tail(handle)
                handle.write(line.encode("utf-8") + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
                self._offset = os.fstat(handle.fileno()).st_size
                self._lines_read += 1
                self._entries[key] = response
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _read_new_lines(self) -> None:
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)
            try:
                self._ingest(handle)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _ingest(self, handle: IO[bytes]) -> None:
        """Parse the complete lines after the read offset; a final line without newline is left unread."""
        handle.seek(self._offset)
        data = handle.read()
        complete_end = data.rfind(b"\n") + 1
        number = self._lines_read
        for raw in data[:complete_end].split(b"\n")[:-1]:
            number += 1
            if raw.strip():  # a blank line left by a hand edit carries nothing
                key, response = self._parse_line(raw, number)
                self._entries[key] = response
        self._lines_read = number
        self._offset += complete_end
        if complete_end < len(data) and self._torn_reported_at != self._offset:
            # Only a crash mid-append leaves this: every writer holds the lock for a whole line.
            self._torn_reported_at = self._offset
            log.warning(
                "cache file %s ends with a torn line %d (%d bytes, no newline); ignoring it",
                self.path,
                self._lines_read + 1,
                len(data) - complete_end,
            )

    def _truncate_torn_tail(self, handle: IO[bytes]) -> None:
        size = handle.seek(0, os.SEEK_END)
        if size > self._offset:
            log.warning("truncating torn line at byte %d of %s before appending", self._offset, self.path)
            handle.truncate(self._offset)

    def _parse_line(self, raw: bytes, number: int) -> tuple[str, LLMResponse]:
        path = str(self.path)
        try:
            entry = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CacheCorruptError(path=path, line=number, key=None, reason=f"invalid JSON ({error})") from None
        if not isinstance(entry, dict) or any(field not in entry for field in _LINE_FIELDS):
            raise CacheCorruptError(
                path=path, line=number, key=None, reason=f"an entry needs the fields {', '.join(_LINE_FIELDS)}"
            )
        key = str(entry["key"])
        if _response_checksum(entry["response"]) != entry["checksum"]:
            raise CacheCorruptError(path=path, line=number, key=key, reason="response checksum mismatch")
        try:
            return key, LLMResponse.model_validate(entry["response"])
        except ValidationError as error:
            raise CacheCorruptError(path=path, line=number, key=key, reason=f"invalid response ({error})") from None


class CacheStats(BaseModel):
    """Lookups answered from the cache, and lookups that were not."""

    hits: int = 0
    misses: int = 0


class CachedLLM:
    """A Backend behind the cache; the only thing the rest of the harness calls to reach a model."""

    def __init__(self, backend: Backend, store: CacheStore, mode: CacheMode) -> None:
        if mode not in get_args(CacheMode):
            raise ValueError(f"unknown cache mode {mode!r}; accepted: {', '.join(get_args(CacheMode))}")
        self.backend = backend
        self.store = store
        self.mode: CacheMode = mode
        self.identity = backend.identity
        self.stats = CacheStats()
        self._stats_lock = threading.Lock()

    def generate(self, request: LLMRequest, context: CallContext | None = None) -> LLMResponse:
        """Answer from the cache or the backend as the mode says; a replay miss raises without calling."""
        if self.mode == "off":
            return self.backend.generate(request)
        key = cache_key(self.identity, request)
        if self.mode != "record":
            hit = self.store.get(key)
            self._count(hit is not None)
            if hit is not None:
                return hit.model_copy(update={"cached": True, "retries": 0})
            if self.mode == "replay":
                caller = context.describe() if context else "an unnamed caller"
                raise ReplayMissError(key=key, identity=self.identity, cache_path=str(self.store.path), caller=caller)
        response = self.backend.generate(request)
        self.store.put(key, response, request, self.identity)
        return response

    def _count(self, hit: bool) -> None:
        with self._stats_lock:
            if hit:
                self.stats.hits += 1
            else:
                self.stats.misses += 1
