"""Every model call in its record: the request's cache key, the backend, what the server said it served (model,
system fingerprint), how the answer ended; and a run whose served model changes mid-run says so in summary.md.

The real openai client over HTTP to tests/scripted_server.py, a test instrument that plays a drifting API.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records import read_trials
from tests.runner import run_cli
from tests.scripted_server import ScriptedAnswer, ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"

pytestmark = pytest.mark.slow


def drifting_script() -> list[ScriptedAnswer]:
    """Two trials of one game (a repeated action ends an episode after two steps, then a reflection); in trial 1
    the actor's answers come from another snapshot and every answer from another fingerprint."""
    old, new = "served-a-0613", "served-a-0125"
    return [
        ScriptedAnswer(" go to desk 1", old, "fp_1", "stop"),
        ScriptedAnswer(" go to desk 1", old, "fp_1", "stop"),
        ScriptedAnswer(" plan one", old, "fp_1", "length"),
        ScriptedAnswer(" go to bed 1", new, "fp_2", "stop"),
        ScriptedAnswer(" go to bed 1", new, "fp_2", "stop"),
        ScriptedAnswer(" plan two", old, "fp_2", "stop"),
    ]


def run(server_url: str, tmp_path: Path, name: str, mode: str) -> Path:
    run_dir = tmp_path / name
    result = run_cli(
        "model=openai-compatible",
        "model.model=served-a",
        f"model.base_url={server_url}",
        f"llm.cache.mode={mode}",
        f"llm.cache.path={tmp_path / 'cache.jsonl'}",
        "strategy=self_diagnosis",
        "env.set=null",
        f"env.games=[{GAME}]",
        "experiment.trials=2",
        f"hydra.run.dir={run_dir}",
        env={"OPENAI_API_KEY": "none"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return run_dir


def test_records_carry_every_call_and_the_summary_names_the_drift(tmp_path: Path) -> None:
    script = drifting_script()
    with ScriptedServer(script) as server:
        run_dir = run(server.base_url, tmp_path, "run", "auto")
        host = f"127.0.0.1:{server.port}"
    records = sorted(read_trials(run_dir), key=lambda r: r.trial)
    calls = [call for record in records for call in record.calls]
    assert [len(r.calls) for r in records] == [r.llm_calls for r in records] == [3, 3]
    assert [c.role for c in calls] == ["actor", "actor", "reflector"] * 2
    said = [(c.served_model, c.system_fingerprint, c.finish_reason) for c in calls]
    assert said == [(a.served_model, a.system_fingerprint, a.finish_reason) for a in script]
    assert {(c.backend, c.base_url_host, c.cached, c.temperature, c.top_p) for c in calls} == {
        ("openai/completion:served-a", host, False, 0.0, None)
    }
    # Each call's key is the cache entry of the request that was sent, the same request the server received.
    entries = [json.loads(line) for line in (tmp_path / "cache.jsonl").read_text().splitlines()]
    assert [c.key for c in calls] == [e["key"] for e in entries]
    assert [e["request"]["prompt"] for e in entries] == [body["prompt"] for body in server.requests]
    assert [e["response"]["served_model"] for e in entries] == [a.served_model for a in script]

    summary = (run_dir / "summary.md").read_text()
    assert (
        "self_diagnosis, actor: the served model changed mid-run, from 'served-a-0613' to 'served-a-0125', "
        f"first in trial 1 (task {GAME})." in summary
    )
    assert "self_diagnosis, reflector: the system fingerprint changed mid-run, from 'fp_1' to 'fp_2'" in summary
    assert "self_diagnosis, reflector: the served model" not in summary
    assert "(reflector answers: 2; at the token limit: 1; ran on past their end: 0)" in summary
    assert "**WARNING:** self_diagnosis: 1 of 2 reflection(s) hit the token limit" in summary

    # A replay answers from the cache: the same calls, said by the cache, and no request reaches a server.
    with ScriptedServer([]) as silent:
        replayed = run(silent.base_url, tmp_path, "replay", "replay")
    assert silent.requests == []
    again = [call for r in sorted(read_trials(replayed), key=lambda r: r.trial) for call in r.calls]
    assert [c.model_copy(update={"cached": False, "base_url_host": host}) for c in again] == calls
    assert all(c.cached for c in again)


def test_a_steady_server_says_no_drift(tmp_path: Path) -> None:
    script = [ScriptedAnswer(a.text, "served-a-0613", "fp_1", "stop") for a in drifting_script()]
    with ScriptedServer(script) as server:
        run_dir = run(server.base_url, tmp_path, "run", "auto")
    summary = (run_dir / "summary.md").read_text()
    assert "changed mid-run" not in summary and "WARNING" not in summary
    assert "at the token limit: 0; ran on past their end: 0" in summary
    assert {c.served_model for r in read_trials(run_dir) for c in r.calls} == {"served-a-0613"}


def test_a_sweep_over_model_ids_of_one_config_option_reports_one_row_per_model(tmp_path: Path) -> None:
    """Issue 25: `-m model=openai-compatible model.model=a,b` wrote one row for two models, one task counted twice."""
    with ScriptedServer([" go to desk 1"] * 4) as server:
        result = run_cli(
            "model=openai-compatible",
            "model.model=a,b",
            f"model.base_url={server.base_url}",
            "llm.cache.mode=off",
            "strategy=no_memory",
            "env.set=null",
            f"env.games=[{GAME}]",
            "experiment.trials=1",
            f"hydra.sweep.dir={tmp_path / 'sweep'}",
            env={"OPENAI_API_KEY": "none"},
            multirun=True,
        )
        host = f"127.0.0.1:{server.port}"
    assert result.returncode == 0, result.stderr[-2000:]
    assert [body["model"] for body in server.requests] == ["a", "a", "b", "b"]
    report = (tmp_path / "sweep" / "report.md").read_text()
    table = report.split("\n## Conditions\n")[1].split("\n## ")[0]
    assert [line.split(" | ")[:3] for line in table.splitlines() if line.startswith("| no_memory")] == [
        ["| no_memory (0)", f"openai-compatible (a @ {host}) / none", "0/1 (0%)"],
        ["| no_memory (1)", f"openai-compatible (b @ {host}) / none", "0/1 (0%)"],
    ]
    assert "Kept apart here (models differ): no_memory (0); no_memory (1)." in table
