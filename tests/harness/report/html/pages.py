"""A small run for the page's tests: one ALFWorld task whose reflections repeat, one holding markup."""

from __future__ import annotations

from pathlib import Path

from harness.domains.alfworld.target import task_mentions
from harness.metrics.run import run_metrics, write_metrics
from harness.records import RunPlan, TrialLog, TrialRecord
from harness.records.step import Step
from tests.harness.factories import make_record

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
SCRIPT = "<script>window.__pwned = 1</script> Take the Mug </main>"
FIRST = "I should have gone to the desk with the mug, then put it on the desk 1."
AGAIN = "I should have gone to the desk with the mug, then put it on the desk 2."
TRAP = "</script><script>window.__pwned = 2</script>"


def records() -> list[TrialRecord]:
    """self_diagnosis on MUG: a new reflection, its near repeat, one holding markup, then a won trial; every
    observation tries to close the page's script element."""
    steps = [Step(action="go to desk 1", observation=TRAP)]
    written = [FIRST, AGAIN, SCRIPT, None]
    return [
        make_record(t, text, text is None, task=MUG, trajectory=steps).model_copy(update={"memory": written[:t][-2:]})
        for t, text in enumerate(written)
    ]


def write_small_run(run_dir: Path) -> Path:
    """The records, and metrics.json as the run would write it."""
    log = TrialLog(run_dir)
    for record in records():
        log.append(record)
    plan = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=4)
    write_metrics(run_dir, run_metrics(records(), plan, {MUG: "Mug"}, task_mentions))
    return run_dir
