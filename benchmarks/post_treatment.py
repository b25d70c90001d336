"""Repetition compared on a subset the conditions' own success selects: how often each RRR estimand finds an effect
where a condition helps solving and leaves repetition alone.

    python -m benchmarks.post_treatment [--studies 2000] [--smoke]

Each study has 134 tasks (ALFWorld's), each with a latent difficulty d ~ Normal(0, 1) shared by both conditions.
A chain plays up to 5 trials, each won with probability expit(logit(p) - d), until the first win; a reflection
follows each failed trial, as the harness records them. Reflection j (0-based) repeats an earlier one with probability
1 - (1 - q)^j, q = expit(logit(0.2) + 0.5 d): more earlier reflections, more to repeat, and harder tasks repeat more.
The control solves at p 0.3, the condition at 0.6; q is the same under both (the null: repetition left alone), or
lower under the condition (q at logit(0.2) - 1, planted). Each estimand is tested by the harness's paired
permutation test at alpha 0.05:
- RRR (effects' `rrr`): each chain's RRR over all its reflections, on the tasks with two reflections under both. The
  condition's chains on those tasks are shorter (it solves sooner), and a shorter chain has fewer earlier
  reflections to repeat, so its RRR is lower with repetition untouched.
- RRR matched (effects' `rrr_matched`, harness.metrics.chain_values.matched_rrr): both sides over their first L
  reflections, L the fewer of the two: repetition at equal length.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from scipy.special import expit, logit

from benchmarks._output import add_output_arguments, machine, markdown_table
from harness.metrics.chain_values import matched_rrr
from harness.metrics.paired import ALPHA, paired_permutation_p

TASKS = 134
TRIALS = 5
SOLVE = (0.3, 0.6)
"""Per-trial chance of a win of the median task: control, condition."""
REPEAT = 0.2
DIFFICULTY_ON_REPEAT = 0.5
PLANTED_SHIFT = -1.5
"""The condition's repetition on the logit scale when a repetition effect is planted."""
SIGN_PATTERNS = 999


def _chains(rng: np.random.Generator, solve: float, repeat: np.ndarray, difficulty: np.ndarray) -> list[list[bool]]:
    """Each task's repeat flags (reflections after the first), its reflections written until its first win."""
    wins = rng.random((len(difficulty), TRIALS)) < expit(logit(solve) - difficulty)[:, None]
    reflections = np.where(wins.any(axis=1), wins.argmax(axis=1), TRIALS)  # one after each failed trial
    position = np.arange(TRIALS)[None, :]
    flags = rng.random((len(difficulty), TRIALS)) < 1 - (1 - repeat[:, None]) ** position
    return [list(flags[i, 1 : reflections[i]]) for i in range(len(difficulty))]


def study(rng: np.random.Generator, planted: bool) -> tuple[float, float]:
    """One study's p of each estimand: (RRR over the tasks failed twice under both, RRR matched)."""
    difficulty = rng.normal(0.0, 1.0, TASKS)
    repeat = expit(logit(REPEAT) + DIFFICULTY_ON_REPEAT * difficulty)
    shifted = expit(logit(REPEAT) + PLANTED_SHIFT + DIFFICULTY_ON_REPEAT * difficulty) if planted else repeat
    control, condition = _chains(rng, SOLVE[0], repeat, difficulty), _chains(rng, SOLVE[1], shifted, difficulty)
    whole = [float(np.mean(b)) - float(np.mean(a)) for a, b in zip(control, condition) if a and b]
    pairs = [pair for a, b in zip(control, condition) if (pair := matched_rrr([a], [b])) is not None]
    matched = [b - a for a, b in pairs]
    seed = int(rng.integers(2**31))
    return (
        paired_permutation_p(whole, SIGN_PATTERNS, seed),
        paired_permutation_p(matched, SIGN_PATTERNS, seed),
    )


def rejection_rates(studies: int, seed: int, planted: bool = False) -> tuple[float, float]:
    """The share of `studies` each estimand's test rejects at ALPHA: (RRR, RRR matched)."""
    rng = np.random.default_rng(seed)
    p_values = np.array([study(rng, planted) for _ in range(studies)])
    rejected = np.mean(p_values < ALPHA, axis=0)
    return float(rejected[0]), float(rejected[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=2000, help="simulated studies per case")
    add_output_arguments(parser, "post_treatment")
    args = parser.parse_args()
    studies = 20 if args.smoke else args.studies
    null, planted = rejection_rates(studies, 1), rejection_rates(studies, 2, planted=True)
    print(
        markdown_table(
            ("case", "RRR (tasks failed twice under both)", "RRR matched"),
            [
                ("repetition left alone (rejection rate at 0.05)", f"{null[0]:.3f}", f"{null[1]:.3f}"),
                ("repetition lowered (power)", f"{planted[0]:.3f}", f"{planted[1]:.3f}"),
            ],
        )
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "studies": studies, "null": null, "planted": planted}))


if __name__ == "__main__":
    main()
