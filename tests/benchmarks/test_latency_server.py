"""The latency server: recorded answers after the delay, concurrent calls overlapping, unknown requests refused."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from benchmarks.latency_server import LatencyServer
from benchmarks.recorded_server import load_answers
from harness.errors import LLMRequestError
from harness.llm import (
    CacheStore,
    ChatMessage,
    LLMRequest,
    LLMResponse,
    ModelConfig,
    Usage,
    cache_key,
    create_backend,
)
from tests.in_process import run_module
from tests.runner import ROOT

COMPLETION = LLMRequest(kind="completion", prompt="> go to desk 1\n", max_tokens=32, stop=["\n"])
CHAT = LLMRequest(kind="chat", messages=[ChatMessage(role="user", content="Say hello.")], max_tokens=8, seed=3)
DELAY_S = 0.3


@pytest.fixture(scope="module")
def recorded_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A harness cache file recorded under an identity no client here has."""
    store = CacheStore(tmp_path_factory.mktemp("cache") / "recorded.jsonl")
    for request, text in ((COMPLETION, "On the desk 1, you see a pen 2."), (CHAT, "Hello.")):
        response = LLMResponse(text=text, usage=Usage(prompt_tokens=11, completion_tokens=7), latency_s=0.5)
        store.put(cache_key("llamacpp:some-other-model", request), response, request, "llamacpp:some-other-model")
    return store.path


@pytest.fixture
def server(recorded_cache: Path) -> Iterator[LatencyServer]:
    with LatencyServer(recorded_cache, delay_s=DELAY_S) as running:
        yield running


def post(base_url: str, payload: dict[str, Any], path: str = "/completions") -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        base_url + path, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def completion_payload(**changes: Any) -> dict[str, Any]:
    return {"model": "anything", "prompt": COMPLETION.prompt, "max_tokens": 32, "stop": ["\n"], "seed": 0} | changes


def test_a_recorded_request_is_answered_after_the_delay(server: LatencyServer) -> None:
    started = time.perf_counter()
    status, body = post(server.base_url, completion_payload())
    assert time.perf_counter() - started >= DELAY_S
    assert status == 200 and body["choices"][0]["text"] == "On the desk 1, you see a pen 2."
    assert body["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    assert (server.served, server.refused) == (1, 0)


def test_concurrent_requests_overlap(server: LatencyServer) -> None:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: post(server.base_url, completion_payload()), range(8)))
    elapsed = time.perf_counter() - started
    assert [status for status, _ in answers] == [200] * 8
    assert DELAY_S <= elapsed < 4 * DELAY_S  # one after another would take 8 x 0.3 s
    assert server.served == 8 and server.peak_in_flight > 1


def test_an_unknown_request_is_refused_at_once_with_the_reason(server: LatencyServer) -> None:
    started = time.perf_counter()
    status, body = post(server.base_url, completion_payload(seed=99))
    assert time.perf_counter() - started < DELAY_S
    assert status == 400
    assert "no recorded answer for this request in recorded.jsonl" in body["error"]["message"]
    assert (server.served, server.refused) == (0, 1)


def test_the_harness_openai_backend_gets_both_kinds_of_answer(
    server: LatencyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LATENCY_SERVER_KEY", "none")
    config = ModelConfig(
        name="latency", backend="openai", model="m", base_url=server.base_url, api_key_env="LATENCY_SERVER_KEY"
    )
    backend = create_backend(config)
    assert backend.generate(COMPLETION).text == "On the desk 1, you see a pen 2."
    assert backend.generate(CHAT).text == "Hello."
    with pytest.raises(LLMRequestError, match="no recorded answer"):
        backend.generate(COMPLETION.model_copy(update={"max_tokens": 33}))


def test_without_a_cache_the_scripted_walker_answers_every_actor_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LATENCY_SERVER_KEY", "none")
    start = "You are in the middle of a room. Looking quickly around you, you see a desk 1, and a bed 1.\n\nYour task is"
    with LatencyServer(None, delay_s=0.0) as walker:
        config = ModelConfig(
            name="latency", backend="openai", model="m", base_url=walker.base_url, api_key_env="LATENCY_SERVER_KEY"
        )
        backend = create_backend(config)
        prompts = [start + "\n> go to desk 1\nOn the desk 1, you see a pen 2." * steps + ">" for steps in (0, 1, 2)]
        answers = [backend.generate(COMPLETION.model_copy(update={"prompt": prompt})) for prompt in prompts]
    assert [answer.text for answer in answers] == ["go to desk 1", "go to bed 1", "go to desk 1"]
    assert answers[0].usage.prompt_tokens == len(prompts[0]) // 4
    assert (walker.served, walker.refused) == (3, 0)


def test_models_and_unknown_routes(server: LatencyServer) -> None:
    with urllib.request.urlopen(server.base_url + "/models", timeout=10) as response:
        assert json.loads(response.read())["object"] == "list"
    status, _ = post(server.base_url, completion_payload(), path="/embeddings")
    assert status == 404


def test_a_gzipped_cache_holds_the_same_answers(recorded_cache: Path, tmp_path: Path) -> None:
    packed = tmp_path / "recorded.jsonl.gz"
    packed.write_bytes(gzip.compress(recorded_cache.read_bytes()))
    assert load_answers(packed) == load_answers(recorded_cache)


def test_the_command_line_serves_until_stopped(recorded_cache: Path) -> None:
    command = [sys.executable, "-m", "benchmarks.latency_server", "--cache", str(recorded_cache), "--delay-ms", "10"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert "benchmark instrument" in banner
        base_url = banner.split(" at ")[1].split(";")[0]
        assert post(base_url, completion_payload())[0] == 200
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_help_says_it_is_an_instrument_and_a_missing_cache_is_refused(tmp_path: Path) -> None:
    shown = run_module("benchmarks.latency_server", "--help")
    assert shown.returncode == 0
    assert "Benchmark instrument" in shown.stdout and "Not a model server" in shown.stdout
    missing = run_module("benchmarks.latency_server", "--cache", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
