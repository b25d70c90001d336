"""The run log's WARNING lines: the first reflection of each kind per condition as it is recorded, and the counts."""

from __future__ import annotations

import logging

import pytest

from harness.metrics.run import run_metrics
from harness.records import RunPlan
from harness.records.calls import ModelCall
from harness.run.run_on_watch import RunOnWatch, warn_run_on_totals
from tests.harness.factories import make_record

RAN_ON = " I will take the mug.\n> go to desk 1\nOn the desk 1, you see a mug 1."


def reflector(finish: str) -> ModelCall:
    return ModelCall(role="reflector", key="k", cached=False, backend="openai:m", finish_reason=finish, temperature=0.0)


def test_the_first_of_each_kind_per_condition_is_warned_as_it_is_recorded(caplog: pytest.LogCaptureFixture) -> None:
    watch = RunOnWatch()
    with caplog.at_level(logging.WARNING):
        watch.saw(make_record(0, " A plan.").model_copy(update={"calls": [reflector("stop")]}))
        assert caplog.records == []
        watch.saw(make_record(0, RAN_ON, task="t\x1b[2J").model_copy(update={"calls": [reflector("length")]}))
        watch.saw(make_record(1, RAN_ON).model_copy(update={"calls": [reflector("length")]}))  # warned already
        watch.saw(make_record(0, RAN_ON, condition="programmatic"))
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 3 and all(record.levelname == "WARNING" for record in caplog.records)
    assert lines[0].startswith("self_diagnosis: the reflection of task t\u241b[2J, trial 0 hit the token limit")
    assert f"ran on past its end into memory ('> go to', at character {RAN_ON.index('> go to')})" in lines[1]
    assert lines[2].startswith("programmatic: ") and all("model.reflector_stop" in line for line in lines)


def test_the_counts_are_warned_per_condition_when_the_metrics_are_written(caplog: pytest.LogCaptureFixture) -> None:
    records = [make_record(0, RAN_ON), make_record(0, " A plan.", condition="no_memory")]
    plan = RunPlan(conditions=["self_diagnosis", "no_memory"], tasks=None, trials=1)
    metrics = run_metrics(records, plan, {"a/b": "Mug"})
    with caplog.at_level(logging.WARNING):
        warn_run_on_totals(metrics)
    [line] = [r.getMessage() for r in caplog.records]
    assert line.startswith("self_diagnosis: 0 of 1 reflection(s) hit the token limit and 1 ran on past their end")
