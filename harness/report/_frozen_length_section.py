"""report.md's frozen share by chain length: each condition's chains grouped by the reflections they hold, beside
the pooled share over all its chains (harness.metrics.frozen.frozen_by_length)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.frozen import LengthStratum, frozen_by_length
from harness.records import TrialRecord
from harness.report._combine import ReportCondition
from harness.report._runs import RunData
from harness.report.document import Paragraph, Section, Table

TITLE = "Frozen by chain length"
NOTE = (
    "Chains (a task's trials under a condition in one repeat) by the reflections they hold: frozen / chains with an "
    "RRR in each, and over all of them. RRR takes few values on a short chain (0, 1/2 or 1 with 3 reflections), and a "
    "condition that solves sooner leaves shorter chains, so compare frozen shares within a column; the last column "
    "pools them as the condition table's frozen does (there per task, here per chain). A chain of blank reflections "
    "has no RRR and is in no column; a row without records (a run read from metrics.json alone) has none."
)


def _memories(records: Sequence[TrialRecord]) -> list[list[str]]:
    chains: dict[tuple[str, int], list[TrialRecord]] = {}
    for record in records:
        chains.setdefault((record.task_id, record.repeat), []).append(record)
    return [
        [r.reflection for r in sorted(chain, key=lambda r: r.trial) if r.reflection is not None]
        for chain in chains.values()
    ]


def _cell(frozen: int, chains: int) -> str:
    return f"{frozen}/{chains} ({frozen / chains:.0%})" if chains else "-"


def frozen_length_section(runs: Sequence[RunData], conditions: Sequence[ReportCondition]) -> Section:
    by_name = {run.name: run for run in runs}
    strata: dict[str, list[LengthStratum] | None] = {}
    for condition in conditions:
        # Each run's chains apart: a task played by two runs is two chains, never one.
        per_run = [[r for r in by_name[name].records if r.condition == condition.condition] for name in condition.runs]
        if not any(per_run):
            strata[condition.label] = None
            continue
        memories = [memory for records in per_run for memory in _memories(records)]
        thresholds = condition.thresholds
        strata[condition.label] = frozen_by_length(
            memories, thresholds.similarity_threshold, thresholds.frozen_threshold
        )
    lengths = sorted({s.reflections for found in strata.values() if found for s in found})
    rows = []
    for label, found in strata.items():
        if found is None:
            rows.append([label, *("no records" for _ in lengths), "no records"])
            continue
        cells = {s.reflections: s for s in found}
        pooled = (sum(s.frozen for s in found), sum(s.chains for s in found))
        rows.append(
            [label, *(_cell(cells[n].frozen, cells[n].chains) if n in cells else "-" for n in lengths), _cell(*pooled)]
        )
    header = ["condition", *(f"{n} reflections" for n in lengths), "all chains"]
    return Section(TITLE, [Table(header, rows), Paragraph(NOTE)])
