"""The throughput benchmark's figures: its ideal (what bounds a loop at each concurrency), its table and JSON, with
the runs themselves replaced by fixed figures; and the instruments it reads a run with."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import throughput
from benchmarks._entry_point import CpuSample, TreeSampler, loop_costs
from benchmarks.scripted_walker import walker_action
from harness.domains.alfworld.actor import actor_prompt
from harness.records.step import Step


def test_throughput_speedup_table_and_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 32 episodes of 10 calls at 0.5 s, 0.3 s of engine CPU and 10 steps each: with the harness's 5 ms a step, each
    # episode is a chain of 5.35 s at the least.
    def fake_run_at(concurrency: int, args: argparse.Namespace, scratch: Path, repeat: int = 0) -> dict[str, Any]:
        loop = {1: 180.0, 4: 45.0, 16: 12.0}[concurrency]
        return {
            "concurrency": concurrency,
            "episodes": 32,
            "steps": 320,
            "llm_calls": 320,
            "peak_calls_in_flight": concurrency,
            "loop_s": loop,
            "process_s": loop + 8,
            "alfworld_s": 10.0,
            "engine_cpu_per_episode_s": 0.3,
            "engine_cpu_s": 9.6,
            "loop_workers_cpu_s": 9.92,
            "run_cpu_s": 20.0,
            "peak_rss_mb": 300.0,
            "harness_cpu_ms_per_step": {1: 5.0, 4: 6.0, 16: 8.0}[concurrency],
            "engine_cpu_ms_per_step": 30.0,
            "workers_cpu_ms_per_step": 31.0,
            "engine_wait_ms_per_step": 0.0,
            "episodes_per_min": round(32 / loop * 60, 2),
            "episodes_started": [[5.0, 0.3, 10]] * 32,
        }

    monkeypatch.setattr(throughput, "run_at", fake_run_at)
    monkeypatch.setattr(throughput, "CORES", 2)
    out = tmp_path / "throughput.json"
    result = throughput.main(["--out", str(out)])
    assert json.loads(out.read_text()) == result
    runs = result["figures"]["runs"]
    # The ideal counts the least a step took, concurrency 1's 5 ms, not the 8 ms spent at 16: 2 rounds of 5.35 s chains.
    assert [run["ideal_loop_s"] for run in runs] == [171.2, 42.8, 10.7]
    assert [run["bound"] for run in runs] == ["episodes"] * 3
    assert [run["speedup"] for run in runs] == [1.0, 4.0, 15.0]
    assert [run["ideal_speedup"] for run in runs] == [1.05, 4.21, 16.82]
    assert [run["share_of_ideal"] for run in runs] == [0.95, 0.95, 0.89]
    assert result["figures"]["alfworld_bound_speedup"] == 18.0
    assert result["checks"] == [
        {"measure": "speed-up at concurrency 16", "value": 15.0, "target": ">= 12", "passed": True}
    ]
    printed = capsys.readouterr().out
    assert "| 16 | 32 | 320 | 16 |" in printed and "| pass |" in printed
    assert "least 5.0 ms a step" in printed


def test_the_ideal_names_what_bounds_it() -> None:
    slow_engine = {"concurrency": 64, "steps": 300, "engine_cpu_s": 40.0, "episodes_started": [[5.0, 1.0, 10]] * 30}
    # Chains: one round of 6.01 s; the CPU: (0.3 s of harness + 40 s of engine) over 2 cores.
    assert throughput.ideal_loop(slow_engine, 1.0, cores=2) == (20.15, "cpu")
    assert throughput.ideal_loop(slow_engine, 1.0, cores=16) == (6.01, "episodes")
    heavy_harness = {**slow_engine, "engine_cpu_s": 0.0, "episodes_started": [[0.5, 0.0, 10]] * 30}
    assert throughput.ideal_loop(heavy_harness, 100.0, cores=16) == (30.0, "harness")
    # Translations made by the prefetcher are in no record's engine CPU, but in the workers' whole CPU.
    prefetched = {**slow_engine, "engine_cpu_s": 20.0, "loop_workers_cpu_s": 40.0}
    assert throughput.ideal_loop(prefetched, 1.0, cores=2) == (20.15, "cpu")


def test_repeats_show_the_run_of_median_loop_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    asked: list[tuple[int, int]] = []

    def fake_run_at(concurrency: int, args: argparse.Namespace, scratch: Path, repeat: int = 0) -> dict[str, Any]:
        asked.append((concurrency, repeat))
        loop = 100.0 if concurrency == 1 else [12.0, 14.0, 11.0][repeat]
        return {"concurrency": concurrency, "episodes": 32, "steps": 320, "llm_calls": 320, "peak_calls_in_flight": 1,
                "loop_s": loop, "process_s": loop, "alfworld_s": 1.0, "engine_cpu_per_episode_s": 0.03,
                "engine_cpu_s": 1.0, "loop_workers_cpu_s": 1.0, "peak_rss_mb": 1.0, "harness_cpu_ms_per_step": 1.0,
                "engine_cpu_ms_per_step": 3.0, "workers_cpu_ms_per_step": 3.0, "engine_wait_ms_per_step": 0.0,
                "episodes_per_min": 32 / loop * 60, "episodes_started": [[1.0, 0.03, 10]] * 32}

    monkeypatch.setattr(throughput, "run_at", fake_run_at)
    result = throughput.main(["--concurrency", "1", "16", "--repeats", "3", "--out", str(tmp_path / "t.json")])
    assert asked == [(1, 0), (16, 0), (16, 1), (16, 2)], "concurrency 1 once, each repeat on its own folders"
    top = result["figures"]["runs"][1]
    assert (top["loop_s"], top["loop_s_repeats"]) == (12.0, [12.0, 14.0, 11.0])


def test_episodes_start_in_order_as_slots_free_up() -> None:
    assert throughput.schedule_s([4.0, 1.0, 1.0, 1.0], 2) == 4.0  # the 1 s episodes follow one another on a slot
    assert throughput.schedule_s([1.0, 1.0, 4.0], 2) == 5.0  # the last starts when the first frees its slot
    assert throughput.schedule_s([10.0] * 19 + [5.0] * 13, 16) == 20.0  # no episode is split: 3 slots hold two long
    assert throughput.schedule_s([], 4) == 0.0


def test_throughput_needs_concurrency_one(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        throughput.main(["--concurrency", "4", "16", "--out", str(tmp_path / "t.json")])


def test_the_scripted_walker_walks_every_receptacle_in_turn_and_never_repeats_an_action() -> None:
    start = (
        "You are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, a "
        "countertop 1, and a toaster 1.\n\nYour task is to: put a clean mug in coffeemachine."
    )
    steps: list[Step] = []
    for _ in range(6):
        action = walker_action(actor_prompt("clean", ["an earlier lesson"], start, steps))
        steps.append(Step(action=action, observation=f"On the {action[6:]}, you see nothing."))
    actions = [step.action for step in steps]
    assert actions == [
        "go to cabinet 2",
        "go to cabinet 1",
        "go to countertop 1",
        "go to toaster 1",
        "go to cabinet 2",
        "go to cabinet 1",
    ]
    bare = "You are in the middle of a room. Looking quickly around you, you see a bed 1.\n\nYour task is to: x."
    walked = [walker_action(actor_prompt("put", [], bare, [Step(action="a", observation="b")] * n)) for n in range(4)]
    assert walked == ["go to bed 1", "inventory", "look around", "go to bed 1"]  # never twice in a row, never short


def test_the_loops_cpu_is_read_from_the_samples_inside_it() -> None:
    sampler = TreeSampler(pid=0)
    # A busy start-up until 100.9 s, the loop from 100.9 s to 103.1 s at half a core, a busy report after.
    sampler.samples = [
        CpuSample(100.0, 1.0, 0.0),
        CpuSample(101.0, 1.95, 2.0),
        CpuSample(103.0, 2.95, 6.0),
        CpuSample(104.0, 3.95, 8.0),
    ]
    assert sampler.cpu_between(100.9, 103.1, children=False) == 1.1
    assert sampler.cpu_between(100.9, 103.1, children=True) == 4.4
    assert sampler.cpu_between(100.5, 102.0, children=False) is None  # one sample inside says no rate


def test_the_loops_samples_are_charged_to_the_harness_code_that_made_them(tmp_path: Path) -> None:
    loop = "run (run.py:1);run_loop (harness/run/loop.py:9)"
    trial = "_bootstrap (threading.py:1);play_trial (harness/run/loop.py:5);play_episode (harness/domains/alfworld/actor.py:3)"
    (tmp_path / "profile.txt").write_text(
        f"{trial};next_action (harness/domains/alfworld/actor.py:7);create (openai/resources/completions.py:5);"
        "post (openai/_base_client.py:3) 6\n"
        f"{trial};episode_log (harness/domains/alfworld/actor.py:2) 2\n"
        f"{loop};append (harness/records/log.py:4);dumps (json/__init__.py:1) 2\n"
        "run (run.py:1);write_report (harness/report/_report.py:1) 90\n"
    )
    samples, costs = loop_costs(tmp_path / "profile.txt")
    assert samples == 10  # the report written after the loop is not the loop's
    assert costs == [
        ("next_action (actor.py) > create (completions.py)", 0.6),
        ("episode_log (actor.py)", 0.2),
        ("append (log.py) > dumps (__init__.py)", 0.2),
    ]
