"""Failure signals read off real trajectories played in shipped ALFWorld games."""

from __future__ import annotations

import pytest

from envs.alfworld import AlfworldEpisode, AlfworldGame, list_games, select_games
from harness.domains.alfworld.actor import THINK_OBSERVATION, clean_observation
from harness.records.step import Step
from harness.domains.alfworld.signals import (
    ActionLoop,
    Exhaustion,
    FailureSignals,
    NothingHappens,
    StepBudget,
    find_action_loops,
    parse_failures,
)

# A bathroom: cabinets 1-4 (closed), countertop 1 (holds soapbottle 1), garbagecan 1, sinkbasins, toilet 1; no drawer.
SOAP = "pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165"
# With SOAP (put), the planner's wins cover three task types in 3 to 6 steps each.
LOOK = "look_at_obj_in_light-Mug-None-DeskLamp-308/trial_T20190908_201421_021646"
COOL = "pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10/trial_T20190907_183715_299073"

# Searches the wrong cabinet, then goes back and forth with a thought in between, until the budget ends.
WANDER = [
    "go to cabinet 1",
    "take soapbottle 1 from cabinet 1",
    "go to sinkbasin 1",
    "go to cabinet 1",
    "think: The soapbottle may be in the sinkbasin.",
    "go to sinkbasin 1",
    "go to cabinet 1",
    "go to sinkbasin 1",
]
# Makes the same round of three twice, then examines one place until the repeated-action stop.
CIRCLE = [
    "go to countertop 1",
    "go to toilet 1",
    "go to garbagecan 1",
    "go to countertop 1",
    "go to toilet 1",
    "go to garbagecan 1",
    "examine garbagecan 1",
    "think: Maybe I missed something.",
    "examine garbagecan 1",
    "examine garbagecan 1",
]
# Opens a drawer the room lacks, then goes where it already is.
STUCK = ["open drawer 1", "go to cabinet 1", "go to cabinet 1"]


class Played:
    """A scripted trajectory as the actor would record it."""

    def __init__(self, steps: list[Step], end_reason: str) -> None:
        self.steps = steps
        self.end_reason = end_reason

    def signals(self) -> FailureSignals:
        # A script that meets none of the actor's stops has spent a budget of exactly its length.
        return parse_failures(self.steps, self.end_reason, max_steps=len(self.steps))


def play(env: AlfworldEpisode, actions: list[str]) -> Played:
    """Play `actions` with the actor's rules: thoughts answered "OK.", arrival prefixes dropped,
    stop on won/done or on the same action twice in a row."""
    env.reset()
    steps: list[Step] = []
    end_reason = "max_steps"
    for index, action in enumerate(actions):
        result = env.step(action)
        observation = THINK_OBSERVATION if action.startswith("think:") else clean_observation(result.observation)
        steps.append(Step(action=action, observation=observation))
        if result.won or result.done:
            end_reason = "won" if result.won else "done"
            break
        if index and action == actions[index - 1]:
            end_reason = "exhausted"
            break
    assert len(steps) == len(actions), "the script stopped early"
    return Played(steps, end_reason)


def planner_win(game: AlfworldGame) -> Played:
    """Follow ALFWorld's planner from reset to won."""
    steps: list[Step] = []
    with AlfworldEpisode(game, policy_commands=True) as env:
        result = env.reset()
        while not result.won:
            assert result.policy_commands and len(steps) < 20, f"{game.game_id}: the planner did not win"
            action = result.policy_commands[0]
            result = env.step(action)
            steps.append(Step(action=action, observation=clean_observation(result.observation)))
    return Played(steps, "won")


@pytest.fixture(scope="module")
def games() -> dict[str, AlfworldGame]:
    return {game.game_id: game for game in select_games(list_games(), names=[SOAP, LOOK, COOL])}


@pytest.fixture(scope="module")
def scripted(games: dict[str, AlfworldGame]) -> dict[str, Played]:
    with AlfworldEpisode(games[SOAP], max_episode_steps=None) as env:
        return {
            name: play(env, actions) for name, actions in [("wander", WANDER), ("circle", CIRCLE), ("stuck", STUCK)]
        }


@pytest.fixture(scope="module")
def wins(games: dict[str, AlfworldGame]) -> dict[str, Played]:
    return {game_id: planner_win(game) for game_id, game in games.items()}


def test_the_scripts_saw_what_they_were_written_for(scripted: dict[str, Played]) -> None:
    wander, circle, stuck = scripted["wander"], scripted["circle"], scripted["stuck"]
    assert (wander.end_reason, circle.end_reason, stuck.end_reason) == ("max_steps", "exhausted", "exhausted")
    assert wander.steps[1].observation == "Nothing happens."
    assert wander.steps[4].observation == "OK."  # the game itself answers a thought with "Nothing happens."
    assert circle.steps[0].observation == "On the countertop 1, you see a soapbottle 1, and a spraybottle 2."
    assert [s.observation for s in stuck.steps] == ["Nothing happens.", "The cabinet 1 is closed.", "Nothing happens."]


