"""A run's plan counts repeats: a record of a repeat the plan does not hold is kept outside it, named with its repeat."""

from __future__ import annotations

from datetime import datetime, timezone

from harness.records import Manifest, RunPlan, describe_outside, manifest_plan, split_by_plan
from tests.harness.factories import make_record


def manifest(experiment: dict) -> Manifest:
    config = {"experiment": experiment, "conditions": [{"name": "self_diagnosis"}]}
    return Manifest(
        config=config, package_versions={}, git_commit=None, data_hashes={}, started_at=datetime.now(timezone.utc)
    )


def test_a_repeat_beyond_the_plan_is_outside_it_and_named() -> None:
    records = [make_record(0, "r").model_copy(update={"repeat": repeat}) for repeat in range(3)]
    held, outside = split_by_plan(records, RunPlan(conditions=["self_diagnosis"], tasks=["a/b"], trials=1, repeats=2))
    assert [r.repeat for r in held] == [0, 1]
    assert [(o.repeat, o.reason) for o in outside] == [(2, "repeat beyond the run's 2")]
    assert "a/b / self_diagnosis / trial 0 / repeat 2 (repeat beyond the run's 2)" in describe_outside(outside)


def test_the_plan_reads_repeats_from_the_manifest_and_one_from_a_manifest_without_them() -> None:
    records = [make_record(0, "r").model_copy(update={"repeat": 1})]
    assert manifest_plan(manifest({"trials": 2, "repeats": 3}), records).repeats == 3
    assert manifest_plan(manifest({"trials": 2}), records).repeats == 1
    assert manifest_plan(None, records).repeats == 2  # no manifest: as many as the records show
