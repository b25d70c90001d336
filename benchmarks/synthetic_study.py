"""A synthetic run at the study's size (134 ALFWorld games x 5 conditions x 10 trials, 49 steps), for the report
page's benchmark and its study-size test. Not a model's output, and named so.

Reflections are drawn from the published ALFWorld logs (data/reflexion-logs) and, at a seeded rate, repeated with
a few words changed, so RRR, frozen memories and object mentions take values like a real study's; trajectories are
ALFWorld-shaped (go to / open / take actions and the engine's kinds of answers); grounded_template and programmatic
trials carry their source's details. Written as a run directory the report reads like any other: trials.jsonl,
metrics.json and manifest.json.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path

from envs.alfworld import list_games
from harness.audit import discover_sources, load_source
from harness.records.alfworld import FailureSignals, NothingHappens, StepBudget
from harness.domains.alfworld.target import target_object, task_mentions
from harness.llm import Usage
from harness.metrics.run import run_metrics, write_metrics
from harness.records import TRIALS_FILE, Manifest, RunPlan, TrialRecord, write_manifest
from harness.records.details import ExtractedSignals, ReflectionDetails, TemplateParts
from harness.records.step import Step

CONDITIONS = ("self_diagnosis", "no_memory", "grounded_template", "programmatic", "model_swap")
GAMES, TRIALS, MAX_STEPS = 134, 10, 49
SOLVE_RATE = 0.4
"""Share of tasks won, each in its last trial: every task plays every trial, the study's full 134 x 5 x 10."""
REPEAT_RATE = 0.45
"""Chance that a reflection repeats the task's previous one with a few words changed."""
MALFORMED_RATE = 0.2
RECEPTACLES = ("cabinet", "countertop", "drawer", "shelf", "fridge", "microwave", "sinkbasin", "garbagecan", "desk")
OBJECTS = ("apple", "mug", "knife", "plate", "bowl", "cup", "spatula", "soapbottle", "saltshaker", "cd", "pencil")
PUBLISHED_ALFWORLD = "alfworld_runs/root/reflexion_run_logs"
NOTHING = "Nothing happens."


def published_reflections() -> list[str]:
    """Every reflection of the published Reflexion ALFWorld run, in log order."""
    (source,) = [s for s in discover_sources() if s.name == PUBLISHED_ALFWORLD]
    return [text for task in load_source(source) for text in task.reflections]


def _contents(game: str, place: str) -> str:
    """What a place holds in a game: fixed per game, as in the real engine, so observations repeat across trials."""
    rng = random.Random(f"{game}/{place}")
    things = ", ".join(f"a {rng.choice(OBJECTS)} {rng.randint(1, 3)}" for _ in range(rng.randint(0, 4)))
    return things or "nothing"


def _observation(rng: random.Random, game: str, action: str) -> str:
    verb, _, rest = action.partition(" ")
    if verb == "think:":
        return "OK."
    if verb == "take" or rng.random() < 0.15:
        return NOTHING
    place = rest.removeprefix("to ")
    if verb == "open":
        return f"You open the {place}. The {place} is open. In it, you see {_contents(game, place)}."
    return f"On the {place}, you see {_contents(game, place)}."


def trajectory(rng: random.Random, game: str, steps: int, target: str) -> list[Step]:
    actions = []
    for _ in range(steps):
        place = f"{rng.choice(RECEPTACLES)} {rng.randint(1, 6)}"
        actions.append(
            rng.choice(
                (
                    f"go to {place}",
                    f"open {place}",
                    f"take {target.lower()} {rng.randint(1, 3)} from {place}",
                    f"think: Now I find a {target.lower()}. Next, I need to put it in/on {place}.",
                )
            )
        )
    return [Step(action=action, observation=_observation(rng, game, action)) for action in actions]


def _edited(rng: random.Random, text: str) -> str:
    """The text with one to three words replaced: a repeat, as the study's models write them."""
    words = text.split(" ")
    for _ in range(rng.randint(1, 3)):
        words[rng.randrange(len(words))] = rng.choice(OBJECTS + RECEPTACLES)
    return " ".join(words)


Reflected = tuple[str | None, ReflectionDetails | None]


