"""The response cache: a wrapper around any Backend, backed by an append-only JSONL file."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from collections.abc import Callable
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, Field, model_validator

from harness.errors import CacheCorruptError, LogLineError, ReplayMissError
from harness.llm._backend import Backend
from harness.llm._config import CacheMode
from harness.llm._types import CallContext, LLMRequest, LLMResponse
from harness.records.canonical import canonical_json, sha256_hex
from harness.records.log import DurableLog

_Result = TypeVar("_Result")


def cache_key(identity: str, request: LLMRequest) -> str:
    """SHA-256 of the backend identity and the request: only what changes the output, never keys or URLs.

    A top_p that is not sent is left out, so requests written before top_p existed keep their keys.
    """
    exclude = {"top_p"} if request.top_p is None else set()
    return sha256_hex({"identity": identity, "request": request.model_dump(mode="json", exclude=exclude)})


class CacheEntry(BaseModel):
    """One line of the cache file: a response by key, with the request and backend it answers and a checksum."""

    key: str = Field(description="cache_key() of `identity` and `request`.")
    checksum: str = Field(description="SHA-256 of the canonical JSON of `response` as written.")
    identity: str = Field(description="The backend's identity.")
    request: dict[str, Any] = Field(description="The request, for readers; the key already covers it.")
    response: LLMResponse = Field(description="The answer, without its retries (they say how a call went).")

    @model_validator(mode="before")
    @classmethod
    def _checksum_matches(cls, data: Any) -> Any:
        # Over the response as written, before validation could fill in or coerce anything.
        if isinstance(data, dict) and {"checksum", "response"} <= data.keys():
            if sha256_hex(data["response"]) != data["checksum"]:
                raise ValueError("response checksum mismatch")
        return data


def _entry_line(entry: CacheEntry) -> str:
    return canonical_json(entry.model_dump(mode="json", exclude={"response": {"retries"}}))


class CacheStore:
    """An append-only JSONL file of responses by key; later lines win, so 'record' overwrites by appending.

    A durable log (`harness.records.log`) without a key: several threads and processes may share one file,
    appends are locked and fsynced, and a miss re-reads whatever other writers appended since.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._log = DurableLog(self.path, CacheEntry, what="cache entry", dump=_entry_line)
        self._entries: dict[str, LLMResponse] = {}
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
        entry = CacheEntry.model_validate(
            {
                "key": key,
                "checksum": sha256_hex(response_json),
                "identity": identity,
                "request": request.model_dump(mode="json"),
                "response": response_json,
            }
        )
        with self._lock:
            self._refused_as_corrupt(lambda: self._log.append([entry]))
            self._entries[key] = response

    def _read_new_lines(self) -> None:
        for entry in self._refused_as_corrupt(self._log.read):
            self._entries[entry.key] = entry.response

    def _refused_as_corrupt(self, operation: Callable[[], _Result]) -> _Result:
        """`operation()`, with a line of the file that is no cache entry named as the cache's corruption."""
        try:
            return operation()
        except LogLineError as error:
            raise CacheCorruptError(
                path=str(self.path), line=error.line, key=_key_of(error.raw), reason=error.reason
            ) from None


def _key_of(raw: bytes) -> str | None:
    """The key a bad line names, when it names one."""
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    key = entry.get("key") if isinstance(entry, dict) else None
    return key if isinstance(key, str) else None


class CacheStats(BaseModel):
    """Lookups answered from the cache, and lookups that were not."""

    hits: int = 0
    misses: int = 0


class CachedLLM:
    """A Backend behind the cache; the only thing the rest of the harness calls to reach a model."""

    def __init__(self, backend: Backend, store: CacheStore, mode: CacheMode, host: str | None = None) -> None:
        if mode not in get_args(CacheMode):
            raise ValueError(f"unknown cache mode {mode!r}; accepted: {', '.join(get_args(CacheMode))}")
        self.backend = backend
        self.store = store
        self.mode: CacheMode = mode
        self.identity = backend.identity
        self.host = host
        """The API's host (ModelConfig.base_url_host), for the record of each call; never part of a key."""
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
