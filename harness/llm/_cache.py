"""The response cache: a wrapper around any Backend, backed by an append-only JSONL file."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, Field, model_validator

from harness.errors import CacheCorruptError, LogLineError, RecordedBeforeError, ReplayMissError
from harness.llm._backend import Backend
from harness.llm._cache_disk import unwritable
from harness.llm._config import CacheMode
from harness.llm._in_flight import claim
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
    """An append-only JSONL file of responses, one per key: equal keys, equal answers, in every record and replay.

    A durable log (`harness.records.log`) keyed by the cache key: several threads and processes may share one file,
    appends are locked and fsynced, a miss re-reads whatever other writers appended since, and a second line for a
    key (a second writer's answer, a hand edit) is refused when read, naming both lines, never taken in the first's
    place. A request is asked under a claim on its key (`claim`), so writers that share the file ask it once.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._log = DurableLog(
            self.path, CacheEntry, what="cache entry", key=lambda entry: entry.key, name_key=_the_key, dump=_entry_line
        )
        self._entries: dict[str, LLMResponse] = {}
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._read_new_lines()
        self.held_at_open = frozenset(self._entries)
        """The keys the file answered when this store opened it (cache mode `record` asks none of them again)."""

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, key: str) -> LLMResponse | None:
        """The stored response for `key`, or None."""
        with self._lock:
            if key not in self._entries:
                self._read_new_lines()
            return self._entries.get(key)

    def claim(self, key: str) -> AbstractContextManager[None]:
        """Hold `key` for a block: any other claim of it, by a thread of this process or another process, waits."""
        return claim(self.path, key)

    def put(self, key: str, response: LLMResponse, request: LLMRequest, identity: str) -> LLMResponse:
        """Append `response` durably (written, flushed and fsynced before returning) unless the file answers `key`
        already: the answer the file keeps, `response` itself or the one another writer appended meanwhile."""
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
            if self._refused_as_corrupt(lambda: self._append(entry)):
                self._entries[key] = response
            self._read_new_lines()  # what other writers appended, read on the way (their answer to `key`, if any)
            return self._entries[key]

    def _append(self, entry: CacheEntry) -> bool:
        """Whether `entry` was appended (not when the file holds its key); a failed write names the file's disk."""
        try:
            return bool(self._log.append_missing([entry]))
        except OSError as error:
            raise unwritable(self.path, error) from error

    def _read_new_lines(self) -> None:
        for entry in self._refused_as_corrupt(self._log.read):
            self._entries[entry.key] = entry.response

    def _refused_as_corrupt(self, operation: Callable[[], _Result]) -> _Result:
        """`operation()`, with a line of the file that is no cache entry named as the cache's corruption."""
        try:
            return operation()
        except LogLineError as error:
            remedy = {} if error.repeats is None else {"remedy": "delete the one of the two that is not the model's"}
            raise CacheCorruptError(
                path=str(self.path), line=error.line, key=_key_of(error.raw), reason=error.reason, **remedy
            ) from None


def _the_key(key: object) -> str:
    # The cache's sentence names the line's key already; the log's own sentence says only that it repeats.
    return "an answer to the same key"


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
        """Answer from the cache or the backend as the mode says; a replay miss raises without calling.

        A miss is asked under a claim on its key, so threads and processes sharing the file ask it once: one that
        waited for the claim takes the answer the holder stored, as a hit.
        """
        if self.mode == "off":
            return self.backend.generate(request)
        key = cache_key(self.identity, request)
        stored = self._stored(key, context)
        if stored is None and self.mode == "replay":
            self._count(hit=False)
            caller = context.describe() if context else "an unnamed caller"
            raise ReplayMissError(key=key, identity=self.identity, cache_path=str(self.store.path), caller=caller)
        if stored is None:
            with self.store.claim(key):
                stored = self._stored(key, context)  # answered while this call waited for the claim
                if stored is None:
                    response = self.backend.generate(request)
                    stored = self.store.put(key, response, request, self.identity)
                    if stored is response:
                        self._count(hit=False)
                        return response
        self._count(hit=True)
        return stored.model_copy(update={"cached": True, "retries": 0})

    def _stored(self, key: str, context: CallContext | None) -> LLMResponse | None:
        """The cached answer to `key`; `record` refuses one the file held before the run, which it would not ask."""
        stored = self.store.get(key)
        if stored is not None and self.mode == "record" and key in self.store.held_at_open:
            caller = context.describe() if context else "an unnamed caller"
            raise RecordedBeforeError(key=key, cache_path=str(self.store.path), caller=caller)
        return stored

    def _count(self, hit: bool) -> None:
        with self._stats_lock:
            if hit:
                self.stats.hits += 1
            else:
                self.stats.misses += 1
