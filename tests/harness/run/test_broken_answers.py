"""A run over real HTTP to a server whose 200 answers are broken: each is retried, counted and named in run.log,
and none reaches the records or the cache. HotpotQA against the fault server (tests/harness/llm/fault_server.py)
answering from the committed HotpotQA cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.records import read_trials
from tests.harness.llm.fault_server import Fault, FaultServer
from tests.runner import ROOT, reflector_stop_override, run_cli

HOTPOTQA_CACHE = ROOT / "tests" / "fixtures" / "hotpotqa" / "llm_cache.jsonl"
MODEL = "qwen2.5-coder-1.5b"  # the model whose answers the cache holds


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(HOTPOTQA_CACHE) as running:
        yield running


def run(server: FaultServer, tmp_path: Path, *overrides: str) -> Path:
    """One question, self_diagnosis, two trials (thought, action, reflection, thought, action) over HTTP."""
    result = run_cli(
        "experiment=hotpotqa_demo", "strategy=[self_diagnosis]", "env.questions=[5a7613c15542994ccc9186bf]",
        "experiment.trials=2", "model=openai-compatible", f"model.base_url={server.base_url}", f"model.model={MODEL}",
        reflector_stop_override(MODEL), "model.retry_max_wait_s=0.01", f"llm.cache.path={tmp_path / 'cache.jsonl'}",
        f"hydra.run.dir={tmp_path / 'run'}", *overrides, env={"OPENAI_API_KEY": "none"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    return tmp_path / "run"


def test_broken_200_answers_are_retried_not_a_crash_and_missing_token_counts_stay_unknown(
    server: FaultServer, tmp_path: Path
) -> None:
    """'Broken 200 answers crash the run (exit 1, traceback) instead of being retried: non-UTF-8 bytes, an HTML
    body, null text, negative token counts, Retry-After: nan. A server that sends no usage is recorded as 0 tokens
    (unknown is not 0).' Then 'two more broken 200 answers crash the run instead of being retried: a body of JSON
    nested 100,000 deep (RecursionError), and an answer holding lone surrogates ("\\udfff": UnicodeEncodeError from
    the cache, every rerun the same)', and 'token counts a server reports are taken at any size (10^30 prompt
    tokens)'."""
    broken = [Fault("non_utf8"), Fault("html"), Fault("null_text"), Fault("negative_usage")]
    broken += [Fault("deep_json"), Fault("lone_surrogate"), Fault("huge_usage")]
    server.schedule([*broken, Fault.http(429, retry_after=float("nan")), None, Fault("no_usage")])
    run_dir = run(server, tmp_path, "model.max_retries=8")
    first, second = sorted(read_trials(run_dir), key=lambda record: record.trial)
    assert first.retries == 8 and second.retries == 0
    assert first.actor_usage is not None and first.actor_usage.unreported_calls == 1  # the action's: unknown
    assert second.usage.unreported_calls == 0
    summary = (run_dir / "summary.md").read_text()
    assert "(and 1 call(s) whose server sent no token counts: unknown, not counted)" in summary
    log = (run_dir / "run.log").read_text()
    named = ("not valid JSON", "not a JSON object but text starting '<html>", "choices.0.text", "usage.prompt_tokens")
    named += ("nested deeper than", "a lone surrogate", "prompt tokens for a prompt of")
    assert all(part in log for part in named), log


def test_an_880_kb_reflection_is_refused_retried_and_named_in_run_log(server: FaultServer, tmp_path: Path) -> None:
    """'A bound on what a model answer may be': a server that ignored max_tokens and returned an 880 KB reflection
    was taken without a word, into the trial log and the cache. It is a broken answer now, over max_tokens x
    model.max_answer_chars_per_token characters: retried, named in run.log, kept out of every file."""
    server.schedule([None, None, Fault("oversized", size=880_000)])  # the third call asks for the reflection
    run_dir = run(server, tmp_path)
    first, _ = sorted(read_trials(run_dir), key=lambda record: record.trial)
    assert first.reflection and len(first.reflection) < 2_000 and first.retries == 1
    log = (run_dir / "run.log").read_text()
    assert "an answer of 880,000 characters to a request of max_tokens=250, over the bound of 8,000" in log
    assert (run_dir / "trials.jsonl").stat().st_size < 50_000 and (tmp_path / "cache.jsonl").stat().st_size < 50_000
