"""CachedLLM modes and the JSONL store's durability rules, against a counting fake backend."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from harness.errors import CacheCorruptError, RecordedBeforeError, ReplayMissError
from harness.llm import CachedLLM, CacheStore, CallContext, LLMRequest, LLMResponse, Usage, cache_key
from harness.records.canonical import sha256_hex


class CountingFakeBackend:
    """A stand-in model for cache tests only: answers with a call counter and counts its calls."""

    identity = "counting-fake"

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def generate(self, request: LLMRequest) -> LLMResponse:
        with self._lock:
            self.calls += 1
            n = self.calls
        return LLMResponse(
            text=f"answer {n} to {request.prompt}",
            usage=Usage(prompt_tokens=7, completion_tokens=n),
            latency_s=0.25 * n,
        )


CONTEXT = CallContext(task_id="pick_and_place-42", trial=3, condition="self-diagnosis", role="actor")


def request(prompt: str = "> go to desk 1\n") -> LLMRequest:
    return LLMRequest(kind="completion", prompt=prompt, stop=["\n"])


def cached(tmp_path: Path, mode: str) -> tuple[CachedLLM, CountingFakeBackend]:
    backend = CountingFakeBackend()
    return CachedLLM(backend, CacheStore(tmp_path / "cache.jsonl"), mode), backend  # type: ignore[arg-type]


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_off_calls_every_time_and_stores_nothing(tmp_path: Path) -> None:
    llm, backend = cached(tmp_path, "off")
    assert llm.generate(request()).text != llm.generate(request()).text
    assert backend.calls == 2
    assert not (tmp_path / "cache.jsonl").exists()


def test_auto_calls_once_then_hits_with_original_latency_and_usage(tmp_path: Path) -> None:
    llm, backend = cached(tmp_path, "auto")
    first = llm.generate(request(), CONTEXT)
    second = llm.generate(request(), CONTEXT)
    assert backend.calls == 1
    assert (first.cached, second.cached) == (False, True)
    assert (second.text, second.usage, second.latency_s) == (first.text, first.usage, first.latency_s)
    assert (llm.stats.hits, llm.stats.misses) == (1, 1)


def test_record_asks_each_key_once_and_keeps_one_answer(tmp_path: Path) -> None:
    llm, backend = cached(tmp_path, "record")
    first = llm.generate(request())
    again = llm.generate(request())
    assert backend.calls == 1
    assert (again.cached, again.text) == (True, first.text)
    assert len(lines(tmp_path / "cache.jsonl")) == 1


def test_record_refuses_a_key_the_file_answered_before_the_run(tmp_path: Path) -> None:
    """A cache keeps one answer per key, so `record` cannot put a fresh answer beside an old one: it says so."""
    cached(tmp_path, "auto")[0].generate(request())
    kept = (tmp_path / "cache.jsonl").read_bytes()
    llm, backend = cached(tmp_path, "record")
    with pytest.raises(RecordedBeforeError) as caught:
        llm.generate(request(), CONTEXT)
    message = str(caught.value)
    key = cache_key("counting-fake", request())
    for expected in (key, "pick_and_place-42", "llm.cache.mode=auto", "new llm.cache.path"):
        assert expected in message
    assert backend.calls == 0 and (tmp_path / "cache.jsonl").read_bytes() == kept


def test_replay_serves_hits_from_a_reopened_file(tmp_path: Path) -> None:
    recorded = cached(tmp_path, "auto")[0].generate(request())
    replay, backend = cached(tmp_path, "replay")
    hit = replay.generate(request(), CONTEXT)
    assert hit.cached and hit.text == recorded.text and hit.latency_s == recorded.latency_s
    assert backend.calls == 0


def test_replay_miss_raises_naming_the_caller_and_never_calls(tmp_path: Path) -> None:
    llm, backend = cached(tmp_path, "replay")
    with pytest.raises(ReplayMissError) as caught:
        llm.generate(request("> open drawer 1\n"), CONTEXT)
    message = str(caught.value)
    key = cache_key("counting-fake", request("> open drawer 1\n"))
    for expected in ("pick_and_place-42", "trial 3", "self-diagnosis", "actor", key, "no model was called"):
        assert expected in message
    assert backend.calls == 0


def test_unknown_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="replay"):
        cached(tmp_path, "sometimes")


def test_entry_line_is_readable_and_checksummed(tmp_path: Path) -> None:
    llm, _ = cached(tmp_path, "auto")
    llm.generate(request())
    (entry,) = lines(tmp_path / "cache.jsonl")
    assert set(entry) == {"key", "checksum", "identity", "request", "response"}
    assert entry["identity"] == "counting-fake" and entry["request"]["prompt"] == request().prompt
    assert entry["key"] == cache_key("counting-fake", request())


def test_a_miss_rereads_what_another_writer_appended(tmp_path: Path) -> None:
    reader = CacheStore(tmp_path / "cache.jsonl")
    cached(tmp_path, "auto")[0].generate(request())
    assert reader.get(cache_key("counting-fake", request())) is not None


def test_torn_final_line_is_ignored_then_truncated_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    cached(tmp_path, "auto")[0].generate(request("one"))
    intact = path.read_bytes()
    path.write_bytes(intact + b'{"key": "dead", "checksum": "ab')  # a crash mid-append
    with pytest.warns(UserWarning, match="ignoring a torn last line"):
        llm, backend = cached(tmp_path, "auto")
    assert llm.generate(request("one")).cached
    with pytest.warns(UserWarning, match="cut a torn last line"):
        llm.generate(request("two"))
    assert backend.calls == 1
    assert path.read_bytes().startswith(intact) and path.read_bytes().endswith(b"\n")
    assert [entry["request"]["prompt"] for entry in lines(path)] == ["one", "two"]
    assert len(CacheStore(path)) == 2


def test_a_whole_last_entry_without_its_newline_is_a_hit_and_is_terminated_not_cut(tmp_path: Path) -> None:
    """'the LLM cache truncates a complete last entry that only lacks its newline', the rule that records keep."""
    path = tmp_path / "cache.jsonl"
    cached(tmp_path, "auto")[0].generate(request("one"))
    path.write_bytes(path.read_bytes()[:-1])  # an editor's save, or a crash between the line and its newline
    llm, backend = cached(tmp_path, "auto")
    assert llm.generate(request("one")).cached
    with pytest.warns(UserWarning, match=r"the last cache entry \(line 1\) lacked its newline; added it"):
        llm.generate(request("two"))
    assert backend.calls == 1
    assert [entry["request"]["prompt"] for entry in lines(path)] == ["one", "two"]
    assert path.read_bytes().count(b"\n") == 2


def test_a_last_line_that_is_json_but_no_entry_is_corruption_not_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    llm, _ = cached(tmp_path, "auto")
    llm.generate(request("one"))
    llm.generate(request("two"))
    entries = lines(path)
    entries[1]["response"]["text"] = "edited by hand"
    path.write_text(json.dumps(entries[0]) + "\n" + json.dumps(entries[1]))  # no final newline
    kept = path.read_bytes()
    with pytest.raises(CacheCorruptError, match=f"line 2 \\(key {entries[1]['key']}\\) is corrupt: response checksum"):
        CacheStore(path)
    assert path.read_bytes() == kept


def retyped(entry: dict, field: str, value: object) -> dict:
    """`entry` with one field of the response (or the entry) of the wrong type, its checksum made to match."""
    entry = json.loads(json.dumps(entry))
    where, name = (entry["response"], field.split(".", 1)[1]) if field.startswith("response.") else (entry, field)
    *parents, last = name.split(".")
    for parent in parents:
        where = where[parent]
    where[last] = value
    entry["checksum"] = sha256_hex(entry["response"])
    return entry


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("response.usage.completion_tokens", "many", "response.usage.completion_tokens: Input should be a valid int"),
        ("response.text", ["a", "list"], "response.text: Input should be a valid string"),
        ("response.latency_s", -1, "response.latency_s: Input should be greater than or equal to 0"),
        ("identity", 7, "identity: Input should be a valid string (got 7)"),
        ("key", None, "key: Input should be a valid string"),
    ],
)
def test_a_cache_line_with_a_wrong_type_is_named_in_one_sentence(
    tmp_path: Path, field: str, value: object, expected: str
) -> None:
    """'cache lines with wrong types give multi-line pydantic dumps': one sentence naming the file, the line and
    what is wrong (and a key or identity of the wrong type is no longer taken as it comes)."""
    path = tmp_path / "cache.jsonl"
    llm, _ = cached(tmp_path, "auto")
    llm.generate(request("one"))
    llm.generate(request("two"))
    first, second = lines(path)
    path.write_text(json.dumps(first) + "\n" + json.dumps(retyped(second, field, value)) + "\n")
    with pytest.raises(CacheCorruptError) as caught:
        CacheStore(path)
    message = str(caught.value)
    assert "\n" not in message, message
    assert message.startswith(f"cache file {path} line 2 (key ") and f"is corrupt: {expected}" in message, message
    assert message.endswith("; delete that line or restore the file from git."), message


def test_checksum_mismatch_is_corruption(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    llm, _ = cached(tmp_path, "auto")
    llm.generate(request("one"))
    llm.generate(request("two"))
    entries = lines(path)
    entries[1]["response"]["text"] = "edited by hand"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    with pytest.raises(CacheCorruptError) as caught:
        CacheStore(path)
    assert all(part in str(caught.value) for part in (str(path), "line 2", entries[1]["key"], "checksum"))


def test_invalid_json_before_the_end_is_corruption(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    llm, _ = cached(tmp_path, "auto")
    llm.generate(request("one"))
    path.write_bytes(b"{not json\n" + path.read_bytes())
    with pytest.raises(CacheCorruptError, match="line 1"):
        CacheStore(path)


def test_threads_sharing_one_store(tmp_path: Path) -> None:
    store = CacheStore(tmp_path / "cache.jsonl")
    llm = CachedLLM(CountingFakeBackend(), store, "auto")

    def work(worker: int) -> None:
        for i in range(25):
            llm.generate(request(f"{worker}-{i}"))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(CacheStore(tmp_path / "cache.jsonl")) == 200
