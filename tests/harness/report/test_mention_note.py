"""Under the reports' tables, each domain's object-mention rule in a sentence: the rule its numbers were counted by."""

from __future__ import annotations

import pytest

from harness.domains import registry
from harness.domains.registry import mention_note, register_domain
from harness.report.tables import conditions_table
from tests.harness.report.commonmark import blocks_markdown


@pytest.mark.parametrize(
    ("domain", "says"),
    [
        ("alfworld", "CamelCase name as a case-sensitive substring"),
        ("humaneval", "the object is a failed test case"),
        ("hotpotqa", "the object is a supporting article"),
    ],
)
def test_each_shipped_domain_states_its_own_rule(domain: str, says: str) -> None:
    note = mention_note(domain)
    assert note is not None and note.endswith(".") and says in note
    others = {"alfworld", "humaneval", "hotpotqa"} - {domain}
    assert all(mention_note(other) != note for other in others)


def test_an_unknown_or_unnamed_domain_has_no_note_and_a_registered_one_has_its_own(
    request: pytest.FixtureRequest,
) -> None:
    request.addfinalizer(lambda: registry.DOMAINS.unregister("noted_for_test"))  # the registration ends with the test
    assert mention_note(None) is None and mention_note("no_such_domain") is None
    register_domain("noted_for_test", lambda env, only: None, note="Noted: the rule.")  # type: ignore[arg-type,return-value]
    assert mention_note("noted_for_test") == "Noted: the rule."


def test_the_table_lists_each_note_once_in_order_or_says_the_rules_are_the_domains() -> None:
    table = blocks_markdown(conditions_table([], ["First rule.", "Second rule."]))
    assert "with the same interval. First rule. Second rule. Average RRR" in table
    unnamed = blocks_markdown(conditions_table([], []))
    assert "with the same interval. (The domain's strict and normalized rules.) Average RRR" in unnamed
