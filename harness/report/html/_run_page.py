"""The page of one or more runs: their report's document on top, then every task under every report condition."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from harness.metrics.run import RunMetrics
from harness.metrics.thresholds import DEFAULT_THRESHOLDS
from harness.records import TrialRecord
from harness.records.diagnosis_log import read_diagnosis
from harness.report.document import Document
from harness.report.html._model import Page
from harness.report.html._run_groups import run_groups

MENTION_NOTE = "Object mention: where a reflection names its task's object (named beside the task)"


class RunSource(Protocol):
    """What the page reads of a run (harness.report.RunData has it)."""

    @property
    def name(self) -> str: ...
    @property
    def domain(self) -> str | None: ...
    @property
    def metrics(self) -> RunMetrics: ...
    @property
    def records(self) -> list[TrialRecord]: ...
    @property
    def path(self) -> Path: ...


class ConditionSource(Protocol):
    """A condition of the report (harness.report.ReportCondition): its label and the runs it pools."""

    @property
    def label(self) -> str: ...
    @property
    def condition(self) -> str: ...
    @property
    def runs(self) -> list[str]: ...


def run_page(document: Document, runs: Sequence[RunSource], conditions: Sequence[ConditionSource]) -> Page:
    """The page: `document` (the report) and the groups of every run's records, labelled as the report labels
    its conditions; the run is named on each group when there are several."""
    groups = []
    for run in runs:
        labels = {c.condition: c.label for c in conditions if run.name in c.runs}
        diagnosis = read_diagnosis(run.path) or []
        groups += run_groups(run.name, run.domain, run.records, run.metrics, labels, len(runs) > 1, diagnosis)
    return Page(
        document=document,
        conditions=list(dict.fromkeys(c.label for c in conditions)),
        mention_note=MENTION_NOTE,
        # The report's tables are at the first run's thresholds (harness.report._threshold_section), so is the page.
        thresholds=runs[0].metrics.thresholds if runs else DEFAULT_THRESHOLDS,
        groups=groups,
    )


def document_page(document: Document) -> Page:
    """A page of a report alone, for a report with no run to show (a sweep whose jobs all failed)."""
    return Page(document=document, conditions=[], mention_note=MENTION_NOTE, groups=[])
