"""A key written into a server URL (`model.base_url`, $OPENAI_BASE_URL) is refused in one sentence that never repeats
it, before anything is written: no output of a run (manifest.json, run.log, MLflow's params) can hold it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runner import one_error_line, run_cli
from tests.varying_server import VaryingServer

SECRET = "s3cret-Key-42"


@pytest.fixture
def server() -> Iterator[VaryingServer]:
    with VaryingServer("Finish[answer {n}]", delay_s=0.0) as running:
        yield running


def refused(tmp_path: Path, *overrides: str, env: dict[str, str] | None = None) -> str:
    """The one error line of a HotpotQA run with `overrides`, checked to hold no secret and to leave nothing."""
    result = run_cli(
        "env=hotpotqa", "env.first_n=1", "experiment.trials=1", "model=openai-compatible", *overrides,
        f"llm.cache.path={tmp_path / 'cache.jsonl'}", f"hydra.run.dir={tmp_path / 'run'}",
        env={"OPENAI_API_KEY": "none", **(env or {})},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-3000:]
    assert SECRET not in result.stdout + result.stderr
    assert list(tmp_path.iterdir()) == [], "a refused run left files"
    return one_error_line(result.stderr)


@pytest.mark.parametrize(
    ("url", "shown", "part"),
    [
        ("http://user:{secret}@127.0.0.1:{port}/v1", "http://***@127.0.0.1:{port}/v1", "a user:password@"),
        ("http://127.0.0.1:{port}/v1?api_key={secret}", "http://127.0.0.1:{port}/v1?***", "a query string"),
        ("http://127.0.0.1:{port}/v1;key={secret}", "http://127.0.0.1:{port}/v1;***", "a ;parameter"),
    ],
    ids=["user:password@", "query string", ";parameter"],
)
def test_credentials_in_model_base_url_are_refused_and_never_echoed(
    server: VaryingServer, tmp_path: Path, url: str, shown: str, part: str
) -> None:
    """'Credentials in model.base_url: user:password@ fails the reachability check with a false "Name or service
    not known" and echoes the password; a query-string secret lands in manifest.json, run.log and MLflow params, and
    requests go to a garbled path. Secrets never reach an output.'"""
    # Quoted, as Hydra reads a value holding `=` only so.
    line = refused(tmp_path, f"model.base_url='{url.format(secret=SECRET, port=server.port)}'")
    assert f"model.base_url = '{shown.format(port=server.port)}' is invalid: it carries {part}" in line, line
    assert "model.api_key_env" in line and "Name or service not known" not in line
    assert server.requests == 0


def test_credentials_in_openai_base_url_from_the_environment_are_refused_and_never_echoed(
    server: VaryingServer, tmp_path: Path
) -> None:
    url = f"http://user:{SECRET}@127.0.0.1:{server.port}/v1"
    line = refused(tmp_path, "~model.base_url", env={"OPENAI_BASE_URL": url})
    assert f"OPENAI_BASE_URL = 'http://***@127.0.0.1:{server.port}/v1' is refused" in line, line


def test_a_base_url_read_two_ways_is_refused(server: VaryingServer, tmp_path: Path) -> None:
    """'http://127.0.0.1:PORT/v1\\@evil.example/ passes although a URL must end in /v1' (a path to one URL parser, a
    host to another; a URL not ending in /v1 at all: test_probe.py)."""
    line = refused(tmp_path, f"model.base_url='http://127.0.0.1:{server.port}/v1\\@evil.example/'")
    assert "ends in /v1; this one holds a backslash, a space or a control character" in line, line
    assert server.requests == 0