def test_wandering_until_the_budget_ends(scripted: dict[str, Played]) -> None:
    assert scripted["wander"].signals() == FailureSignals(
        nothing_happens=[NothingHappens(step=2, action="take soapbottle 1 from cabinet 1")],
        # Steps 3, 4, 6, 7: the thought at step 5 does not break the back-and-forth; step 8 starts
        # a third cycle that the budget cut short, so it is not counted.
        loops=[ActionLoop(start_step=3, end_step=7, cycle=["go to sinkbasin 1", "go to cabinet 1"], repeats=2)],
        exhausted=None,
        budget=StepBudget(max_steps=8),
    )


def test_circling_then_examining_until_exhausted(scripted: dict[str, Played]) -> None:
    assert scripted["circle"].signals() == FailureSignals(
        nothing_happens=[],
        loops=[
            ActionLoop(
                start_step=1,
                end_step=6,
                cycle=["go to countertop 1", "go to toilet 1", "go to garbagecan 1"],
                repeats=2,
            ),
            # Three looks, not two: the thought at step 8 hid the first repetition from the actor's stop.
            ActionLoop(start_step=7, end_step=10, cycle=["examine garbagecan 1"], repeats=3),
        ],
        exhausted=Exhaustion(step=10, action="examine garbagecan 1"),
        budget=None,
    )


def test_stuck_in_place_renders_one_line_per_signal_in_step_order(scripted: dict[str, Played]) -> None:
    signals = scripted["stuck"].signals()
    assert signals.has_failures
    assert signals.render() == "\n".join(
        [
            "Step 1: `open drawer 1` -> Nothing happens.",
            "Steps 2-3: `go to cabinet 1` repeated 2 times in a row.",
            "Step 3: `go to cabinet 1` -> Nothing happens.",
            "Step 3: `go to cabinet 1` repeated the previous action; the episode stopped.",
        ]
    )


def test_render_of_a_budget_and_a_two_action_loop(scripted: dict[str, Played]) -> None:
    assert scripted["wander"].signals().render() == "\n".join(
        [
            "Step 2: `take soapbottle 1 from cabinet 1` -> Nothing happens.",
            "Steps 3-7: `go to sinkbasin 1`, `go to cabinet 1` repeated 2 times in a row.",
            "Step 8: the step budget of 8 actions ran out.",
        ]
    )


@pytest.mark.parametrize("game_id", [SOAP, LOOK, COOL])
def test_a_planner_win_has_no_failure_signal(wins: dict[str, Played], game_id: str) -> None:
    won = wins[game_id]
    signals = won.signals()
    assert len(won.steps) >= 3
    assert signals == FailureSignals(nothing_happens=[], loops=[], exhausted=None, budget=None)
    assert not signals.has_failures and signals.render() == ""


def test_the_planner_wins_cover_three_task_types(games: dict[str, AlfworldGame]) -> None:
    assert sorted(game.prompt_type for game in games.values()) == ["cool", "examine", "put"]


def steps_of(actions: str) -> list[Step]:
    """Letters as actions, "t" as a thought: action patterns for the loop rules alone."""
    return [Step(action="think: hm" if a == "t" else a, observation="OK.") for a in actions]


@pytest.mark.parametrize(
    ("actions", "max_cycle", "expected"),
    [
        # The shortest cycle wins: A x4, not (A A) x2.
        ("AAAA", 3, [(1, 4, "A", 4)]),
        # A trailing partial cycle is left out.
        ("ABABA", 3, [(1, 4, "AB", 2)]),
        # Shortest first at each position, so (A A B) x2 is read as two (A) x2 loops around a B.
        ("AABAAB", 3, [(1, 2, "A", 2), (4, 5, "A", 2)]),
        # Loops never overlap: after (A B) x2 the scan resumes at the second B.
        ("ABABBC", 3, [(1, 4, "AB", 2)]),
        ("ABCDABCD", 3, []),
        ("ABCDABCD", 4, [(1, 8, "ABCD", 2)]),
        ("AtAtA", 3, [(1, 5, "A", 3)]),
        ("tt", 3, []),
    ],
)
def test_loop_rules(actions: str, max_cycle: int, expected: list[tuple[int, int, str, int]]) -> None:
    loops = find_action_loops(steps_of(actions), max_cycle)
    assert [(loop.start_step, loop.end_step, "".join(loop.cycle), loop.repeats) for loop in loops] == expected


def test_inconsistent_arguments_are_refused(scripted: dict[str, Played]) -> None:
    wander = scripted["wander"].steps
    with pytest.raises(ValueError, match="accepted: won"):
        parse_failures(wander, "gave_up", max_steps=8)
    with pytest.raises(ValueError, match="last two actions"):
        parse_failures(wander, "exhausted", max_steps=50)
    with pytest.raises(ValueError, match="8 steps were taken with max_steps=50"):
        parse_failures(wander, "max_steps", max_steps=50)
    with pytest.raises(ValueError, match="max_cycle"):
        find_action_loops(wander, max_cycle=0)
