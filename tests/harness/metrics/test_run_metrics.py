"""Per-condition metrics of a run, Spearman's conventions, and the tables drawn from them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from harness.metrics.spearman import spearman_rrr_vs_trials
from harness.records import RunPlan
from harness.records.details import TemplateParts
from harness.metrics.run import METRICS_FILE, RunMetrics, run_metrics, write_metrics
from harness.report.tables import conditions_table, rrr_grid
from tests.harness.report.commonmark import blocks_markdown
from tests.harness.factories import make_record

SAME = "Go to cabinet 1, take the SaltShaker, put it in cabinet 2."
MALFORMED = TemplateParts(
    raw="FAILED STEP: nothing",
    failed_step="nothing",
    root_cause=None,
    new_plan=None,
    matched_step=None,
    malformed=True,
    problems=["no ROOT CAUSE part", "no NEW PLAN part"],
    policy="skip",
)


def records():
    frozen = [make_record(t, SAME, task="salt") for t in range(3)]
    solved = [
        make_record(0, "look in the drawer for a saltshaker", task="pepper"),
        make_record(1, None, True, "pepper"),
    ]
    template = [
        make_record(0, None, task="salt", condition="grounded_template", details=MALFORMED),
        make_record(
            1, "FAILED STEP: > go to cabinet 1\nROOT CAUSE: x\nNEW PLAN: y", task="salt", condition="grounded_template"
        ),
        make_record(2, None, True, "salt", condition="grounded_template"),
    ]
    return frozen + solved + template


TARGETS = {"salt": "SaltShaker", "pepper": "SaltShaker"}


def plan(*conditions: str) -> RunPlan:
    return RunPlan(conditions=list(conditions), tasks=None, trials=3)


def test_each_condition_reports_counts_with_their_denominators(tmp_path: Path) -> None:
    metrics = run_metrics(records(), plan("self_diagnosis", "grounded_template", "no_memory"), TARGETS)
    assert [r.condition for r in metrics.conditions] == ["self_diagnosis", "grounded_template"]
    diagnosis, template = metrics.conditions
    t = diagnosis.totals
    assert (t.tasks, t.solved, t.rrr_defined, t.mean_rrr, t.frozen, t.malformed) == (2, 1, 1, 1.0, 1, 0)
    assert (t.mentions.reflections, t.mentions.strict, t.mentions.normalized) == (4, 3, 4)
    assert [(task.task_id, task.trials, task.reflections) for task in diagnosis.tasks] == [
        ("pepper", 2, 1),
        ("salt", 3, 3),
    ]
    assert template.totals.malformed == 1 and template.totals.solved == 1 and template.totals.mean_rrr is None
    path = write_metrics(tmp_path, metrics)
    assert path == tmp_path / METRICS_FILE
    assert RunMetrics.model_validate(json.loads(path.read_text())) == metrics


def test_the_table_shows_strict_and_normalized_mention_side_by_side() -> None:
    conditions = run_metrics(records(), plan("self_diagnosis", "grounded_template"), TARGETS).conditions
    table = blocks_markdown(conditions_table(conditions, ["A rule."]))
    rows = table.splitlines()
    # pepper is won at trial 1, salt (grounded_template) at trial 2: each condition's first solving trial.
    # Without an identity rule the identity cells say so ("-") rather than 0.
    # A share is the mean of the tasks' shares (pepper names its object in 0 of 1 reflection, salt in 3 of 3: 50%,
    # where the 4 reflections pooled made it 75%), with Clopper-Pearson's interval over the tasks: wide at two and
    # at one task, and given, as it covers at any number of tasks.
    assert rows[2] == (
        "| self_diagnosis | m | 1/2 (50%) | 1.00 (1) | - | - | - | 50% over 2 tasks (3/4 reflections; 1%-99%) "
        "| 100% over 2 tasks (4/4 reflections; 16%-100%) | 1.00 (1) | 1/1 (100%) | 0 |"
    )
    assert rows[3] == (
        "| grounded_template | m | 1/1 (100%) | 2.00 (1) | - | - | - | 0% over 1 task (0/1 reflections; 0%-98%) "
        "| 0% over 1 task (0/1 reflections; 0%-98%) | undefined (0) | undefined | 1 |"
    )
    assert "undefined, not 0" in table
    assert "with the same interval. A rule. Average RRR" in table


def test_the_grid_marks_solved_tasks_and_undefined_rrr() -> None:
    conditions = run_metrics(records(), plan("self_diagnosis", "grounded_template"), TARGETS).conditions
    grid = blocks_markdown(rrr_grid(conditions)).splitlines()
    assert grid[2] == "| pepper | undefined (1, S@1) | - |"
    assert grid[3] == "| salt | 1.00 (3) | undefined (1, S@2) |"


PAIRS = [(1.0, 5, 10), (0.75, 5, 9), (0.5, 3, 4), (0.0, 2, 2), (None, 1, 3), (None, 1, 2), (None, 0, 1)]


def test_spearman_over_tasks_with_rrr_matches_scipy_on_those_tasks() -> None:
    result = spearman_rrr_vs_trials(PAIRS, "tasks_with_rrr")
    expected = spearmanr([1.0, 0.75, 0.5, 0.0], [10, 9, 4, 2])
    assert result.n == 4 and math.isclose(result.rho, expected.statistic) and math.isclose(result.p, expected.pvalue)
    assert result.rho == pytest.approx(1.0)


def test_spearman_with_memory_counts_a_single_reflection_as_rrr_zero() -> None:
    result = spearman_rrr_vs_trials(PAIRS, "tasks_with_memory_rrr0")
    expected = spearmanr([1.0, 0.75, 0.5, 0.0, 0.0, 0.0], [10, 9, 4, 2, 3, 2])
    assert result.n == 6 and math.isclose(result.rho, expected.statistic)


def test_spearman_is_undefined_for_too_few_or_constant_points() -> None:
    assert spearman_rrr_vs_trials(PAIRS[:2], "tasks_with_rrr").rho is None
    constant = [(1.0, 2, 3), (1.0, 2, 4), (1.0, 2, 5)]
    result = spearman_rrr_vs_trials(constant, "tasks_with_rrr")
    assert (result.n, result.rho, result.p) == (3, None, None)
    with pytest.raises(ValueError, match="unknown convention"):
        spearman_rrr_vs_trials(PAIRS, "all")  # type: ignore[arg-type]
