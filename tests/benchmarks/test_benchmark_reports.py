"""Each benchmark's arguments, table, checks and JSON, with the expensive measurement replaced by fixed figures."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from benchmarks import identity_length, llama_speed, peak_rss, replay_overhead, run_all
from benchmarks._entry_point import TimedRun
from harness.llm import ModelConfig
from harness.records import Timing, TrialRecord
from tests.harness.factories import make_record


def record(env_s: float, wall_s: float, llm_s: float = 0.0) -> TrialRecord:
    return make_record(0, None).model_copy(update={"timing": Timing(wall_s=wall_s, env_s=env_s, llm_s=llm_s)})


def timed_run(records: list[TrialRecord], wall: float, startup: float, loop: float, rss: float = 500.0) -> TimedRun:
    return TimedRun(
        run_dir=Path("run"),
        wall_s=wall,
        startup_s=startup,
        loop_s=loop,
        max_rss_mb=rss,
        peak_tree_rss_mb=rss + 50.0,
        cpu_s=wall,
        records=records,
    )


def test_replay_overhead_splits_the_process_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    records = [record(env_s=40.0, wall_s=41.0, llm_s=0.5), record(env_s=40.0, wall_s=41.0, llm_s=0.5)]
    run = timed_run(records, wall=96.0, startup=6.0, loop=84.0)
    monkeypatch.setattr(replay_overhead, "replay", lambda scratch, index, extra: run)
    result = replay_overhead.main(["--out", str(tmp_path / "r.json"), "--smoke"])
    figures = result["figures"]
    assert figures["alfworld_s"] == 80.0 and figures["cache_lookups_s"] == 1.0
    assert (figures["rest_of_trials_s"], figures["between_trials_s"], figures["after_loop_s"]) == (1.0, 2.0, 6.0)
    assert (figures["process_over_alfworld"], figures["loop_over_alfworld"]) == (1.2, 1.05)
    assert [check["passed"] for check in result["checks"]] == [True, True]
    assert result["settings"]["overrides"] == replay_overhead.SMOKE_OVERRIDES


def test_llama_speed_ratios_and_reuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls = [
        llama_speed.CallFigures(prompt_tokens=1500, evaluated_tokens=1500, completion_tokens=8, wall_s=3.0),
        llama_speed.CallFigures(prompt_tokens=1520, evaluated_tokens=20, completion_tokens=6, wall_s=0.4),
    ]
    reuse = llama_speed.reuse_figures(calls)
    assert (reuse["reused_share"], reuse["reused_share_after_first_call"]) == (
        round(1500 / 3020, 4),
        round(1500 / 1520, 4),
    )
    measured = llama_speed.Measured(
        game_id="game",
        through_backend={
            "prompt_tokens": 1500,
            "prompt_tok_s": 95.0,
            "prompt_tok_s_llama_timers": 100.0,
            "generated_tokens": 128,
            "gen_tok_s": 17.0,
            "gen_tok_s_llama_timers": 20.0,
        },
        alone={"prompt_tok_s": 101.0, "gen_tok_s": 20.5},
        reuse=reuse,
    )
    args = argparse.Namespace(repeats=3, gen_tokens=128, episode_steps=10, smoke=False, out=tmp_path / "l.json")
    config = ModelConfig(name="smollm2-135m", backend="llamacpp", model="smollm2-135m", n_threads=2)
    result = llama_speed.report(config, args, measured)
    assert [(c["value"], c["passed"]) for c in result["checks"]] == [(0.95, True), (0.85, False)]
    assert json.loads((tmp_path / "l.json").read_text())["figures"]["prefix_reuse"]["calls"] == 2
    printed = capsys.readouterr().out
    assert "| generation tok/s | 17.0 | 20.0 | 20.5 | 0.85x |" in printed and "| FAIL |" in printed
    assert "49.7% of 3020 prompt tokens came from the KV cache" in printed


def test_peak_rss_sets_the_model_run_beside_its_replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def fake_run(overrides: list[str], run_dir: Path, env: dict[str, str] | None = None) -> TimedRun:
        seen.append(overrides)
        rss = 900.0 if "llm.cache.mode=record" in overrides else 400.0
        return timed_run([record(env_s=1.0, wall_s=2.0)], wall=10.0, startup=3.0, loop=2.0, rss=rss)

    monkeypatch.setattr(peak_rss, "run_entry_point", fake_run)
    result = peak_rss.main(["--smoke", "--out", str(tmp_path / "p.json")])
    assert [o[:2] for o in seen] == [["model=smollm2-135m", "env.first_n=1"]] * 2
    figures = result["figures"]
    assert (figures["peak_rss_mb"], figures["replayed_without_model_mb"], figures["model_share_mb"]) == (900, 400, 500)
    assert figures["model_file_mb"] == 93.8 and figures["peak_tree_rss_mb"] == 950
    assert result["checks"] == [
        {"measure": "peak RSS of the run and its workers, MB", "value": 950.0, "target": "<= 2600", "passed": True}
    ]


def test_run_all_summarises_checks_reported_figures_and_failures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = {
        "throughput": {
            "benchmark": "throughput",
            "checks": [{"measure": "speed-up at concurrency 16", "value": 3.1, "target": ">= 12", "passed": False}],
            "figures": {"alfworld_bound_speedup": 3.4},
        },
        "peak_rss": {"benchmark": "peak_rss", "error": "RuntimeError: boom"},
    }
    monkeypatch.setattr(run_all, "run_one", lambda name, out, smoke: results[name])
    combined = run_all.main(["--only", "throughput", "peak_rss", "--out", str(tmp_path / "all.json")])
    assert json.loads((tmp_path / "all.json").read_text()) == combined
    printed = capsys.readouterr().out
    assert "| throughput | speed-up at concurrency 16 | 3.1 | >= 12 | FAIL |" in printed
    assert "| throughput | alfworld_bound_speedup | 3.4 | (reported) | - |" in printed
    assert "| peak_rss | (did not finish) | - | - | ERROR: RuntimeError: boom |" in printed


def test_identity_length_times_each_domain_at_half_and_whole_size(tmp_path: Path) -> None:
    result = identity_length.main(["--smoke", "--out", str(tmp_path / "i.json")])
    assert set(result["figures"]) == {"alfworld", "hotpotqa", "humaneval"}
    for figures in result["figures"].values():
        assert 0 <= figures["half_cpu_s"] and 0 <= figures["whole_cpu_s"]
    assert [check["measure"] for check in result["checks"]][:2] == [
        f"alfworld: s CPU for {identity_length.SMOKE_SIZE} characters",
        "alfworld: s CPU for twice the text",
    ]
    assert json.loads((tmp_path / "i.json").read_text())["benchmark"] == "identity_length"
