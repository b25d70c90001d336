"""Where a failed ALFWorld trial was lost, computed from the real engine and its planner (issue 49, rule alfworld-truth/1).

The recorded actions are replayed through the engine (envs/alfworld_replay.py); every replayed answer must equal the
recorded one, else the trial is unscored at that step, never guessed. After each step the planner's distance to
winning (the fewest steps; the planner knows where everything is) is read. Each step is labelled as
tests/fixtures/diagnosis/alfworld/GUIDELINE.md tells a reader to, with the planner's distance where a reader counts:
- error, the first that applies: `invalid_action` ("Nothing happens."); `wrong_object` (took what the task does
  not ask for); `wrong_receptacle` (put the task's object somewhere not its goal); `wrong_transformation` (heat,
  cool, clean or a lamp the task does not ask for); `other` (a step after which no plan exists); `loop` (the same
  action answered as last time, or the repeat that ends the episode, a thought too); `ignored_seen_object` (every
  needed object seen, a step that does not shorten the distance);
- progress: the distance shrinks;
- neutral: thoughts, exploring a place not yet seen before the needed objects are (productive, like progress, for
  finding the stall), anything else before they are seen.
The point of no return is the first step after which the distance exceeds the steps left (or no plan exists). The
decisive step is the first error after the last productive step, if no later than the point of no return; otherwise
the first step of the longest run of errors up to it; none (`search_budget`) without an error up to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from envs.alfworld import AlfworldGame, parse_game
from envs.alfworld_engine import DEFAULT_DATA_DIR
from envs.alfworld_replay import ReplayedStep, replay
from harness.domains.alfworld.actor import THINK_OBSERVATION, clean_observation, initial_observation
from harness.domains.alfworld.diagnosis_steps import names_in, parse_command, type_of
from harness.domains.alfworld.signals import is_thought
from harness.domains.alfworld.vocabulary import TASK_STEPS
from harness.records import TrialRecord
from harness.records.alfworld import NOTHING_HAPPENS
from harness.records.diagnosis import GroundTruth, StepVerdict
from harness.records.step import Step

RULE = "alfworld-truth/1"
_TRANSFORMS = ("heat", "cool", "clean")


@lru_cache(maxsize=256)
def find_game(task_id: str) -> AlfworldGame:
    """The shipped game `<task folder>/<trial folder>`; ValueError for an id that names none."""
    split = DEFAULT_DATA_DIR / "json_2.1.1" / "valid_unseen"
    game_file = split / task_id / "game.tw-pddl"
    if task_id.count("/") != 1 or ".." in task_id or not game_file.is_file():
        raise ValueError(f"{task_id!r} is no shipped ALFWorld game; a task is '<task folder>/<trial folder>'.")
    return parse_game(game_file, split)


class _Goal:
    """What the task needs, read from its folder: the object, the step it must undergo, where it must end up."""

    def __init__(self, game: AlfworldGame) -> None:
        self.target = game.target_object
        self.step = TASK_STEPS.get(game.task_type)
        self.receptacle = game.receptacle
        self.instances = 2 if game.task_type.startswith("pick_two") else 1
        self.needed = {self.target, self.receptacle} if self.step == "look" else {self.target}

    def seen_all(self, names: set[str]) -> bool:
        targets = {name for name in names if type_of(name) == self.target}
        lamps = {name for name in names if type_of(name) == self.receptacle}
        return len(targets) >= self.instances and (self.step != "look" or bool(lamps))

    def wrong(self, action: str, observation: str) -> str | None:
        """The category of a step that worked but does what the task does not ask for, or None."""
        command = parse_command(action)
        if observation == NOTHING_HAPPENS or command.thing is None:
            return None
        thing = type_of(command.thing)
        if command.kind == "take" and thing != self.target:
            return "wrong_object"
        if command.kind == "put" and thing == self.target and type_of(command.place or "") != self.receptacle:
            return "wrong_receptacle"
        if command.kind in _TRANSFORMS and (command.kind != self.step or thing != self.target):
            return "wrong_transformation"
        if command.kind == "use" and self.step != "look":
            return "wrong_transformation"
        return None


def _verdicts(
    steps: Sequence[Step], distances: Sequence[int | None], goal: _Goal
) -> tuple[list[StepVerdict], list[bool]]:
    """Each step's verdict, and whether it was productive (progress, or exploring before everything needed was seen)."""
    verdicts: list[StepVerdict] = []
    productive: list[bool] = []
    seen: set[str] = set()
    visited: set[tuple[str, str]] = set()  # (go | open | examine, place)
    last_answer: dict[str, str] = {}
    places_of_needed: set[str] = set()
    for index, step in enumerate(steps):
        number, before, after = index + 1, distances[index], distances[index + 1]
        command = parse_command(step.action)
        seen_all = goal.seen_all(seen)
        repeat_stop = index == len(steps) - 1 and index > 0 and step.action == steps[index - 1].action
        category: str | None = None
        explored = False
        if is_thought(step.action):
            category = "loop" if repeat_stop else None
        elif step.observation == NOTHING_HAPPENS:
            category = "invalid_action"
        elif (wrong := goal.wrong(step.action, step.observation)) is not None:
            category = wrong
        elif after is None and before is not None:
            category = "other"
        elif after is not None and before is not None and after < before:
            category = "progress"
        elif last_answer.get(step.action) == step.observation or repeat_stop:
            category = "loop"
        elif seen_all:
            toward = command.kind == "go" and command.place in places_of_needed and after == before
            category = None if toward else "ignored_seen_object"
        else:
            explored = command.kind in ("go", "open", "examine") and (command.kind, command.place) not in visited
        if command.place and command.kind in ("go", "open", "examine"):
            visited.add((command.kind, command.place))
            listed = set(names_in(step.observation))
            seen |= listed
            if any(type_of(name) in goal.needed for name in listed):
                places_of_needed.add(command.place)
        elif not is_thought(step.action):
            seen |= set(names_in(step.observation))
        last_answer[step.action] = step.observation
        if category == "progress":
            verdicts.append(StepVerdict(step=number, verdict="progress", category=None, distance=after))
        elif category is None:
            verdicts.append(StepVerdict(step=number, verdict="neutral", category=None, distance=after))
        else:
            verdicts.append(StepVerdict(step=number, verdict="error", category=category, distance=after))
        productive.append(category == "progress" or explored)
    return verdicts, productive


