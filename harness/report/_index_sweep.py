"""A sweep folder as a row of index.html: what it swept (multirun.yaml), how many of its jobs finished, and the
union of its jobs' rows.

multirun.yaml is read as data (no interpolation resolved, no config composed): the swept overrides are those
Hydra's parser reads as sweeps, and the number of jobs is the basic sweeper's split of them, unknown for another
sweeper or a sweep only a config loader can expand (glob).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from pydantic import BaseModel, ConfigDict, Field

from harness.report._index_run import FINISHED
from harness.report.html import IndexRow

MULTIRUN_FILE = "multirun.yaml"
BASIC_SWEEPER = f"{BasicSweeper.__module__}.{BasicSweeper.__name__}"


class SweepPlan(BaseModel):
    """What multirun.yaml says the sweep launches."""

    model_config = ConfigDict(frozen=True)

    swept: list[str] = Field(description="The swept overrides as given, e.g. 'strategy=self_diagnosis,no_memory'.")
    jobs: int | None = Field(description="How many jobs the sweep launches; None when it cannot be told.")
    problem: str | None = Field(None, description="Why multirun.yaml could not be read, when it could not.")


def _mapping(value: Any, key: str) -> dict[str, Any]:
    inner = value.get(key) if isinstance(value, dict) else None
    return inner if isinstance(inner, dict) else {}


def sweep_plan(sweep_dir: Path) -> SweepPlan:
    """The sweep's swept overrides and job count, from its multirun.yaml."""
    try:
        data = yaml.safe_load((sweep_dir / MULTIRUN_FILE).read_text(encoding="utf-8"))
        hydra = _mapping(data, "hydra")
        sweeper = _mapping(hydra, "sweeper")
        params = sweeper.get("params") or {}
        task = _mapping(hydra, "overrides").get("task") or []
        arguments = [*(f"{key}={value}" for key, value in dict(params).items()), *map(str, task)]
        overrides = OverridesParser.create().parse_overrides(arguments)
    except (OSError, ValueError, TypeError, yaml.YAMLError, HydraException) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return SweepPlan(swept=[], jobs=None, problem=f"unreadable {MULTIRUN_FILE} ({reason})")
    # The command line spells every setting `++key=value` (harness.run.cli); shown as key=value.
    swept = [a.lstrip("+") for a, o in zip(arguments, overrides) if o.is_sweep_override()]
    jobs = None
    if sweeper.get("_target_") == BASIC_SWEEPER:
        try:
            jobs = sum(len(batch) for batch in BasicSweeper.split_arguments(overrides, None))
        except HydraException:  # a sweep only the config loader expands (glob): its count is unknown
            jobs = None
    return SweepPlan(swept=swept, jobs=jobs)


def _status(plan: SweepPlan, jobs: Sequence[IndexRow]) -> tuple[str, str]:
    """finished when every planned job finished, else unfinished; and the jobs' statuses in a line."""
    counts = Counter(job.status for job in jobs)
    planned = plan.jobs if plan.jobs is not None else len(jobs)
    others = [f"{n} {status}" for status, n in sorted(counts.items()) if status != FINISHED]
    if planned > len(jobs):
        others.append(f"{planned - len(jobs)} not started")
    line = f"jobs: {counts[FINISHED]} of {planned} finished" + (f" ({', '.join(others)})" if others else "")
    done = counts[FINISHED] == planned and planned > 0 and len(jobs) == planned
    return (FINISHED if done else "unfinished"), line


def _planned_trials(plan: SweepPlan, jobs: Sequence[IndexRow]) -> int | None:
    """The jobs' bounds summed; unknown while a planned job has no directory yet or a job's bound is unknown."""
    bounds = [job.trials_planned for job in jobs]
    if not jobs or plan.jobs != len(jobs) or any(bound is None for bound in bounds):
        return None
    return sum(bound or 0 for bound in bounds)


def _union(values: Sequence[Sequence[str]]) -> list[str]:
    return list(dict.fromkeys(value for inner in values for value in inner))


def sweep_row(sweep_dir: Path, shown: str, jobs: Sequence[IndexRow], report: str | None) -> IndexRow:
    """The sweep in `sweep_dir` over `jobs` (the rows of the run directories under it)."""
    plan = sweep_plan(sweep_dir)
    status, line = _status(plan, jobs)
    figures = [plan.problem] if plan.problem else []
    if plan.swept:
        figures.append(f"swept: {' '.join(plan.swept)}")
    started = [job.started for job in jobs if job.started]
    return IndexRow(
        kind="sweep",
        path=shown,
        status=status,
        domains=_union([job.domains for job in jobs]),
        conditions=_union([job.conditions for job in jobs]),
        models=_union([job.models for job in jobs]),
        started=min(started) if started else None,
        trials_done=sum(job.trials_done or 0 for job in jobs) if jobs else None,
        trials_planned=_planned_trials(plan, jobs),
        figures=[*figures, line],
        report=report,
        search=_union([job.search for job in jobs]),
    )
