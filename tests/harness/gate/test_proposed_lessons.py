"""Reading proposed memory items out of a model's answer."""

from __future__ import annotations

from harness.gate.proposals import parse_proposals

ITEM = {"lesson": "Open the drawer first.", "evidence": {"turn": 4, "quote": "The drawer 1 is closed."}}


def test_a_json_list_is_read_as_is() -> None:
    assert parse_proposals(
        '[{"lesson": "Open the drawer first.", "evidence": {"turn": 4, "quote": "The drawer 1 is closed."}}]'
    ) == [ITEM]


def test_prose_and_code_fences_around_the_list_are_ignored() -> None:
    answer = 'Here are my notes:\n```json\n[{"lesson": "Open the drawer first.", "evidence": {"turn": 4, "quote": "The drawer 1 is closed."}}]\n```\nDone.'
    assert parse_proposals(answer) == [ITEM]


def test_a_list_cut_off_by_the_token_limit_keeps_its_complete_objects() -> None:
    answer = '[{"lesson": "Open the drawer first.", "evidence": {"turn": 4, "quote": "The drawer 1 is closed."}}, {"lesson": "Then lo'
    assert parse_proposals(answer) == [ITEM]


def test_objects_without_a_list_are_collected_in_order() -> None:
    answer = '1. {"lesson": "a"}\n2. {"lesson": "b", "evidence": {"turn": 2, "quote": "x"}}'
    assert parse_proposals(answer) == [{"lesson": "a"}, {"lesson": "b", "evidence": {"turn": 2, "quote": "x"}}]


def test_an_answer_without_json_is_passed_on_raw_for_the_gate_to_drop() -> None:
    assert parse_proposals("  I should remember that I was corrected.  ") == ["I should remember that I was corrected."]
    assert parse_proposals("   ") == []


def test_an_empty_list_proposes_nothing() -> None:
    assert parse_proposals("[]") == []
