"""Runs as pandas DataFrames, for analysis beyond the report: one row per trial record, or per run and condition.

It lives with the report, not with the records, because it reads runs as the report does (`load_runs`: the records
the run's plan holds, the metrics measured at the run's thresholds), and the condition rows are the report's own
(harness.report.data_tables). pandas is the optional extra `frames`: `pip install -e '.[frames]'`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import HarnessError
from harness.records import TrialRecord
from harness.report._runs import RunData, load_runs
from harness.report.data_tables import TOTALS_COLUMNS, Row, totals_row

if TYPE_CHECKING:
    import pandas

TRIAL_COLUMNS = [
    "run", "domain", "condition", "task", "repeat", "trial", "success", "end_reason", "steps", "reflection",
    "identity", "actor_model", "reflector_model", "prompt_tokens", "completion_tokens", "llm_calls", "cache_hits",
    "wall_s",
]  # fmt: skip
USAGE_COLUMNS = ["calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd", "unpriced_tokens"]
CONDITION_COLUMNS = ["run", "domain", "condition", "actor_model", "reflector_model", *TOTALS_COLUMNS, *USAGE_COLUMNS]


class FramesUnavailable(HarnessError):
    """pandas, the optional extra `frames`, is not installed."""


def _pandas():
    try:
        import pandas
    except ImportError:
        raise FramesUnavailable(
            "harness.report.frames needs pandas, which is not installed; install it with pip install -e '.[frames]'."
        ) from None
    return pandas


def trial_row(run: RunData, record: TrialRecord) -> Row:
    identity = record.reflection_identity
    return {
        "run": run.name,
        "domain": run.domain,
        "condition": record.condition,
        "task": record.task_id,
        "repeat": record.repeat,
        "trial": record.trial,
        "success": record.success,
        "end_reason": record.end_reason,
        "steps": record.steps,
        "reflection": record.reflection,
        "identity": identity.label if identity is not None else None,
        "actor_model": record.actor_model,
        "reflector_model": record.reflector_model,
        "prompt_tokens": record.usage.prompt_tokens,
        "completion_tokens": record.usage.completion_tokens,
        "llm_calls": record.llm_calls,
        "cache_hits": record.cache_hits,
        "wall_s": record.timing.wall_s,
    }


def load_trials(run_dirs: Sequence[Path | str]) -> pandas.DataFrame:
    """One row per trial record of each run's plan (records outside it are left out, as the report leaves them),
    in the order given and each run's record order; `identity` is the record's stored task-identity label."""
    pandas = _pandas()
    runs = load_runs([Path(d) for d in run_dirs])
    rows = [trial_row(run, record) for run in runs for record in run.records]
    return pandas.DataFrame(rows, columns=TRIAL_COLUMNS)


def load_conditions(run_dirs: Sequence[Path | str]) -> pandas.DataFrame:
    """One row per run and condition: every figure of the catalogue as the report measures it (counts, rates with
    their 95% bounds, shares of reflections over tasks too, mean RRR, frozen), and the condition's
    LLM use (empty without trial records)."""
    pandas = _pandas()
    runs = load_runs([Path(d) for d in run_dirs])
    rows = []
    for run in runs:
        for report in run.metrics.conditions:
            usage = run.usage.get(report.condition)
            rows.append(
                {
                    "run": run.name,
                    "domain": run.domain,
                    "condition": report.condition,
                    "actor_model": report.actor_model,
                    "reflector_model": report.reflector_model,
                    **totals_row(report.totals, report.tasks),
                    **{column: getattr(usage, column) if usage else None for column in USAGE_COLUMNS},
                }
            )
    return pandas.DataFrame(rows, columns=CONDITION_COLUMNS)
