"""A recorded ALFWorld episode replayed through the real engine, with the planner's distance to winning after each
step: what a failed trial's ground truth is computed from (harness/domains/alfworld/diagnosis_truth.py).

The replay engine is started without the per-step plan and replans only when it must (textworld replans on every
step when asked for `policy_commands`, and the replan is nine tenths of a step's CPU): not after a step that left the
engine's state as it was ("Nothing happens."), not after the planner's own next action (the rest of its plan is then
a plan one shorter, and, the plan being the fewest steps, the fewest), not for a state this replay already planned
from (a loop). Results are memoised by game and action prefix, so the same trial (trial 0 is shared by every
condition with the same actor) or a longer trial with the same start costs nothing more; one engine is kept live and
extended when the next replay continues the last one.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envs.alfworld import AlfworldGame
from envs.alfworld_engine import ENGINE_LOCK, kept_argv, start_engine

MEMO_CAPACITY = 50_000
"""Replayed steps kept (one per game and action prefix): a few thousand trials of 30 steps."""


class ReplayedStep(BaseModel):
    """The engine's state after one replayed action (or after reset)."""

    model_config = ConfigDict(frozen=True)

    observation: str = Field(description="The game's text, as printed (arrival messages keep 'You arrive at loc N.').")
    won: bool
    distance: int | None = Field(
        description="The planner's fewest steps to win from here: 0 when won, None when no plan exists (a dead end)."
    )
    plan: tuple[str, ...] = Field(description="The planner's plan from here, its commands as the game accepts them.")


def pddl_env(engine: Any) -> Any:
    """textworld's PddlEnv under ALFWorld's wrappers."""
    while hasattr(engine, "_wrapped_env"):
        engine = engine._wrapped_env
    return engine


class _Session:
    """The live engine of the last replay: its game, the actions replayed so far and their results."""

    def __init__(self) -> None:
        self.engine: Any = None
        self.game_id: str | None = None
        self.actions: list[str] = []
        self.results: list[ReplayedStep] = []
        self.plans: dict[int, tuple[bool, tuple[str, ...]]] = {}

    def _library(self) -> Any:
        library = pddl_env(self.engine)._pddl_state.downward_lib
        library.get_state_id.restype = ctypes.c_int
        return library

    def _replan(self) -> tuple[bool, tuple[str, ...]]:
        """(won, plan) of the engine's current state, planned once per state of this session."""
        env = pddl_env(self.engine)
        state_id = self._library().get_state_id()
        if state_id not in self.plans:
            won = bool(env._pddl_state.check_goal())
            self.plans[state_id] = (won, () if won else tuple(env._pddl_state.replan(env._entity_infos)))
        return self.plans[state_id]

    def reset(self, game: AlfworldGame) -> ReplayedStep:
        if self.engine is None:
            self.engine = start_engine(policy_commands=False, keep_replanning=True)
        self.engine.load(str(game.game_file))
        observation, _infos = self.engine.reset()
        self.game_id, self.actions, self.plans = game.game_id, [], {}
        won, plan = self._replan()
        self.results = [_step(observation, won, plan)]
        return self.results[0]

    def step(self, action: str) -> ReplayedStep:
        before = self.results[-1]
        library = self._library()
        state_before = library.get_state_id()
        observation, _score, _done, _infos = self.engine.step(action)
        state_after = library.get_state_id()
        if state_after == state_before:
            result = before.model_copy(update={"observation": observation})
        elif before.plan and action.strip() == before.plan[0]:
            self.plans.setdefault(state_after, (len(before.plan) == 1, before.plan[1:]))
            won, plan = self.plans[state_after]
            result = _step(observation, won, plan)
        else:
            won, plan = self._replan()
            result = _step(observation, won, plan)
        self.actions.append(action)
        self.results.append(result)
        return result


def _step(observation: str, won: bool, plan: tuple[str, ...]) -> ReplayedStep:
    distance = 0 if won else (len(plan) if plan else None)
    return ReplayedStep(observation=observation, won=won, distance=distance, plan=plan)


_session = _Session()
_memo: OrderedDict[tuple[str, tuple[str, ...]], ReplayedStep] = OrderedDict()


def _remember(key: tuple[str, tuple[str, ...]], step: ReplayedStep) -> None:
    _memo[key] = step
    _memo.move_to_end(key)
    if len(_memo) > MEMO_CAPACITY:
        _memo.popitem(last=False)


def replay(
    game: AlfworldGame,
    actions: Sequence[str],
    keep_going: Callable[[int, ReplayedStep], bool] = lambda index, step: True,
) -> list[ReplayedStep]:
    """The reset (index 0) and each action's result (index k for actions[k-1]), stopping after the first result
    `keep_going(k, result)` refuses (a replayed observation that differs from the recorded one: nothing after it
    is the recorded game)."""
    key: tuple[str, ...] = ()
    results: list[ReplayedStep] = []
    opening = _memo.get((game.game_id, key))
    with ENGINE_LOCK, kept_argv():
        for index in range(len(actions) + 1):
            key = tuple(actions[:index])
            found = _memo.get((game.game_id, key)) if index else opening
            if found is None:
                found = _replay_step(game, actions, index)
                _remember((game.game_id, key), found)
            results.append(found)
            if not keep_going(index, found):
                break
    return results


def _replay_step(game: AlfworldGame, actions: Sequence[str], index: int) -> ReplayedStep:
    """The result of actions[:index] from the live engine, extended, or from a new replay of the prefix."""
    prefix = list(actions[: index - 1]) if index else []
    if index == 0 or _session.game_id != game.game_id or _session.actions != prefix:
        result = _session.reset(game)
        for action in prefix:
            result = _session.step(action)
        if index == 0:
            return result
    return _session.step(actions[index - 1])


def fewest_steps(game: AlfworldGame, actions: Sequence[str], max_depth: int, max_states: int = 200_000) -> int | None:
    """Breadth-first search over the engine's applicable actions from the state after `actions`: the fewest steps
    to win, or None when no win is within `max_depth` steps or `max_states` states. Actions that cost the planner
    nothing (look, inventory, examine) change nothing a plan needs, so they are not expanded. The check on the
    planner's distance, not used by the ground truth."""
    from fast_downward.interface import Atom, Operator

    free = {"look", "inventory", "examinereceptacle", "examineobject"}
    with ENGINE_LOCK, kept_argv():
        _session.reset(game)
        for action in actions:
            _session.step(action)
        library = _session._library()
        root = library.get_state_id()
        try:
            if library.check_goal():
                return 0
            frontier, seen = [root], {root}
            for depth in range(1, max_depth + 1):
                following: list[int] = []
                for state in frontier:
                    library.set_state_id(state)
                    count = library.get_applicable_operators_count()
                    operators = (Operator * count)()
                    library.get_applicable_operators(operators)
                    for operator in operators:
                        if operator.name.split()[0].lower() in free:
                            continue
                        library.set_state_id(state)
                        library.apply_operator(operator.id, (Atom * operator.nb_effect_atoms)())
                        if library.check_goal():
                            return depth
                        reached = library.get_state_id()
                        if reached not in seen:
                            seen.add(reached)
                            following.append(reached)
                    if len(seen) > max_states:
                        return None
                frontier = following
            return None
        finally:
            library.set_state_id(root)
            _session.game_id = None  # the engine's text layer no longer matches its state: the next replay resets