def _programmatic(text: str, steps: list[Step]) -> Reflected:
    nothing = [NothingHappens(step=k + 1, action=s.action) for k, s in enumerate(steps) if s.observation == NOTHING]
    budget = StepBudget(max_steps=len(steps))
    signals = FailureSignals(nothing_happens=nothing, loops=[], exhausted=None, budget=budget)
    return text, ExtractedSignals(signals=signals, rendered=signals.render())


def _template(rng: random.Random, text: str, steps: list[Step]) -> Reflected:
    step = rng.randrange(len(steps))
    if rng.random() < MALFORMED_RATE:
        parts = TemplateParts(
            raw=text, failed_step=None, root_cause=text, new_plan=text, matched_step=None, malformed=True,
            problems=["FAILED STEP is missing"], policy="skip",
        )
        return None, parts
    failed = f"> {steps[step].action} -> {steps[step].observation}"
    parts = TemplateParts(
        raw=text, failed_step=failed, root_cause=text, new_plan=text, matched_step=step + 1, malformed=False,
        problems=[], policy="skip",
    )
    return f"FAILED STEP: {failed}\nROOT CAUSE: {text}\nNEW PLAN: {text}", parts


def _reflected(rng: random.Random, condition: str, text: str, steps: list[Step]) -> Reflected:
    if condition == "programmatic":
        return _programmatic(text, steps)
    if condition == "grounded_template":
        return _template(rng, text, steps)
    return text, None


def task_records(
    rng: random.Random, game: str, condition: str, pool: list[str], trials: int, steps: int
) -> list[TrialRecord]:
    """One task under one condition: trials until won or out of budget, each failed one reflected on."""
    records, memory, previous = [], [], None
    target = target_object(game)
    solved = rng.random() < SOLVE_RATE
    for trial in range(trials):
        won = solved and trial == trials - 1
        played = trajectory(rng, game, rng.randint(5, steps - 1) if won else steps, target)
        text = None
        if not won and condition != "no_memory":
            text = _edited(rng, previous) if previous and rng.random() < REPEAT_RATE else rng.choice(pool)
            previous = text
        reflection, details = (None, None) if text is None else _reflected(rng, condition, text, played)
        model = "smollm2-135m" if condition == "model_swap" else "qwen2.5-coder-1.5b"
        usage = Usage(prompt_tokens=1000, completion_tokens=10)
        records.append(
            TrialRecord(
                task_id=game, condition=condition, trial=trial, success=won,
                end_reason="won" if won else "max_steps", steps=len(played),
                task_text=f"Your task is to: put some {target.lower()} on a receptacle.", trajectory=played,
                memory=memory[-3:], reflection=reflection, reflection_details=details, actor_model=model,
                reflector_model="none" if condition == "no_memory" else model, usage=usage, actor_usage=usage,
                reflector_usage=Usage(), llm_calls=len(played), cache_hits=0, llm_latency_s=0.0,
            )
        )
        if reflection is not None:
            memory.append(reflection)
        if won:
            break
    return records


def write_study_run(
    run_dir: Path,
    games: int = GAMES,
    trials: int = TRIALS,
    steps: int = MAX_STEPS,
    seed: int = 0,
    metrics: bool = True,
) -> list[TrialRecord]:
    """The synthetic run directory: the first `games` shipped games x CONDITIONS x up to `trials`; its records.
    Without `metrics`, no metrics.json: a report measures them from the records."""
    rng = random.Random(seed)
    pool = published_reflections()
    chosen = [game.game_id for game in list_games()][:games]
    records = [r for game in chosen for c in CONDITIONS for r in task_records(rng, game, c, pool, trials, steps)]
    run_dir.mkdir(parents=True, exist_ok=True)
    # One write, not TrialLog's fsync per record: nothing here needs to survive a crash.
    (run_dir / TRIALS_FILE).write_text("".join(r.model_dump_json() + "\n" for r in records))
    now = datetime.now(timezone.utc)
    conditions = [{"name": c} for c in CONDITIONS]
    config = {"env": {"name": "alfworld"}, "conditions": conditions, "experiment": {"trials": trials}}
    manifest = Manifest(
        config=config, package_versions={}, git_commit=None, data_hashes={}, started_at=now, ended_at=now,
        status="finished",
    )
    write_manifest(run_dir, manifest)
    if metrics:
        targets = {game: target_object(game) for game in chosen}
        plan = RunPlan(conditions=list(CONDITIONS), tasks=chosen, trials=trials)
        write_metrics(run_dir, run_metrics(records, plan, targets, task_mentions))
    return records
