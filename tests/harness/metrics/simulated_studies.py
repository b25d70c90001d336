"""A test instrument: simulated studies written as trial records and measured by the report's own path from records
(`group_chains`, `effects_of_chains`: RRR from reflection text, solved from the records, the on-task rate from
identity labels, repeats pooled per task, `paired_difference`'s tests).

Each study has N_TASKS tasks, each with a latent difficulty d ~ Normal(0, 1) shared by both conditions (what makes
the data paired). Per task, on the logit scale, shifted by -d:
- one chain of TRIALS trials: the last one won with probability expit(logit(p) - d) (solved; McNemar's exact test);
  each of the TRIALS - 1 reflections after the first repeats the first word for word with probability
  expit(logit(q) - d), else is new text (RRR; paired permutation test); each reflection is labelled on_task with
  probability expit(logit(r) - d), else off_task (on-task identity rate; paired permutation test).
- SOLVED_REPEATS further chains of one trial each, won with the same probability as above, in a second record set:
  solved as a share of repeats (the paired permutation test `paired_difference` uses once repeats make it a share).
Every study plays three conditions on its tasks: the control (CONTROL, at PLANTED's control probabilities), PLANTED_
CONDITION (at PLANTED's condition probabilities: a planted effect) and NULL_CONDITION (at the control's: no effect),
so one pass of `effects_of_chains` measures a planted and a null comparison, Holm-adjusted over the two.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import numpy as np
from scipy.special import expit, logit

from harness.metrics.core import SIMILARITY_THRESHOLD
from harness.metrics.effects import (
    CONTROL,
    EffectRow,
    Measure,
    TaskChains,
    effects_of_chains,
    group_chains,
    task_values,
)
from harness.metrics.paired import ALPHA, holm_or_none
from harness.records import TrialRecord
from harness.records.identity import ReflectionIdentity
from tests.harness.factories import make_record

N_TASKS = 30
TRIALS = 5
SOLVED_REPEATS = 3
PLANTED_CONDITION = "planted"
NULL_CONDITION = "null"
STUDIES = 200
SEED = 20251202
RESAMPLES = 999
"""Random sign patterns: fewer than the report's 9999 to keep the instrument fast; a p
resolution of 0.002 is ample at alpha 0.05."""

PLANTED = {"solved": (0.25, 0.75), "rrr": (0.3, 0.6), "on_task": (0.6, 0.3)}
"""(control, condition) probability of the median task per measure."""

TESTS: dict[str, tuple[Measure, int]] = {
    "solved McNemar": ("solved", 1),
    "solved 3 repeats": ("solved", SOLVED_REPEATS),
    "RRR": ("rrr", TRIALS - 1),
    "on-task rate": ("on_task_rate", TRIALS),
}
"""Each test of a study: the effects row's measure, and the draws behind a task's value (its share's denominator)."""

_LABELS = {on: ReflectionIdentity(label="on_task" if on else "off_task", rule="sim/1") for on in (True, False)}
_TEMPLATE = make_record(0, None)


def _draws(rng: np.random.Generator, probability: float, difficulty: np.ndarray, per_task: int) -> np.ndarray:
    """One row per task of `per_task` Bernoulli draws at the task's own probability."""
    chance = expit(logit(probability) - difficulty)[:, None]
    return rng.random((len(difficulty), per_task)) < chance


def _new_text(trial: int) -> str:
    """A reflection sharing no character with those of the chain's other trials: difflib's ratio 0, so it repeats
    none of them; short, so that the ratios cost little."""
    return "abcdefghij"[trial] * 12


def _record(task: str, condition: str, trial: int, repeat: int, **fields: object) -> TrialRecord:
    update = {"task_id": task, "condition": condition, "trial": trial, "repeat": repeat, **fields}
    return _TEMPLATE.model_copy(update=update)


def _chain(task: str, condition: str, won: bool, repeats: np.ndarray, on_task: np.ndarray
           ) -> Iterator[TrialRecord]:  # fmt: skip
    """One task's chain under one condition: TRIALS records, the last won or not, a reflection on each."""
    first = _new_text(0)
    texts = [first, *(first if again else _new_text(trial) for trial, again in enumerate(repeats, 1))]
    for trial, (text, label) in enumerate(zip(texts, on_task)):
        success = won and trial == TRIALS - 1
        yield _record(task, condition, trial, 0, reflection=text, success=success, reflection_identity=_LABELS[label])


def study_records(rng: np.random.Generator) -> tuple[list[TrialRecord], list[TrialRecord]]:
    """One study's records: the one-chain set (solved, RRR, on-task rate) and the repeats set (solved as a share)."""
    difficulty = rng.normal(0.0, 1.0, N_TASKS)
    chains, repeats = [], []
    for condition in (CONTROL, PLANTED_CONDITION, NULL_CONDITION):
        side = 1 if condition == PLANTED_CONDITION else 0
        won = _draws(rng, PLANTED["solved"][side], difficulty, 1)[:, 0]
        repeating = _draws(rng, PLANTED["rrr"][side], difficulty, TRIALS - 1)
        on_task = _draws(rng, PLANTED["on_task"][side], difficulty, TRIALS)
        shares = _draws(rng, PLANTED["solved"][side], difficulty, SOLVED_REPEATS)
        for i in range(N_TASKS):
            chains += _chain(f"t{i}", condition, bool(won[i]), repeating[i], on_task[i])
            repeats += [
                _record(f"t{i}", condition, 0, k, reflection=None, success=bool(shares[i, k]))
                for k in range(SOLVED_REPEATS)
            ]
    return chains, repeats


class Comparison:
    """One condition of a study against the control under one test: the report's effects row, and the per-task
    differences (condition - control) it was computed from."""

    def __init__(self, row: EffectRow, differences: np.ndarray) -> None:
        self.row = row
        self.differences = differences
        self.significant = row.significant
        """Holm's p over the study's two conditions below alpha, as for a primary measure (`measure_study`)."""


Study = dict[str, dict[str, Comparison]]
"""condition (PLANTED_CONDITION, NULL_CONDITION) -> test name (TESTS) -> its comparison."""


def _differences(chains: TaskChains, condition: str, measure: Measure) -> np.ndarray:
    control = task_values(chains[CONTROL], measure, SIMILARITY_THRESHOLD)
    other = task_values(chains[condition], measure, SIMILARITY_THRESHOLD)
    return np.array([other[t] - control[t] for t in sorted(control) if control[t] is not None and other[t] is not None])


def measure_study(rng: np.random.Generator) -> Study:
    """A study drawn, written as records and measured by `effects_of_chains`."""
    one_chain, with_repeats = study_records(rng)
    seed = int(rng.integers(2**31))
    study: Study = {PLANTED_CONDITION: {}, NULL_CONDITION: {}}
    parts = ((one_chain, ("solved McNemar", "RRR", "on-task rate")), (with_repeats, ("solved 3 repeats",)))
    for records, tests in parts:
        chains = group_chains(records)
        effects = effects_of_chains(chains, n_resamples=RESAMPLES, seed=seed)
        assert effects is not None
        rows = {(row.condition, row.measure): row for row in effects.rows}
        for name in tests:
            measure = TESTS[name][0]
            for condition in study:
                study[condition][name] = Comparison(rows[condition, measure], _differences(chains, condition, measure))
            # Each test as a design's primary measure: Holm over the planted and the null condition alone (the
            # report's own p_holm puts a secondary measure in one family with the others: effects.adjusted).
            p_holm = holm_or_none([study[condition][name].row.p for condition in study])
            for condition, p in zip(study, p_holm):
                study[condition][name].significant = p is not None and p < ALPHA
    return study


@cache
def measured_studies(studies: int = STUDIES, seed: int = SEED) -> tuple[Study, ...]:
    """`studies` studies, measured once per test process: the power tests read their planted comparisons and the
    calibration tests their null ones."""
    rng = np.random.default_rng(seed)
    return tuple(measure_study(rng) for _ in range(studies))
