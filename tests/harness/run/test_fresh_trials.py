"""Every trial is its own sample, as in Reflexion, where each trial called the model afresh; trial 0 is shared.

Under `llm.cache.mode=auto` a request seen before is answered from the cache. Trial t's requests carry their own
seed (in the request and its cache key), so a no_memory trial, whose prompt is trial 0's again, still reaches
the model; trial 0's requests are the same in every condition and are asked once (common random numbers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.run.loop import trial_seed
from harness.records import read_trials
from tests.runner import run_cli
from tests.scripted_server import ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"

pytestmark = pytest.mark.slow


def test_no_memory_trial_1_is_sent_to_the_model_and_trial_0_is_shared(tmp_path: Path) -> None:
    # A repeated action ends an episode after two steps; each episode gets answers of its own.
    script = [" go to desk 1", " go to desk 1", " plan one", " go to bed 1", " go to bed 1", " plan two"]
    script += [" go to shelf 1", " go to shelf 1"]
    with ScriptedServer(script) as server:
        result = run_cli(
            "model=openai-compatible",
            f"model.base_url={server.base_url}",
            "llm.cache.mode=auto",
            f"llm.cache.path={tmp_path / 'cache.jsonl'}",
            "strategy=[self_diagnosis,no_memory]",
            "env.set=null",
            f"env.games=[{GAME}]",
            "experiment.trials=2",
            f"hydra.run.dir={tmp_path / 'run'}",
            env={"OPENAI_API_KEY": "none"},
        )
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(server.requests) == len(script)
    records = {(r.condition, r.trial): r for r in read_trials(tmp_path / "run")}
    actions = {key: [step.action for step in r.trajectory] for key, r in records.items()}
    assert actions[("self_diagnosis", 0)] == actions[("no_memory", 0)] == ["go to desk 1"] * 2
    assert actions[("no_memory", 1)] == ["go to shelf 1"] * 2
    assert records[("no_memory", 0)].cache_hits == 2 and records[("no_memory", 1)].cache_hits == 0
    first, again = server.requests[0], server.requests[6]
    assert first["prompt"] == again["prompt"], "no_memory's trial 1 asks trial 0's question again"
    assert (first["seed"], again["seed"]) == (trial_seed(0, 0), trial_seed(0, 1)) and first["seed"] != again["seed"]


def test_trial_seeds_are_the_run_seed_first_then_distinct() -> None:
    seeds = [trial_seed(7, trial) for trial in range(50)]
    assert seeds[0] == 7 and len(set(seeds)) == 50
    assert all(0 <= seed < 2**31 for seed in seeds)
    assert trial_seed(0, 1) != trial_seed(1, 0) == 1
