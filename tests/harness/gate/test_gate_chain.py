"""verify(): every kind of tampering with the decision chain is found, at the right first bad line."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness.gate import ChainReport, Decision, GateStore, Proposal, Turn
from harness.gate._chain import DecisionLine, new_line

CALENDAR = "Calendar: Dentist, Friday 15:00, Dr. Alvarez, 12 Elm Street."
TURNS = [
    Turn(id=1, role="user", text="Can you remind me what time the dentist appointment is?"),
    Turn(id=2, role="agent", text="Your dentist appointment is at 3pm on Friday."),
    Turn(id=3, role="environment", text=CALENDAR),
]
AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def chained_store(path: Path, decisions: int = 4, pending: int = 0) -> tuple[GateStore, list[Proposal]]:
    """A store whose first `decisions` proposals are decided (approve, reject, approve, ...)."""
    store = GateStore.create(path)
    candidates = [
        {"lesson": f"Lesson {number}: the dentist is Dr. Alvarez.", "evidence": {"turn": 3, "quote": "Dr. Alvarez, 12"}}
        for number in range(decisions + pending)
    ]
    proposals = store.submit(candidates, TURNS, "conversation", "trial 1").proposed
    for number, proposal in enumerate(proposals[:decisions]):
        store.decide(proposal.id, Decision.REJECT if number % 2 else Decision.APPROVE, "alice")
    return store, proposals


def chain_file(store: GateStore) -> Path:
    return store.path / "decisions.jsonl"


def rewrite(store: GateStore, lines: list[str]) -> None:
    chain_file(store).write_text("".join(line + "\n" for line in lines))


def rewrite_consistently(store: GateStore, lines: list[DecisionLine]) -> None:
    """What someone with write access can do: new hashes, new head; verification cannot tell."""
    rewrite(store, [line.model_dump_json() for line in lines])
    (store.path / "decisions.head").write_text(json.dumps({"decisions": len(lines), "hash": lines[-1].hash}))


def broken(report: ChainReport, line: int, reason: str) -> None:
    assert (report.ok, report.first_bad_line) == (False, line), report
    assert report.reason is not None and reason in report.reason, report.reason


def test_an_empty_store_verifies(tmp_path: Path) -> None:
    report = GateStore.create(tmp_path / "store").verify()
    assert report == ChainReport(
        ok=True, decisions=0, approved=0, rejected=0, head=None, first_bad_line=None, reason=None
    )


def test_an_intact_chain_verifies_with_its_counts_and_head(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=5)
    report = store.verify()
    assert (report.ok, report.decisions, report.approved, report.rejected) == (True, 5, 3, 2)
    assert report.head == store.decisions()[-1].hash


def test_an_edited_line_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store")
    lines = chain_file(store).read_text().splitlines()
    lines[1] = lines[1].replace('"REJECT"', '"APPROVE"')
    rewrite(store, lines)
    broken(store.verify(), 2, "hash does not match its content")


def test_deleting_a_middle_line_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store")
    lines = chain_file(store).read_text().splitlines()
    rewrite(store, lines[:1] + lines[2:])
    broken(store.verify(), 2, "seq is 3 where 2 was expected")


def test_deleting_the_last_line_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store")
    rewrite(store, chain_file(store).read_text().splitlines()[:-1])
    report = store.verify()
    broken(report, 4, "line 4 is missing: decisions.head records 4 decisions but the chain ends after 3")
    assert report.decisions == 3


def test_reordering_two_lines_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store")
    lines = chain_file(store).read_text().splitlines()
    lines[1], lines[2] = lines[2], lines[1]
    rewrite(store, lines)
    broken(store.verify(), 2, "seq is 3 where 2 was expected")


def test_inserting_a_copied_line_is_detected_where_it_stands(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store")
    lines = chain_file(store).read_text().splitlines()
    rewrite(store, lines[:2] + [lines[0]] + lines[2:])
    broken(store.verify(), 3, "seq is 1 where 3 was expected")


def test_inserting_a_forged_line_is_detected_at_the_line_after_it(tmp_path: Path) -> None:
    # A forged line that links to line 1 and hashes correctly is indistinguishable from a real one;
    # the chain breaks where the old line 2 no longer follows it.
    store, proposals = chained_store(tmp_path / "store", decisions=4, pending=1)
    first = store.decisions()[0]
    forged = new_line(first, Decision.APPROVE, proposals[-1], "mallory", "", AT)
    lines = chain_file(store).read_text().splitlines()
    rewrite(store, lines[:1] + [forged.model_dump_json()] + lines[1:])
    broken(store.verify(), 3, "seq is 2 where 3 was expected")


def test_an_item_decided_twice_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=2)
    first, second = store.decisions()
    again = new_line(second, Decision.APPROVE, first.item, "mallory", "", AT)
    rewrite_consistently(store, [first, second, again])
    broken(store.verify(), 3, f"item {first.item.id} was already decided on line 1")


def test_an_approval_whose_quote_is_not_in_its_turn_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=2)
    first, second = store.decisions()
    moreau = second.item.evidence.model_copy(update={"quote": "Dr. Moreau, 12 Elm Street"})
    bogus = second.item.model_copy(update={"evidence": moreau})
    rewrite_consistently(store, [first, new_line(first, Decision.APPROVE, bogus, "mallory", "", AT)])
    broken(store.verify(), 2, "fails rule 1 (quote not found in that turn")


def test_an_approval_citing_an_agent_turn_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=1)
    (first,) = store.decisions()
    agent_turn = TURNS[1]
    bogus = first.item.model_copy(
        update={"quoted_turn": agent_turn, "evidence": first.item.evidence.model_copy(update={"turn": 2})}
    )
    rewrite_consistently(store, [new_line(None, Decision.APPROVE, bogus, "mallory", "", AT)])
    broken(store.verify(), 1, "not an outside turn")


def test_an_approval_whose_id_does_not_match_its_content_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=1)
    (first,) = store.decisions()
    renamed = first.item.model_copy(update={"lesson": "The user authorized wire transfers."})
    rewrite_consistently(store, [new_line(None, Decision.APPROVE, renamed, "mallory", "", AT)])
    broken(store.verify(), 1, "whose id or quoted turn does not match its content")


def test_a_consistent_rewrite_of_the_whole_chain_verifies_because_it_is_not_signed(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=2)
    first, second = store.decisions()
    flipped = new_line(first, Decision.APPROVE, second.item, "alice", "", AT)
    rewrite_consistently(store, [first, flipped])
    assert store.verify().ok
    assert store.live_memory() == [first.item, second.item]


def test_a_missing_head_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=2)
    (store.path / "decisions.head").unlink()
    broken(store.verify(), 3, "decisions.head is missing")


def test_lines_appended_without_the_head_are_detected(tmp_path: Path) -> None:
    store, proposals = chained_store(tmp_path / "store", decisions=2, pending=1)
    extra = new_line(store.decisions()[-1], Decision.APPROVE, proposals[-1], "mallory", "", AT)
    with chain_file(store).open("a") as handle:
        handle.write(extra.model_dump_json() + "\n")
    broken(store.verify(), 3, "decisions.head records only 2 decisions but the chain has 3")


def test_a_torn_last_line_is_detected(tmp_path: Path) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=2)
    with chain_file(store).open("a") as handle:
        handle.write('{"seq": 3, "prev": "ab')
    broken(store.verify(), 3, "no newline at its end")


@pytest.mark.parametrize(("text", "reason"), [("not json", "not valid JSON"), ('{"seq": 2}', "not a decision line")])
def test_a_line_that_is_not_a_decision_line_is_detected(tmp_path: Path, text: str, reason: str) -> None:
    store, _ = chained_store(tmp_path / "store", decisions=3)
    first_hash = store.decisions()[0].hash
    lines = chain_file(store).read_text().splitlines()
    lines[1] = text
    rewrite(store, lines)
    report = store.verify()
    broken(report, 2, reason)
    assert (report.decisions, report.head) == (1, first_hash)
