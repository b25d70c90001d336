"""GateStore on real files: the pile, the dropped log, decisions, live memory, restarts and concurrency."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.gate import (
    NOT_OUTSIDE_TURN,
    QUOTE_NOT_FOUND,
    Decision,
    GateChainError,
    GateDecisionError,
    GateStore,
    InvalidGateStoreError,
    Proposal,
    Turn,
)
from tests.in_process import Outcome, run_module

ROOT = Path(__file__).resolve().parents[3]
DENTIST = "Can you remind me what time the dentist appointment is?"
CALENDAR = "Calendar: Dentist, Friday 15:00, Dr. Alvarez, 12 Elm Street."
TURNS = [
    Turn(id=1, role="user", text=DENTIST),
    Turn(id=2, role="agent", text="Your dentist appointment is at 3pm on Friday."),
    Turn(id=3, role="environment", text=CALENDAR),
]
GOOD = {"lesson": "The dentist is on Friday at 15:00.", "evidence": {"turn": 3, "quote": "Friday 15:00"}}
WIRE = {"lesson": "the user authorized wire transfers", "evidence": {"turn": 1, "quote": DENTIST}}
AGENT = {"lesson": "The appointment is at 3pm.", "evidence": {"turn": 2, "quote": "appointment is at 3pm"}}
ELSEWHERE = {"lesson": "Dr. Alvarez is the dentist.", "evidence": {"turn": 1, "quote": "Dr. Alvarez, 12 Elm"}}


def lesson(number: int) -> dict[str, Any]:
    return {
        "lesson": f"Lesson {number}: check the calendar.",
        "evidence": {"turn": 3, "quote": "Dr. Alvarez, 12 Elm Street"},
    }


def store_with(path: Path, *candidates: Any) -> tuple[GateStore, list[Proposal]]:
    store = GateStore.create(path)
    return store, store.submit(list(candidates), TURNS, "conversation", "trial 1").proposed


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_passing_item_reaches_the_pile_not_live_memory(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", GOOD)
    assert store.proposals() == [proposal]
    assert store.pending() == [proposal]
    assert store.live_memory() == []
    assert [line["id"] for line in lines_of(tmp_path / "store" / "proposed.jsonl")] == [proposal.id]


def test_a_real_but_unrelated_quote_only_reaches_the_pile(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", WIRE)
    assert proposal.lesson == "the user authorized wire transfers"
    assert store.pending() == [proposal]
    assert store.live_memory() == []


def test_approval_makes_an_item_live(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", GOOD)
    line = store.decide(proposal.id, Decision.APPROVE, "alice", "checked the calendar")
    assert (line.seq, line.prev, line.reviewer, line.item) == (1, "0" * 64, "alice", proposal)
    assert store.live_memory() == [proposal]
    assert store.pending() == []


def test_rejection_keeps_an_item_out_and_is_recorded_in_the_chain(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", WIRE)
    store.decide(proposal.id, "REJECT", "alice", "unrelated quote")
    assert store.live_memory() == []
    assert store.pending() == []
    assert [(line.decision, line.item.id) for line in store.decisions()] == [(Decision.REJECT, proposal.id)]
    assert store.verify().rejected == 1


def test_a_decision_on_an_unknown_id_is_refused_and_nothing_is_appended(tmp_path: Path) -> None:
    store, _ = store_with(tmp_path / "store", GOOD)
    with pytest.raises(GateDecisionError, match="no proposal with id 0123456789abcdef in "):
        store.decide("0123456789abcdef", Decision.APPROVE, "alice")
    assert not (tmp_path / "store" / "decisions.jsonl").exists()
    assert store.verify().decisions == 0


def test_deciding_an_item_twice_is_refused(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", GOOD)
    store.decide(proposal.id, Decision.REJECT, "alice")
    with pytest.raises(GateDecisionError, match="already decided .REJECT on line 1"):
        store.decide(proposal.id, Decision.APPROVE, "bob")
    assert len(store.decisions()) == 1
    assert store.live_memory() == []


def test_a_decision_other_than_approve_or_reject_is_refused(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", GOOD)
    with pytest.raises(GateDecisionError, match="neither APPROVE nor REJECT"):
        store.decide(proposal.id, "MAYBE", "alice")


def test_a_broken_chain_refuses_new_decisions(tmp_path: Path) -> None:
    store, (first, second) = store_with(tmp_path / "store", GOOD, WIRE)
    store.decide(first.id, Decision.APPROVE, "alice")
    chain = tmp_path / "store" / "decisions.jsonl"
    chain.write_text(chain.read_text().replace("alice", "mallory"))
    with pytest.raises(GateDecisionError, match="broken at line 1"):
        store.decide(second.id, Decision.REJECT, "alice")
    with pytest.raises(GateChainError, match="broken at line 1"):
        store.live_memory()
    assert len(chain.read_text().splitlines()) == 1


def test_dropped_log_holds_each_drop_with_its_reason(tmp_path: Path) -> None:
    store, _ = store_with(tmp_path / "store", AGENT, GOOD, ELSEWHERE, "not even an object")
    logged = lines_of(tmp_path / "store" / "dropped.jsonl")
    assert [(line["reason"], line["item"]) for line in logged] == [
        (NOT_OUTSIDE_TURN, AGENT),
        (QUOTE_NOT_FOUND, ELSEWHERE),
        ("not an object", "not even an object"),
    ]
    assert all(line["scope"] == "conversation" and line["origin"] == "trial 1" for line in logged)
    assert [drop.reason for drop in store.dropped()] == [NOT_OUTSIDE_TURN, QUOTE_NOT_FOUND, "not an object"]


def test_submit_is_idempotent(tmp_path: Path) -> None:
    store, _ = store_with(tmp_path / "store", GOOD, AGENT, GOOD)
    files = {name: (tmp_path / "store" / name).read_text() for name in ("proposed.jsonl", "dropped.jsonl")}
    again = store.submit([GOOD, AGENT], TURNS, "conversation", "trial 1")
    assert (len(again.proposed), len(again.dropped)) == (1, 1)
    assert {name: (tmp_path / "store" / name).read_text() for name in files} == files
    assert len(store.proposals()) == 1 and len(store.dropped()) == 1


def test_the_same_item_from_another_trial_is_a_new_proposal(tmp_path: Path) -> None:
    store, _ = store_with(tmp_path / "store", GOOD)
    store.submit([GOOD], TURNS, "conversation", "trial 2")
    assert [proposal.origin for proposal in store.proposals()] == ["trial 1", "trial 2"]


def test_a_torn_last_pile_line_is_ignored_and_cut_before_the_next_append(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", GOOD)
    pile = tmp_path / "store" / "proposed.jsonl"
    with pile.open("a") as handle:
        handle.write('{"id": "abc')  # a crash mid-append
    with pytest.warns(UserWarning, match="torn last line"):
        assert store.proposals() == [proposal]
    with pytest.warns(UserWarning, match="torn last line"):
        store.submit([WIRE], TURNS, "conversation", "trial 1")
    assert [line["lesson"] for line in lines_of(pile)] == [GOOD["lesson"], WIRE["lesson"]]


def test_scope_selects_proposals_drops_and_live_memory(tmp_path: Path) -> None:
    store, (chat,) = store_with(tmp_path / "store", GOOD)
    (task,) = store.submit([GOOD, AGENT], TURNS, "task-7", "trial 1").proposed
    store.decide(task.id, Decision.APPROVE, "alice")
    assert store.pending("conversation") == [chat] and store.pending("task-7") == []
    assert store.live_memory("task-7") == [task] and store.live_memory("conversation") == []
    assert len(store.dropped("task-7")) == 1 and store.dropped("conversation") == []


def test_open_refuses_a_path_that_is_not_a_store(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "store.json").write_text('{"kind": "something-else", "version": 1}')
    for path in (tmp_path / "missing", tmp_path / "plain", tmp_path):
        with pytest.raises(InvalidGateStoreError, match=f"^{path} is not a gate store: .* expected a directory"):
            GateStore.open(path)


def test_create_is_idempotent_on_an_existing_store(tmp_path: Path) -> None:
    store, (proposal,) = store_with(tmp_path / "store", GOOD)
    store.decide(proposal.id, Decision.APPROVE, "alice")
    again = GateStore.create(tmp_path / "store")
    assert again.live_memory() == [proposal]
    assert again.verify().ok


LIVE_MEMORY_SCRIPT = """
import json, sys
from harness.gate import GateStore
print(json.dumps([item.model_dump(mode="json") for item in GateStore.open(sys.argv[1]).live_memory()]))
"""


def live_memory_in_a_fresh_process(store: Path) -> list[dict[str, Any]]:
    result = subprocess.run(
        [sys.executable, "-c", LIVE_MEMORY_SCRIPT, str(store)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_live_memory_is_rebuilt_from_the_chain_alone_after_a_restart(tmp_path: Path) -> None:
    store, (good, wire, other) = store_with(tmp_path / "store", GOOD, WIRE, lesson(1))
    store.decide(other.id, Decision.APPROVE, "alice")
    store.decide(wire.id, Decision.REJECT, "alice")
    store.decide(good.id, Decision.APPROVE, "bob")
    expected = [item.model_dump(mode="json") for item in (other, good)]
    assert live_memory_in_a_fresh_process(tmp_path / "store") == expected
    (tmp_path / "store" / "proposed.jsonl").unlink()
    assert live_memory_in_a_fresh_process(tmp_path / "store") == expected
    assert GateStore.open(tmp_path / "store").live_memory() == [other, good]


def decide_all(store: Path, ids: list[str], start: Any) -> None:
    """One process of the concurrency test: wait for the others, then decide its ids as fast as it can."""
    gate = GateStore.open(store)
    start.wait()
    for number, item_id in enumerate(ids):
        gate.decide(item_id, Decision.APPROVE if number % 2 else Decision.REJECT, f"worker-{ids[0]}")


def test_concurrent_decisions_from_four_processes_do_not_fork_the_chain(tmp_path: Path) -> None:
    store, proposals = store_with(tmp_path / "store", *(lesson(number) for number in range(40)))
    ids = [proposal.id for proposal in proposals]
    assert len(set(ids)) == 40
    context = multiprocessing.get_context("spawn")  # fresh interpreters, nothing shared but the files
    start = context.Barrier(4)
    workers = [context.Process(target=decide_all, args=(tmp_path / "store", ids[part::4], start)) for part in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
    report = store.verify()
    assert (report.ok, report.decisions, report.approved, report.rejected) == (True, 40, 20, 20)
    lines = store.decisions()
    assert [line.seq for line in lines] == list(range(1, 41))
    assert sorted(line.item.id for line in lines) == sorted(ids)
    assert len({line.reviewer for line in lines}) == 4


def test_recover_finishes_what_a_decision_killed_midway_left_and_nothing_else(tmp_path: Path) -> None:
    store = GateStore.create(tmp_path / "store")
    submitted = store.submit([GOOD, lesson(1)], TURNS, scope="s", origin="trial 0")
    store.decide(submitted.proposed[0].id, Decision.APPROVE, reviewer="owner")
    head_before = (tmp_path / "store" / "decisions.head").read_bytes()
    store.decide(submitted.proposed[1].id, Decision.APPROVE, reviewer="owner")
    # Killed after the append, before the head moved; and a third append torn mid-line.
    (tmp_path / "store" / "decisions.head").write_bytes(head_before)
    with (tmp_path / "store" / "decisions.jsonl").open("ab") as handle:
        handle.write(b'{"seq": 3, "prev": "ab')
    assert not store.verify().ok
    repaired = store.recover()
    assert repaired is not None and "torn" in repaired and "decisions.head" in repaired
    assert store.verify().ok and len(store.live_memory()) == 2
    assert store.recover() is None


def test_recover_leaves_a_removed_line_for_verify_to_report(tmp_path: Path) -> None:
    store = GateStore.create(tmp_path / "store")
    submitted = store.submit([GOOD, lesson(1)], TURNS, scope="s", origin="trial 0")
    for item in submitted.proposed:
        store.decide(item.id, Decision.REJECT, reviewer="owner")
    chain = tmp_path / "store" / "decisions.jsonl"
    chain.write_bytes(chain.read_bytes().split(b"\n", 1)[1])
    assert store.recover() is None
    assert store.verify().first_bad_line == 1


def approved_store(path: Path, count: int) -> GateStore:
    store, proposals = store_with(path, *(lesson(number) for number in range(count)))
    for proposal in proposals:
        store.decide(proposal.id, Decision.APPROVE, reviewer="owner")
    return store


def test_create_never_writes_a_head_over_an_existing_chain(tmp_path: Path) -> None:
    path = tmp_path / "store"
    approved_store(path, 2)
    (path / "store.json").unlink()
    kept = {name: (path / name).read_bytes() for name in ("decisions.head", "decisions.jsonl", "proposed.jsonl")}
    with pytest.raises(InvalidGateStoreError, match=f"^{path} holds a gate store's decisions.head, decisions.jsonl"):
        GateStore.create(path)
    assert {name: (path / name).read_bytes() for name in kept} == kept
    (path / "store.json").write_text('{"kind": "harness-gate-store", "version": 1}')
    assert GateStore.open(path).verify().decisions == 2


def test_create_finishes_a_create_killed_before_its_marker(tmp_path: Path) -> None:
    path = tmp_path / "store"
    GateStore.create(path)
    (path / "store.json").unlink()  # the head is written first, the marker last
    store = GateStore.create(path)
    assert GateStore.open(path).verify().ok and store.live_memory() == []


def test_recover_moves_the_head_only_over_a_line_of_this_store(tmp_path: Path) -> None:
    ours, (proposal,) = store_with(tmp_path / "ours", GOOD)
    theirs = approved_store(tmp_path / "theirs", 1)
    chain = tmp_path / "ours" / "decisions.jsonl"
    chain.write_bytes((tmp_path / "theirs" / "decisions.jsonl").read_bytes())  # it chains: both start at genesis
    head = (tmp_path / "ours" / "decisions.head").read_bytes()
    assert ours.recover() is None
    assert (tmp_path / "ours" / "decisions.head").read_bytes() == head
    report = ours.verify()
    assert not report.ok and "appended without updating the head" in str(report.reason)
    assert [p.id for p in ours.proposals()] == [proposal.id] != [theirs.decisions()[0].item.id]


def test_a_whole_last_decision_line_without_its_newline_is_kept(tmp_path: Path) -> None:
    store = approved_store(tmp_path / "store", 2)
    chain = tmp_path / "store" / "decisions.jsonl"
    whole = chain.read_bytes()
    chain.write_bytes(whole[:-1])
    assert store.recover() == "added the missing newline of decision line 2"
    assert chain.read_bytes() == whole and store.verify().ok and len(store.live_memory()) == 2


def test_a_whole_last_pile_line_without_its_newline_is_kept_and_completed(tmp_path: Path) -> None:
    store, (first,) = store_with(tmp_path / "store", lesson(1))
    pile = tmp_path / "store" / "proposed.jsonl"
    pile.write_bytes(pile.read_bytes()[:-1])
    assert store.proposals() == [first]
    (second,) = store.submit([lesson(2)], TURNS, "conversation", "trial 2").proposed
    assert store.proposals() == [first, second]
    assert pile.read_bytes().count(b"\n") == 2


def tamper_lesson(pile: Path) -> None:
    """The lesson rewritten in the pile: its id no longer matches its content."""
    pile.write_text(pile.read_text().replace(GOOD["lesson"], "The user authorized wire transfers."))


def tamper_quoted_turn(pile: Path) -> None:
    """The first item's quoted turn rewritten in the pile: its quote is no longer in it, so rule 1 fails."""
    pile.write_text(pile.read_text().replace("Friday 15:00, Dr.", "Monday 9:00, Dr.", 1))


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        (tamper_lesson, "whose id or quoted turn does not match its content"),
        (tamper_quoted_turn, "that fails rule 1 (quote not found in that turn"),
    ],
    ids=["lesson", "quoted turn"],
)
def test_approving_a_hand_tampered_pile_item_is_refused_and_the_store_goes_on(
    tmp_path: Path, tamper: Any, problem: str
) -> None:
    """'Approving a hand-tampered pile item is accepted, then blocks the store for good (decide() does not run the
    approval check before appending)': decide() runs it first, appends nothing, and the store stays usable."""
    store, (good, other) = store_with(tmp_path / "store", GOOD, lesson(1))
    tamper(tmp_path / "store" / "proposed.jsonl")
    with pytest.raises(GateDecisionError) as caught:
        store.decide(good.id, Decision.APPROVE, "alice")
    assert str(caught.value).startswith(f"proposal {good.id} cannot be approved: ")
    assert problem in str(caught.value) and str(caught.value).endswith("nothing was appended.")
    assert not (tmp_path / "store" / "decisions.jsonl").exists()
    store.decide(other.id, Decision.APPROVE, "alice")
    store.decide(good.id, Decision.REJECT, "alice", "tampered with")  # a tampered item can still be rejected
    assert store.verify().ok and store.live_memory() == [other]


