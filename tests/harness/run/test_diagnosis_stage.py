"""The diagnosis stage on a run of a domain from tests/ (tests/diagnosis_walks.py): each failed trial with a reflection
gets one record, a stage killed part-way resumes without losing or duplicating one, the next trial's outcome is kept
for the efficacy link, and `metrics.diagnosis=true` on a domain without rules is refused before the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.metrics.diagnosis.rows import (
    FIRST_LOOP_START,
    FIRST_NOTHING_HAPPENS,
    LAST_STEP,
    PARSER_SIGNALS,
)
from harness.records.diagnosis import GroundTruth
from harness.records.diagnosis_log import DIAGNOSIS_FILE, read_diagnosis
from harness.run.diagnosis_stage import (
    alfworld_rows,
    check_diagnosis,
    diagnose_run,
    diagnosis_rules,
)
from tests.diagnosis_walks import (
    CLOSER,
    WRONG,
    WalksDomain,
    register_walks,
    walk_record,
    write_walk_run,
)

NH = "Nothing happens."
WALK = [("north", CLOSER), ("east", WRONG), ("east", NH), ("south", WRONG)]


@pytest.fixture(scope="module")
def records() -> list:
    register_walks()
    return [
        walk_record("w/1", WALK, "I went the wrong way at step 2."),
        walk_record("w/1", WALK[:2] + [("north", CLOSER)], None, trial=1, success=True),
        walk_record("w/1", WALK, "Nothing happened at step 3 after `fly`.", condition="programmatic"),
        walk_record("w/1", WALK, None, condition="programmatic", trial=1),
        walk_record("w/2", WALK, None, condition="no_memory"),
        walk_record("w/3diverged", WALK, "step 1"),
    ]


def test_each_failed_reflected_trial_once_with_its_next_trial(records: list, tmp_path: Path) -> None:
    run_dir = write_walk_run(tmp_path / "run", records)
    rules = diagnosis_rules("walks", WalksDomain.reflection, WalksDomain.max_steps)
    assert diagnose_run(run_dir, records, rules) == 3
    found = {(d.task_id, d.condition): d for d in read_diagnosis(run_dir) or []}
    assert set(found) == {("w/1", "self_diagnosis"), ("w/1", "programmatic"), ("w/3diverged", "self_diagnosis")}
    first = found[("w/1", "self_diagnosis")]
    assert (first.truth.decisive_step, first.claims.claimed_steps, first.next_success) == (2, [2], True)  # type: ignore[union-attr]
    assert found[("w/1", "programmatic")].next_success is False
    assert found[("w/1", "programmatic")].claims.confabulated  # type: ignore[union-attr]
    assert first.rows[LAST_STEP].claimed_steps == [4] and first.rows[PARSER_SIGNALS].cause is None
    assert found[("w/3diverged", "self_diagnosis")].rows == {}
    assert first.trajectory_sha256 == found[("w/1", "programmatic")].trajectory_sha256


def test_a_stage_stopped_part_way_resumes_without_losing_or_duplicating(records: list, tmp_path: Path) -> None:
    run_dir = write_walk_run(tmp_path / "run", records)
    rules = diagnosis_rules("walks", WalksDomain.reflection, WalksDomain.max_steps)
    diagnose_run(run_dir, records, rules)
    path = run_dir / DIAGNOSIS_FILE
    whole = path.read_bytes()
    lines = whole.splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1][: len(lines[1]) // 2])  # killed while writing the second line
    with pytest.warns(UserWarning, match="torn"):
        assert diagnose_run(run_dir, records, rules) == 2
    assert path.read_bytes() == whole
    assert diagnose_run(run_dir, records, rules) == 0


def test_metrics_diagnosis_on_a_domain_without_rules_is_refused(records: list) -> None:
    class Unruled(WalksDomain):
        name = "sums_without_rules"

    from harness.domains.registry import register_domain

    register_domain("sums_without_rules", lambda env, only=None: Unruled())
    with pytest.raises(ConfigError, match="sums_without_rules.*has no diagnosis rules"):
        check_diagnosis(True, Unruled())
    check_diagnosis(False, Unruled())
    check_diagnosis(True, WalksDomain())


def test_alfworld_rows_are_its_domains_step_choices() -> None:
    steps = [("go to desk 1", "On the desk 1, you see a mug 1."), ("take pen from desk 1", "Nothing happens."),
             ("go to shelf 1", "On the shelf 1, you see nothing."), ("go to desk 1", "On the desk 1, you see a mug 1."),
             ("go to shelf 1", "On the shelf 1, you see nothing."), ("go to desk 1", "On the desk 1, you see a mug 1.")]
    record = walk_record("pick_and_place_simple-Mug-None-Desk-308/t", steps, "r")
    truth = GroundTruth(domain="alfworld", task_id=record.task_id, rule="r", scored=True, steps=6)
    rows = alfworld_rows(record, truth, 6)
    assert {name: (c.claimed_steps, c.cause) for name, c in rows.items()} == {
        LAST_STEP: ([6], None), FIRST_NOTHING_HAPPENS: ([2], "invalid_action"), FIRST_LOOP_START: ([3], "loop"),
        PARSER_SIGNALS: ([2], "invalid_action"),
    }