def _point_of_no_return(distances: Sequence[int | None], budget: int | None) -> int | None:
    for number in range(1, len(distances)):
        distance = distances[number]
        if distance is None or (budget is not None and distance > budget - number):
            return number
    return None


def _unscored(task_id: str, steps: int, reason: str, room: str | None = None) -> GroundTruth:
    facts: dict[str, str | list[str]] = {"room": room} if room else {}
    return GroundTruth(
        domain="alfworld", task_id=task_id, rule=RULE, scored=False, unscored=reason, steps=steps, decisive_step=None,
        category=None, point_of_no_return=None, decisive_text=None, facts=facts,
    )


def ground_truth(task_id: str, steps: Sequence[Step], budget: int | None = None) -> GroundTruth:
    """The ground truth of the failed trial `steps` of game `task_id` with a step budget of `budget` (None: unknown,
    so no point of no return but a dead end). ValueError for a task that is no shipped game."""
    game = find_game(task_id)
    moves = [(number, step) for number, step in enumerate(steps, start=1) if not is_thought(step.action)]
    bad_thought = next((n for n, s in enumerate(steps, 1) if is_thought(s.action) and s.observation != THINK_OBSERVATION), None)

    def matches(index: int, result: ReplayedStep) -> bool:
        return index == 0 or clean_observation(result.observation) == moves[index - 1][1].observation

    replayed = replay(game, [step.action for _, step in moves], matches)
    room = initial_observation(replayed[0].observation).split("\n")[0]
    if len(replayed) <= len(moves) or not matches(len(moves), replayed[-1]):
        number = moves[len(replayed) - 2][0] if len(replayed) > 1 else 1
        answer = clean_observation(replayed[-1].observation)
        reason = f"replay diverged at step {number}: the engine answered {answer!r}, the record has {steps[number - 1].observation!r}"
        return _unscored(task_id, len(steps), reason, room)
    if bad_thought is not None:
        return _unscored(task_id, len(steps), f"step {bad_thought} is a thought answered otherwise than {THINK_OBSERVATION!r}", room)
    if any(result.won for result in replayed):
        return _unscored(task_id, len(steps), "the replay wins the game: the record is no failed trial", room)
    distances: list[int | None] = [replayed[0].distance]
    results = iter(replayed[1:])
    for step in steps:
        distances.append(distances[-1] if is_thought(step.action) else next(results).distance)
    goal = _Goal(game)
    verdicts, productive = _verdicts(steps, distances, goal)
    thoughts = {n for n, s in enumerate(steps, 1) if is_thought(s.action)}
    verdicts = [v.model_copy(update={"distance": None}) if v.step in thoughts else v for v in verdicts]
    point = _point_of_no_return(distances, budget)
    decisive = _decisive_step(verdicts, productive, point, thoughts)
    category = verdicts[decisive - 1].category if decisive is not None else "search_budget"
    return GroundTruth(
        domain="alfworld",
        task_id=task_id,
        rule=RULE,
        scored=True,
        unscored=None,
        steps=len(steps),
        decisive_step=decisive,
        category=category,
        error_steps=[v.step for v in verdicts if v.verdict == "error"],
        point_of_no_return=point,
        verdicts=verdicts,
        decisive_text=steps[decisive - 1].action if decisive is not None else None,
        facts={
            "room": room,
            "goal": f"{goal.target} ({goal.step or 'no step'}) -> {goal.receptacle}",
            "budget": str(budget) if budget is not None else "unknown",
            "distance_at_start": str(distances[0]),
        },
    )


def _decisive_step(
    verdicts: Sequence[StepVerdict], productive: Sequence[bool], point: int | None, thoughts: set[int]
) -> int | None:
    """The start of the final stall, or of the longest run of errors (thoughts do not break a run) up to the point of
    no return; None without an error up to it."""
    last = max((index + 1 for index, flag in enumerate(productive) if flag), default=0)
    errors = [v.step for v in verdicts if v.verdict == "error"]
    limit = point if point is not None else len(verdicts)
    stall = next((step for step in errors if step > last), None)
    if stall is not None and stall <= limit:
        return stall
    best: tuple[int, int] | None = None  # (length, start)
    start, length = 0, 0
    for verdict in verdicts[:limit]:
        if verdict.verdict == "error":
            start, length = (start, length + 1) if length else (verdict.step, 1)
            if best is None or length > best[0]:
                best = (length, start)
        elif verdict.step not in thoughts:
            length = 0
    return best[1] if best else None


def record_truth(record: TrialRecord) -> GroundTruth:
    """The ground truth of a record's trial (the spec's `truth`): its budget is its length when it ran out of steps,
    unknown otherwise; a won trial, or one of a game this checkout does not ship, is unscored."""
    if record.success:
        return _unscored(record.task_id, record.steps, "the trial was won: there is nothing to diagnose")
    budget = len(record.trajectory) if record.end_reason == "max_steps" else None
    try:
        return ground_truth(record.task_id, record.trajectory, budget)
    except ValueError as error:  # a game this checkout does not ship: nothing to replay
        return _unscored(record.task_id, record.steps, str(error))
