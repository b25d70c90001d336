"""Per-role sampling reaches the requests a real openai client sends over HTTP; unset, the bodies are as before.

The scripted server logs every request body; a repeated action ends an ALFWorld episode after two steps, so a
self_diagnosis run of two trials sends: actor, actor (a retry), actor, reflector in trial 0, and actor, actor,
reflector in trial 1 (ALFWorld reflects after its last trial too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.llm import LLMRequest
from harness.llm._cache import cache_key
from harness.records import read_manifest
from harness.run.config import RoleSampling
from harness.run.sampling import sampled
from tests.runner import run_cli
from tests.scripted_server import ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"
# The first answer is short (under 5 characters), so the actor retries it as Reflexion did, at 0.2 x attempt.
SCRIPT = [" ", " go to desk 1", " go to desk 1", " plan one", " go to bed 1", " go to bed 1", " plan two"]


def scripted_run(tmp_path: Path, *overrides: str) -> tuple[list[dict], Path]:
    with ScriptedServer(SCRIPT) as server:
        result = run_cli(
            "model=openai-compatible",
            f"model.base_url={server.base_url}",
            "llm.cache.mode=off",
            "strategy=[self_diagnosis]",
            "env.set=null",
            f"env.games=[{GAME}]",
            "experiment.trials=2",
            "experiment.max_concurrency=1",
            *overrides,
            f"hydra.run.dir={tmp_path / 'run'}",
            env={"OPENAI_API_KEY": "none"},
        )
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(server.requests) == len(SCRIPT)
    return server.requests, tmp_path / "run"


@pytest.mark.slow
def test_each_role_gets_its_temperature_and_top_p_and_a_hotter_retry_keeps_its_own(tmp_path: Path) -> None:
    requests, run_dir = scripted_run(
        tmp_path, "sampling.actor.temperature=0.1", "sampling.actor.top_p=0.9", "sampling.reflector.temperature=0.7"
    )
    sent = [(body.get("temperature"), body.get("top_p", "unsent")) for body in requests]
    # The retry of the short answer goes at the protocol's 0.2, above the actor's 0.1; the reflector sends no top_p.
    assert sent == [(0.1, 0.9), (0.2, 0.9), (0.1, 0.9), (0.7, "unsent"), (0.1, 0.9), (0.1, 0.9), (0.7, "unsent")]
    manifest = read_manifest(run_dir)
    assert manifest is not None
    assert manifest.config["sampling"] == {
        "actor": {"temperature": 0.1, "top_p": 0.9},
        "reflector": {"temperature": 0.7, "top_p": None},
    }


@pytest.mark.slow
def test_unset_sampling_sends_reflexions_values_and_no_top_p(tmp_path: Path) -> None:
    requests, _ = scripted_run(tmp_path)
    assert [body["temperature"] for body in requests] == [0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert not any("top_p" in body for body in requests)


def test_unset_sampling_leaves_the_request_itself() -> None:
    request = LLMRequest(kind="completion", prompt="> ", temperature=0.4, seed=3)
    assert sampled(request, RoleSampling()) is request
    assert sampled(request, RoleSampling(temperature=0.2)) is request  # the protocol's own is hotter
    hotter = sampled(request, RoleSampling(temperature=0.9, top_p=0.5))
    assert (hotter.temperature, hotter.top_p, hotter.prompt) == (0.9, 0.5, "> ")


def test_retries_the_floor_lifts_stay_new_samples() -> None:
    """ALFWorld's retries at 0.2, 0.4 and 0.6 under a floor of 0.7 were its first try's request again (the cache
    answered them): each gets a seed of its own; the first try, greedy by the protocol, keeps the trial's."""
    tries = [LLMRequest(kind="completion", prompt="> ", temperature=0.2 * a, seed=3) for a in range(4)]
    lifted = [sampled(request, RoleSampling(temperature=0.7)) for request in tries]
    assert {request.temperature for request in lifted} == {0.7}
    assert lifted[0].seed == 3
    assert len({cache_key("model", request) for request in lifted}) == 4
