"""report.md's effects table: each condition against the control over the tasks both played, paired."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.effects import MEASURES, EffectRow, Effects
from harness.metrics.figure_text import frozen as frozen_text
from harness.metrics.figures import PAIRED
from harness.metrics.paired import TEST_NOTES
from harness.report._combine import ReportCondition
from harness.report._runs import RunData
from harness.report.document import Cell, Paragraph, Section, Strong, Table

HEADER = [
    "measure", "condition", "tasks paired (dropped)", "control mean", "condition mean", "difference", "CI", "test",
    "p", "p (Holm)",
]  # fmt: skip
TEST_LABELS = {"mcnemar_exact": "McNemar exact", "paired_permutation": "paired permutation"}
NOTE = (
    "Paired over tasks: a task counts once per condition, its value pooled as the mean over its repeats (and over "
    "runs that played it), and only tasks with the measure defined under both the condition and the control are "
    "compared (dropped: the others). Per-task values: {per_task}. Tests, two-sided: {mcnemar} on solved while "
    "every value is 1 or 0; otherwise the {permutation}, from {resamples} random sign patterns or every one when "
    "there are fewer. Difference: condition minus control, mean over tasks, with its {level:.0%} interval: the "
    "shifts of the differences the permutation test keeps (its sign patterns, seed {seed}), so it holds 0 exactly "
    "when the permutation test's p is above alpha; on solved under McNemar's test, widened to hold Tango's score "
    "interval too (which keeps it near its level where a large effect sits near a bound, and 0 where it was); none "
    "below {min_tasks} tasks ({min_binary} on solved under McNemar's test), where it covers less than its level (too "
    "few tasks); where every difference is alike, an exact bound (how rarely every task would agree). "
    "{families} Significant (bold): p (Holm) below alpha {alpha}. "
    "Fisher's table above takes the conditions as independent samples and is the one to read only when their tasks "
    "differ.")


def _number(value: float | None, form: str = ".2f") -> str:
    return "n/a" if value is None else format(value, form)


def _row(row: EffectRow) -> list[Cell]:
    interval = f"{row.ci_low:.2f} to {row.ci_high:.2f}" if row.ci_low is not None and row.ci_high is not None else None
    interval = interval or row.no_interval or "n/a"
    test = TEST_LABELS[row.test]
    if row.discordant is not None:
        test += f" ({row.discordant[0]} gained, {row.discordant[1]} lost)"
    p_holm = _number(row.p_holm, ".3g")
    return [
        MEASURES[row.measure],
        row.condition,
        f"{row.n} ({row.dropped})",
        _number(row.control_mean),
        _number(row.condition_mean),
        _number(row.difference, "+.2f"),
        interval,
        test,
        _number(row.p, ".3g"),
        Strong(p_holm) if row.significant else p_holm,
    ]


def _in_words(clauses: list[str]) -> str:
    """"a", "a and b", "a, b, and c"."""
    if len(clauses) < 3:
        return " and ".join(clauses)
    return ", ".join(clauses[:-1]) + ", and " + clauses[-1]


def effects_title(control: str) -> str:
    return f"Effects (paired over tasks, against {control})"


def families(effects: Effects) -> str:
    """How the p-values were adjusted: the design's primary measure alone, the secondary measures together."""
    if effects.primary is None:
        return (
            "p (Holm): the runs' designs declare different primary measures, so every row is one family, adjusted "
            "by Holm's step-down method over all of them."
        )
    return (
        f"Primary measure: {MEASURES[effects.primary]} (the design's metrics.primary_measure), its p (Holm) adjusted "
        "by Holm's step-down method over the conditions; every other measure is secondary, its p (Holm) adjusted over "
        "all the secondary rows together, measures and conditions, so each measure tested beside it costs the others."
    )


def held_out_note(runs: Sequence[RunData], conditions: Sequence[ReportCondition], control: str) -> Paragraph | None:
    """What the effects estimate when the tasks were selected for having frozen (env.frozen_in): the control's
    frozen share on the fresh samples, and the estimand it leaves; None for runs of tasks not so selected."""
    selections = sorted({run.selection for run in runs if run.selection})
    if not selections:
        return None
    shares = "; ".join(
        f"{c.label} {frozen_text(c.totals)}" for c in conditions if c.condition == control
    ) or f"no {control} row"
    return Paragraph(
        f"Held out: the tasks were selected as frozen under {control} in {', '.join(selections)}. On these fresh "
        f"samples the control is frozen on {shares} (frozen / tasks with an RRR): a task chosen for its extreme "
        "repetition repeats less when sampled again (regression to the mean), so the control is no frozen memory "
        "here. The effects therefore estimate each condition against a fresh control on tasks that froze once, what "
        "a condition does on tasks prone to freezing, not how far it unfreezes a memory that is frozen now."
    )


def effects_section(
    effects: Effects | None, reason: str | None, control: str, held_out: Paragraph | None = None
) -> Section:
    """The table and how to read it, or why there is none; `held_out`: what a held-out selection makes of them."""
    extra = [held_out] if held_out is not None else []
    if effects is None:
        return Section(effects_title(control), [Paragraph(reason or "No effects."), *extra])
    per_task = [paired.per_task.format(threshold=effects.similarity_threshold) for paired in PAIRED.values()]
    note = NOTE.format(
        per_task=_in_words(per_task),
        mcnemar=TEST_NOTES["mcnemar_exact"],
        permutation=TEST_NOTES["paired_permutation"],
        resamples=effects.n_resamples,
        level=effects.confidence_level,
        min_tasks=effects.min_tasks_for_interval,
        min_binary=effects.min_tasks_for_binary_interval,
        seed=effects.seed,
        alpha=effects.alpha,
        families=families(effects),
    )
    table = Table(HEADER, [_row(r) for r in effects.rows])
    return Section(effects_title(effects.control), [table, Paragraph(note), *extra])
