"""The gate between a gated condition's reflections and its actor's memory, on a real store on disk."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.gate import GateChainError, GateStore, Turn
from harness.reflection.gated_memory import GatedMemory
from harness.reflection import GateAnswer, Reflection
from harness.records.details import GateOutcome
from harness.records import read_manifest, write_manifest
from tests.finished_runs import FIVE, documented_overrides
from tests.harness.factories import make_record
from tests.runner import run_cli

TURNS = [
    Turn(id=1, role="environment", text="Your task is to: put a clean mug in coffeemachine."),
    Turn(id=2, role="agent", text="> go to countertop 1"),
    Turn(id=3, role="environment", text="On the countertop 1, you see a bread 1, and a knife 1."),
]
GOOD = {
    "lesson": "The mug is not on countertop 1.",
    "evidence": {"turn": 3, "quote": "you see a bread 1, and a knife 1."},
}
SECOND = {"lesson": "The task wants a clean mug.", "evidence": {"turn": 1, "quote": "put a clean mug in coffeemachine"}}
OWN = {"lesson": "I went to the countertop.", "evidence": {"turn": 2, "quote": "> go to countertop 1"}}


def proposals(*items: object) -> Reflection:
    return Reflection(text=None, gate_answer=GateAnswer(raw="(answer)", turns=TURNS, candidates=list(items)))


def test_auto_policy_makes_what_passes_live_and_records_the_drop(tmp_path: Path) -> None:
    gate = GatedMemory(tmp_path / "gate", "auto", window=3)
    reflection = gate.admit("task-a", 0, proposals(GOOD, OWN))
    outcome = reflection.details
    assert isinstance(outcome, GateOutcome)
    assert [p.lesson for p in outcome.proposed] == [GOOD["lesson"]]
    assert [d.reason for d in outcome.dropped] == ["not an outside turn"]
    assert outcome.approved == [outcome.proposed[0].id]
    assert reflection.text == GOOD["lesson"]
    assert gate.window("task-a", before_trial=1) == [GOOD["lesson"]]
    assert gate.window("task-b", before_trial=1) == [], "live memory is per task"


def test_owner_policy_leaves_items_in_the_pile_until_the_owner_approves(tmp_path: Path) -> None:
    gate = GatedMemory(tmp_path / "gate", "owner", window=3)
    reflection = gate.admit("task-a", 0, proposals(GOOD))
    assert reflection.text is None and isinstance(reflection.details, GateOutcome)
    assert reflection.details.approved == []
    assert gate.window("task-a", before_trial=1) == []
    store = GateStore.open(tmp_path / "gate")
    [pending] = store.pending()
    store.decide(pending.id, "APPROVE", reviewer="owner")
    assert gate.window("task-a", before_trial=1) == [GOOD["lesson"]]


def test_the_window_groups_lessons_by_trial_and_keeps_the_last_ones(tmp_path: Path) -> None:
    gate = GatedMemory(tmp_path / "gate", "auto", window=2)
    gate.admit("task-a", 0, proposals(GOOD))
    gate.admit("task-a", 1, proposals(GOOD, SECOND))
    gate.admit("task-a", 2, proposals(SECOND))
    assert gate.window("task-a", before_trial=3) == [f"{GOOD['lesson']} {SECOND['lesson']}", SECOND["lesson"]]


def test_a_trial_reads_only_the_lessons_of_trials_before_it(tmp_path: Path) -> None:
    """A stop at once can leave trial 1's proposals admitted and trial 1 unrecorded: replaying trial 1 must read
    the memory it first read (trial 0's lesson), not its own."""
    gate = GatedMemory(tmp_path / "gate", "auto", window=3)
    gate.admit("task-a", 0, proposals(GOOD))
    gate.admit("task-a", 1, proposals(SECOND))
    assert gate.window("task-a", before_trial=0) == []
    assert gate.window("task-a", before_trial=1) == [GOOD["lesson"]]
    assert gate.window("task-a", before_trial=2) == [GOOD["lesson"], SECOND["lesson"]]


def test_admitting_a_trial_again_after_a_crash_decides_nothing_twice(tmp_path: Path) -> None:
    gate = GatedMemory(tmp_path / "gate", "auto", window=3)
    first = gate.admit("task-a", 0, proposals(GOOD, SECOND))
    again = GatedMemory(tmp_path / "gate", "auto", window=3).admit("task-a", 0, proposals(GOOD, SECOND))
    assert again == first
    store = GateStore.open(tmp_path / "gate")
    assert len(store.decisions()) == 2 and store.verify().ok
    assert len(store.proposals()) == 2


def test_a_window_of_zero_reads_nothing(tmp_path: Path) -> None:
    gate = GatedMemory(tmp_path / "gate", "auto", window=0)
    gate.admit("task-a", 0, proposals(GOOD))
    assert gate.window("task-a", before_trial=1) == []


def test_a_chain_that_lost_approvals_the_records_hold_is_refused(tmp_path: Path) -> None:
    gate = GatedMemory(tmp_path / "gate", "auto", window=3)
    reflection = gate.admit("task-a", 0, proposals(GOOD))
    record = make_record(0, reflection.text, task="task-a", details=reflection.details)
    gate.check_recorded([record])  # the chain holds what the record says was approved
    for name in ("decisions.jsonl", "decisions.head"):
        (tmp_path / "gate" / name).unlink()  # a store whose chain was removed: live memory would come back empty
    with pytest.raises(GateChainError, match=f"^the decision chain of {tmp_path / 'gate'} lacks 1 of the 1 approval"):
        GatedMemory(tmp_path / "gate", "auto", window=3).check_recorded([record])
    shutil.rmtree(tmp_path / "gate")
    with pytest.raises(GateChainError, match="lacks 1 of the 1 approval"):
        GatedMemory(tmp_path / "gate", "auto", window=3).check_recorded([record])
    assert not (tmp_path / "gate").exists(), "checking creates no store"


def test_an_edited_decision_chain_is_refused_before_any_condition_plays_a_trial(
    five_conditions_run: Path, copy_run: Callable[[Path], Path]
) -> None:
    """The five-condition demo as a run killed before self_diagnosis played its last trial, whose gated condition's
    chain was then edited: the gated condition plays last, so the edit was found only after the others had played."""
    run = copy_run(five_conditions_run)
    trials = run / "trials.jsonl"
    lines = trials.read_bytes().splitlines(keepends=True)
    unplayed = [line for line in lines if b'"condition":"self_diagnosis"' in line and b'"trial":2,' in line]
    assert unplayed
    trials.write_bytes(b"".join(line for line in lines if line not in unplayed))
    manifest = read_manifest(run)
    assert manifest is not None
    write_manifest(run, manifest.model_copy(update={"status": "running", "records": None, "resumed_from": 0}))
    chain = run / "gate" / "gated" / "decisions.jsonl"
    first, *rest = chain.read_text().splitlines(keepends=True)
    chain.write_text(first.replace('"lesson":"', '"lesson":"Always ', 1) + "".join(rest))
    kept = trials.read_bytes()
    result = run_cli(*documented_overrides(FIVE), f"hydra.run.dir={run}")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: the decision chain of {run / 'gate' / 'gated'} is broken at line 1 (its hash does not match its "
        "content (the line was edited)), so its live memory cannot be trusted; restore the store from a backup, or "
        "use a new hydra.run.dir (reflexion-gate verify names the line)."
    )
    assert trials.read_bytes() == kept
