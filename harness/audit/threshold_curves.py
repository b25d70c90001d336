"""The audit's threshold curves: per domain, the published log the paper's Table 1 reads, its frozen share (frozen
tasks / tasks with RRR, as every frozen share) as each threshold moves (harness.metrics.curves, at the study's set
thresholds)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.audit.paper_claims import ALFWORLD_RUN, HOTPOTQA_RUNS, HUMANEVAL_RUN, WEBSHOP_RUN
from harness.audit.published import PublishedTask
from harness.audit.task_rrr import TaskRRR
from harness.metrics.curves import ThresholdCurves, threshold_curves
from harness.metrics.thresholds import DEFAULT_THRESHOLDS

Measured = tuple[str, Sequence[PublishedTask], Sequence[TaskRRR]]
TABLE1_RUNS = {"ALFWorld": ALFWORLD_RUN, "WebShop": WEBSHOP_RUN, "HumanEval": HUMANEVAL_RUN}
CURVE_RULE = (
    "One log per domain: the one the paper's Table 1 reads (for HotpotQA, whose row no log matches, the log with "
    "the most frozen tasks); the denominator is its tasks with RRR (at least two reflections), as for every frozen "
    "share, not the paper's tasks with memory."
)


def _curve_logs(measured: Sequence[Measured]) -> list[tuple[str, Measured]]:
    by_name = {entry[0]: entry for entry in measured}
    logs = [(domain, by_name[name]) for domain, name in TABLE1_RUNS.items() if name in by_name]
    hotpotqa = [entry for entry in measured if entry[0].startswith(HOTPOTQA_RUNS)]
    if hotpotqa:
        logs.insert(2, ("HotpotQA", max(hotpotqa, key=lambda entry: sum(r.frozen for r in entry[2]))))
    return logs


def audit_curves(measured: Sequence[Measured]) -> list[ThresholdCurves]:
    """The curves of each domain's log, in the order ALFWorld, WebShop, HotpotQA, HumanEval (those present)."""
    curves = []
    for domain, (name, tasks, _) in _curve_logs(measured):
        memories = {task.task_id: [task.reflections] for task in tasks}
        curves.append(threshold_curves(f"{domain}: {name}", memories, DEFAULT_THRESHOLDS))
    return curves