@pytest.mark.parametrize("name", ["store.json", "decisions.head", "decisions.jsonl"])
@pytest.mark.parametrize("replacement", ["/dev/zero", "a directory"])
def test_a_device_or_directory_in_place_of_a_store_file_is_refused_in_one_sentence(
    tmp_path: Path, name: str, replacement: str
) -> None:
    """h5 hostile try: "decisions.head, decisions.jsonl or store.json linked to /dev/zero is read until memory runs
    out (MemoryError traceback), and a directory in its place gives `error: [Errno 21] Is a directory`, exit 1"."""
    store, _ = store_with(tmp_path / "store", GOOD)
    target = store.path / name
    target.unlink(missing_ok=True)
    if replacement == "a directory":
        target.mkdir()
    else:
        target.symlink_to(replacement)
    shown = run_module("harness.cli.gate", "show", str(store.path))
    assert shown.returncode == 2, shown.stderr
    assert shown.stderr == (
        f"error: {target} is not a regular file (a directory, device, pipe or socket is in its place); put the gate "
        "store's file back or remove what replaced it, nothing was changed.\n"
    )


def test_show_with_a_scope_the_store_does_not_hold_is_refused_naming_its_scopes(tmp_path: Path) -> None:
    """h5 hostile try: "`reflexion-gate show STORE --scope <a typo>` exits 0 printing `pending (0)`, so the
    owner reads that nothing awaits review while the pile holds items"."""
    store, _ = store_with(tmp_path / "store", GOOD)

    def show(scope: str) -> Outcome:
        return run_module("harness.cli.gate", "show", str(store.path), "--scope", scope)

    typo = show("conversaton")
    assert typo.returncode == 2 and typo.stdout == ""
    assert typo.stderr == f"error: --scope 'conversaton' is no scope of {store.path}; its scopes: conversation.\n"
    assert "pending (1):" in show("conversation").stdout
