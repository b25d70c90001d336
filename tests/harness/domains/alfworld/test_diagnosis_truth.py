"""The ALFWorld ground truth through the real engine: two replays agree with the committed truths (so tests reading
tests/fixtures/diagnosis/alfworld/truths.jsonl read the rule's answer), a replay that diverges or wins is unscored at
its step, the planner's distance is the fewest steps by breadth-first search, and the line rule names a bad field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.alfworld_replay import fewest_steps, replay
from harness.domains.alfworld.diagnosis_line import budget_of, line_diagnosis
from harness.domains.alfworld.diagnosis_truth import find_game, ground_truth
from harness.domains.alfworld.spec import SPEC
from harness.records.diagnosis import GroundTruth
from harness.records.step import Step

FIXTURE = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "diagnosis" / "alfworld"
SALTSHAKER = "059058a08151"  # 15 steps; saltshaker 1 seen on shelf 1 at step 5, then walked away: decisive 6
BOWL = "c2ffc0fe9a3c"  # 20 steps; the final stall starts at the point of no return (read from truths.jsonl only)


def _trial(key: str) -> tuple[dict, GroundTruth]:
    item = next(i for i in map(json.loads, (FIXTURE / "items.jsonl").read_text().splitlines()) if i["trajectory"] == key)
    truth = next(t for t in map(json.loads, (FIXTURE / "truths.jsonl").read_text().splitlines()) if t["trajectory"] == key)
    return item, GroundTruth.model_validate(truth["truth"])


def _steps(item: dict) -> list[Step]:
    return [Step(**step) for step in item["steps"]]


def test_a_replayed_trial_gives_the_committed_ground_truth() -> None:
    item, committed = _trial(SALTSHAKER)
    steps = _steps(item)
    assert ground_truth(item["task"], steps, budget_of(steps)) == committed


def test_the_ground_truth_reads_as_the_rubric_says() -> None:
    _, saltshaker = _trial(SALTSHAKER)
    assert (saltshaker.decisive_step, saltshaker.category, saltshaker.point_of_no_return) == (6, "ignored_seen_object", 12)
    # step 5 went to shelf 1, where the saltshaker was: the planner's distance fell; a thought has none
    assert saltshaker.verdicts[4].verdict == "progress" and saltshaker.verdicts[0].distance is None
    assert saltshaker.error_steps == [6, 7, 8, 9, 10, 11, 12, 13, 15]
    _, bowl = _trial(BOWL)
    assert (bowl.decisive_step, bowl.category) == (19, "loop")
    assert [v.verdict for v in bowl.verdicts[4:8]] == ["progress", "neutral", "progress", "error"]


def test_a_replay_that_diverges_is_unscored_at_its_step() -> None:
    item, _ = _trial(SALTSHAKER)
    steps = _steps(item)
    steps[4] = Step(action=steps[4].action, observation="On the shelf 1, you see a saltshaker 1.")
    truth = ground_truth(item["task"], steps, 15)
    assert not truth.scored and truth.decisive_step is None
    assert truth.unscored is not None and truth.unscored.startswith("replay diverged at step 5")
    steps = _steps(item)
    steps[0] = Step(action=steps[0].action, observation="Nothing happens.")
    assert "step 1 is a thought" in (ground_truth(item["task"], steps, 15).unscored or "")


def test_a_replay_that_wins_is_no_failed_trial() -> None:
    item, _ = _trial(SALTSHAKER)
    actions = ["go to shelf 1", "take saltshaker 1 from shelf 1", "go to cabinet 1", "put saltshaker 1 in/on cabinet 1"]
    results = replay(find_game(item["task"]), actions)
    assert results[-1].won and [r.distance for r in results] == [4, 3, 2, 1, 0]
    steps = [Step(action=a, observation=r.observation.split(". ", 1)[-1] if r.observation.startswith("You arrive") else r.observation) for a, r in zip(actions, results[1:])]
    truth = ground_truth(item["task"], steps, 15)
    assert not truth.scored and "wins" in (truth.unscored or "")


def test_the_planners_distance_is_the_fewest_steps() -> None:
    item, _ = _trial(SALTSHAKER)
    game = find_game(item["task"])
    assert fewest_steps(game, [], max_depth=5) == replay(game, [])[0].distance == 4
    assert fewest_steps(game, ["go to cabinet 2"], max_depth=5) == replay(game, ["go to cabinet 2"])[1].distance == 4


def test_a_line_is_diagnosed_through_the_spec_and_a_bad_field_is_named() -> None:
    item, committed = _trial(SALTSHAKER)
    assert SPEC.line_diagnosis is not None
    rule = SPEC.line_diagnosis.load()
    truth, claims = rule({"domain": "alfworld", "task": item["task"], "steps": item["steps"], "reflection": "At step 6 I went to cabinet 2."})
    assert truth == committed and claims.claimed_steps == [6]
    bad = [
        ({"steps": item["steps"], "reflection": ""}, "'task'"),
        ({"task": item["task"], "steps": "go", "reflection": ""}, "'steps'"),
        ({"task": item["task"], "steps": [{"action": "look"}], "reflection": ""}, "'steps' item 1"),
        ({"task": item["task"], "steps": item["steps"]}, "'reflection'"),
        ({"task": "no_such_task/trial_1", "steps": item["steps"], "reflection": ""}, "'task'"),
        ({"task": item["task"], "steps": item["steps"], "reflection": "", "max_steps": 3}, "'max_steps'"),
    ]
    for line, field in bad:
        with pytest.raises(ValueError, match=field):
            line_diagnosis(line)
