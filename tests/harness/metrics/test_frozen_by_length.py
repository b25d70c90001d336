"""Whether a chain can freeze depends on its length (RRR is 0 or 1 with 2 reflections, 0, 1/2 or 1 with 3), which the
conditions move: report.md shows each condition's chains frozen by their length beside the pooled share (issue 48)."""

from __future__ import annotations

from pathlib import Path

from harness.metrics.frozen import LengthStratum, frozen_by_length
from harness.records import TrialLog, write_manifest
from harness.report import write_report
from tests.harness.factories import make_record
from tests.harness.report.test_report import manifest_of

PLAN = "Go to cabinet 1, take the SaltShaker, put it in cabinet 2."
OTHER = "Open the fridge and look for a mug before the shelf."
TASKS = [f"pick_and_place_simple-Mug-None-Desk-30{i}/trial_T1" for i in range(4)]


def test_chains_are_grouped_by_their_reflections_and_silent_ones_left_out() -> None:
    memories = [[PLAN, PLAN], [PLAN, OTHER], [PLAN, OTHER, PLAN], [PLAN, OTHER, OTHER], ["", " "], [PLAN]]
    assert frozen_by_length(memories) == [
        LengthStratum(reflections=2, chains=2, frozen=1),
        LengthStratum(reflections=3, chains=2, frozen=2),  # 1/2 and 1/2: at the 0.5 threshold
    ]
    assert frozen_by_length(memories, frozen_threshold=0.6) == [
        LengthStratum(reflections=2, chains=2, frozen=1),
        LengthStratum(reflections=3, chains=2, frozen=0),
    ]


def test_the_report_shows_frozen_by_chain_length_beside_the_pooled_share(tmp_path: Path) -> None:
    # The control fails every one of 3 trials (3 reflections, repeating), the condition solves at trial 2 (2
    # reflections, not repeating) on two tasks and fails the others as the control does.
    run = tmp_path / "run"
    log = TrialLog(run)
    for i, task in enumerate(TASKS):
        for trial in range(3):
            log.append(make_record(trial, PLAN, task=task))
            won = i < 2 and trial == 2
            text = None if won else (OTHER if i < 2 and trial == 1 else PLAN)
            log.append(make_record(trial, text, won, task=task, condition="programmatic"))
    write_manifest(
        run,
        manifest_of("alfworld", ["self_diagnosis", "programmatic"], 3).model_copy(update={"tasks": TASKS}),
    )
    report = write_report([run], tmp_path / "out", plots=False).read_text()
    section = report.split("## Frozen by chain length\n")[1].split("\n## ")[0]
    assert "| condition | 2 reflections | 3 reflections | all chains |" in section
    assert "| self_diagnosis | - | 4/4 (100%) | 4/4 (100%) |" in section
    assert "| programmatic | 0/2 (0%) | 2/2 (100%) | 2/4 (50%) |" in section
