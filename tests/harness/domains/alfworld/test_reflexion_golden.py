"""Faithful to Reflexion, request by request: `python run.py` against the scripted server, judged by the goldens.

Each golden run (tests/fixtures/reflexion_golden/, what the original code at 218cf0e sent and decided for scripted
answers) is played through the real entry point, the real openai client over real HTTP, the real ALFWorld engine
and the real sandbox. Every request the server received must equal the original's call (prompt or messages,
temperature, max_tokens, stop) and every verdict the original's (success, memory, reflections, implementations,
test feedback).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from envs.alfworld import AlfworldEpisode, AlfworldGame, list_games
from harness.records import TrialRecord, read_trials
from tests.reflexion_reference import reference_run
from tests.runner import ROOT, run_cli
from tests.scripted_server import ScriptedServer

GOLDEN = ROOT / "tests" / "fixtures" / "reflexion_golden"
ALFWORLD_RUNS = json.loads((GOLDEN / "alfworld_trials.json").read_text())
HUMANEVAL_RUNS = json.loads((GOLDEN / "humaneval_runs.json").read_text())

pytestmark = pytest.mark.slow
# The published ALFWorld protocol with both roles on the scripted server, which answers as a completion model does.
REFLEXION_ALFWORLD = ("experiment=reflexion", "actor_model=null", "reflector_model=null", "model.api=completion", "env.set=null")


def scripted_run(script: list[str], run_dir: Path, *overrides: str) -> tuple[list[dict[str, Any]], list[TrialRecord]]:
    """`run.py <overrides>` against a scripted server: the requests it received and the records written."""
    with ScriptedServer(script) as server:
        result = run_cli(
            "model=openai-compatible",
            f"model.base_url={server.base_url}",
            "llm.cache.mode=off",
            f"hydra.run.dir={run_dir}",
            *overrides,
            env={"OPENAI_API_KEY": "none"},
        )
    assert result.returncode == 0, result.stderr[-3000:]
    return server.requests, sorted(read_trials(run_dir), key=lambda r: r.trial)


def sent(request: dict[str, Any]) -> dict[str, Any]:
    """What of a request the goldens record: the text sent and the sampling parameters."""
    text = {"messages": request["messages"]} if "messages" in request else {"prompt": request["prompt"]}
    return {**text, "temperature": request["temperature"], "max_tokens": request["max_tokens"], "stop": request.get("stop")}


def golden_alfworld_call(call: dict[str, Any]) -> dict[str, Any]:
    return {"prompt": call["prompt"], "temperature": call["temperature"], "max_tokens": call["max_tokens"], "stop": call["stop"]}


def golden_humaneval_call(call: dict[str, Any]) -> dict[str, Any]:
    return {"messages": call["messages"], "temperature": call["temperature"], "max_tokens": call["max_tokens"], "stop": None}


@pytest.mark.parametrize("run", ALFWORLD_RUNS, ids=[run["prompt_type"] for run in ALFWORLD_RUNS])
def test_alfworld_requests_and_verdicts_equal_the_original(run: dict[str, Any], tmp_path: Path) -> None:
    calls = [call for trial in run["trials"] for call in trial["calls"]]
    requests, records = scripted_run(
        [call["answer"] for call in calls],
        tmp_path / "run",
        *REFLEXION_ALFWORLD,
        f"env.games=[{run['game_id']}]",
        f"experiment.trials={len(run['trials'])}",
        "experiment.max_concurrency=1",
    )
    assert len(requests) == len(calls)
    for index, (request, call) in enumerate(zip(requests, calls)):
        assert sent(request) == golden_alfworld_call(call), f"request {index} differs"
    assert [r.success for r in records] == [trial["success"] for trial in run["trials"]]
    # The original keeps every reflection in the env's memory and shows the actor the last three.
    assert [r.memory for r in records] == [trial["memory"][-3:] for trial in run["trials"]]
    reflections = [r.reflection for r in records if r.reflection is not None]
    assert reflections == run["trials"][-1]["memory"]


@pytest.mark.parametrize("run", HUMANEVAL_RUNS, ids=[f"{r['task_id']}-{r['scenario']}" for r in HUMANEVAL_RUNS])
def test_humaneval_requests_and_verdicts_equal_the_original(run: dict[str, Any], tmp_path: Path) -> None:
    requests, records = scripted_run(
        [call["answer"] for call in run["calls"]],
        tmp_path / "run",
        "env=humaneval",
        f"env.problems=[{run['task_id']}]",
        "model.api=chat",
        f"experiment.trials={run['max_iters']}",
    )
    assert len(requests) == len(run["calls"])
    for index, (request, call) in enumerate(zip(requests, run["calls"])):
        assert sent(request) == golden_humaneval_call(call), f"request {index} differs"
    assert any(r.success for r in records) == run["is_solved"]
    assert [r.reflection for r in records if r.reflection is not None] == run["reflections"]
    assert [r.attempt_details.implementation.code for r in records if r.attempt_details] == run["implementations"]
    assert [r.trajectory[-1].observation for r in records] == run["test_feedback"]


REFLECTIONS = [" I should look in the drawers first. \n", "Go to the countertop, then take the object.", "\nplan\n"]


def random_script(game: AlfworldGame, seed: int, length: int = 3000) -> list[str]:
    """Answers drawn at random from a small pool (so actions repeat and episodes end early): moves to the game's
    receptacles, a think, an unknown action, outputs too short to be an action, and reflections."""
    rng = random.Random(seed)
    with AlfworldEpisode(game, max_episode_steps=None) as env:
        opening = env.reset().observation
    places = sorted(set(re.findall(r"an? ([a-z]+ \d+)", opening.split("Your task is to:")[0])))
    pool = [f" go to {rng.choice(places)}", f" go to {rng.choice(places)}", " think: where could it be?", " jump", " look"]
    pool += ["", " ok"] + REFLECTIONS
    return [rng.choice(pool) for _ in range(length)]


OTHER_GAMES = random.Random(13).sample(
    [g for g in list_games() if g.game_id not in {run["game_id"] for run in ALFWORLD_RUNS}], 3
)


@pytest.mark.parametrize("game", OTHER_GAMES, ids=[g.game_id.split("/")[0] for g in OTHER_GAMES])
def test_alfworld_requests_equal_the_restated_original_on_other_games_and_answers(
    game: AlfworldGame, tmp_path: Path
) -> None:
    script = random_script(game, seed=len(game.game_id))
    calls, successes = reference_run(game, iter(script), trials=4)
    requests, records = scripted_run(
        script[: len(calls)],
        tmp_path / "run",
        *REFLEXION_ALFWORLD,
        f"env.games=[{game.game_id}]",
        "experiment.trials=4",
    )
    assert len(calls) > 20 and any(call["role"] == "reflector" for call in calls)
    assert [sent(request) for request in requests] == [golden_alfworld_call(call) for call in calls]
    assert [r.success for r in records] == successes


def test_an_empty_first_action_is_a_repeat_that_ends_the_episode(tmp_path: Path) -> None:
    # Six outputs too short to be an action make the action '' on the first step: Reflexion's
    # EnvironmentHistory starts with _last_action = '', so that is already a repeat.
    game = OTHER_GAMES[0]
    requests, [record] = scripted_run(
        [" look"] * 6 + [" plan"],
        tmp_path / "run",
        *REFLEXION_ALFWORLD,
        f"env.games=[{game.game_id}]",
        "experiment.trials=1",
    )
    assert [r["temperature"] for r in requests] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 0.0]
    assert record.end_reason == "exhausted" and [s.action for s in record.trajectory] == [""]
    assert record.reflection == " plan"


def test_humaneval_on_another_problem_and_answers_follows_the_original_loop(tmp_path: Path) -> None:
    # HumanEval/12 (longest): the test answer has a line that does not parse and a wrong test that every
    # implementation fails; the first answer has no fence (its first function is kept), the second a bare
    # fence, the third is right, and check() on the last implementation says so.
    tests = "```python\nassert longest(['bb', 'a', 'cc']) == 'cc'\nassert longest([) == None\n```"
    bare = "Here it is:\ndef longest(strings):\n    return strings[0]\n\nThat is all."
    fenced = "```\ndef longest(strings):\n    return min(strings)\n```"
    right = "```python\ndef longest(strings):\n    if not strings:\n        return None\n    return max(strings, key=len)\n```"
    script = [tests, bare, "It returns the first string.", fenced, "min compares the letters.", right]
    requests, records = scripted_run(
        script, tmp_path / "run", "env=humaneval", "env.problems=[HumanEval/12]", "model.api=chat", "experiment.trials=3"
    )
    assert [r["temperature"] for r in requests] == [0.2, 0.0, 0.2, 0.0, 0.2, 0.0]
    assert [len(r["messages"]) for r in requests] == [2, 2, 2, 6, 2, 6]
    assert [r.attempt_details.tests_run for r in records] == [["assert longest(['bb', 'a', 'cc']) == 'cc'"]] * 3
    codes = [r.attempt_details.implementation.code for r in records]
    assert codes == ["def longest(strings):\n    return strings[0]\n", "def longest(strings):\n    return min(strings)", right[10:-4]]
    failed = "Tested passed:\n\nTests failed:\nassert longest(['bb', 'a', 'cc']) == 'cc' # output: "
    assert [r.trajectory[0].observation for r in records] == [failed + "bb", failed + "a", failed + "bb"]
    # The previous code goes back in a python fence without a blank line; the feedback and reflection follow.
    turns = [m["content"] for m in requests[5]["messages"][2:5]]
    assert turns == [
        "```python\n" + codes[1] + "\n```",
        f"[unit test results from previous impl]:\n{failed}a\n\n[reflection on previous impl]:",
        "min compares the letters.",
    ]
    # check() runs on the last implementation only, although its own test failed, and decides.
    assert [(r.success, r.attempt_details.check_status, r.reflection) for r in records] == [
        (False, None, "It returns the first string."),
        (False, None, "min compares the letters."),
        (True, "passed", None),
    ]
