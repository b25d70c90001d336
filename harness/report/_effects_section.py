"""report.md's effects table: each condition against the control over the tasks both played, paired."""

from __future__ import annotations

from harness.metrics.effects import MEASURES, EffectRow, Effects
from harness.metrics.figures import PAIRED
from harness.metrics.paired import TEST_NOTES
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
    "there are fewer. Difference: condition minus control, mean over tasks, with its {level:.0%} {method} "
    "bootstrap interval resampling tasks "
    "({resamples} resamples, seed {seed}; none below 3 tasks or when every difference is equal). p (Holm): adjusted "
    "by Holm's step-down method over the conditions of each measure; significant (bold) when below alpha {alpha}. "
    "Fisher's table above takes the conditions as independent samples and is the one to read only when their tasks "
    "differ."
)


def _number(value: float | None, form: str = ".2f") -> str:
    return "n/a" if value is None else format(value, form)


def _row(row: EffectRow) -> list[Cell]:
    interval = "n/a" if row.ci_low is None or row.ci_high is None else f"{row.ci_low:.2f} to {row.ci_high:.2f}"
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


def effects_section(effects: Effects | None, reason: str | None, control: str) -> Section:
    """The table and how to read it, or why there is none."""
    if effects is None:
        return Section(effects_title(control), [Paragraph(reason or "No effects.")])
    per_task = [paired.per_task.format(threshold=effects.similarity_threshold) for paired in PAIRED.values()]
    note = NOTE.format(
        per_task=_in_words(per_task),
        mcnemar=TEST_NOTES["mcnemar_exact"],
        permutation=TEST_NOTES["paired_permutation"],
        resamples=effects.n_resamples,
        level=effects.confidence_level,
        method=effects.bootstrap_method,
        seed=effects.seed,
        alpha=effects.alpha,
    )
    return Section(effects_title(effects.control), [Table(HEADER, [_row(r) for r in effects.rows]), Paragraph(note)])
