"""Where a reflection names a failed test case: the spans agree with the rule that counts the mention."""

from __future__ import annotations

import pytest

from harness.domains.humaneval.mention import case_spans, mentions_case, reflection_spans
from harness.domains.humaneval.signals import checked_call
from harness.domains import registry
from harness.domains.registry import mention_spans, register_domain
from tests.harness.factories import make_record

ADD = checked_call("assert add(1, 2) == 3", "add")
WORDS = checked_call("assert count_words('hello world') == 2", "count_words")


@pytest.mark.parametrize(
    ("reflection", "case", "strict", "normalized"),
    [
        # The inputs inside the call are found as well: they are all there.
        ("The implementation failed add(1, 2) because it subtracts.", ADD, ["add(1, 2)"], ["add(1, 2)", "1", "2"]),
        ("The call add(1,2) returned -1.", ADD, [], ["add(1,2)", "1", "2"]),
        ("It fails when a is 1 and b is 2.", ADD, [], ["1", "2"]),
        ("It fails when a is 1.", ADD, [], []),
        ("It miscounts the words of hello world.", WORDS, [], ["hello world"]),
        ("For 'hello world' it returns 1.", WORDS, [], ["'hello world'", "hello world"]),
    ],
)
def test_spans_follow_the_rule(reflection: str, case: object, strict: list[str], normalized: list[str]) -> None:
    spans = case_spans(reflection, case)  # type: ignore[arg-type]
    assert [reflection[s.start : s.end] for s in spans if s.variant == "strict"] == strict
    assert sorted(reflection[s.start : s.end] for s in spans if s.variant == "normalized") == sorted(normalized)
    for variant, found in (("strict", strict), ("normalized", normalized)):
        assert bool(found) is mentions_case(reflection, case, variant)  # type: ignore[arg-type]


def test_a_record_without_an_attempt_names_nothing() -> None:
    assert reflection_spans(make_record(0, "add(1, 2) fails", task="HumanEval/0")) == []


def test_the_registry_gives_each_shipped_domain_its_span_rule_and_others_none(request: pytest.FixtureRequest) -> None:
    assert mention_spans("humaneval") is reflection_spans
    alfworld = mention_spans("alfworld")
    assert alfworld is not None
    record = make_record(0, "Take the Mug and the mug 2.", task="pick_and_place_simple-Mug-None-Desk-308/trial_T1")
    assert [(s.start, s.variant) for s in alfworld(record)] == [(9, "strict"), (9, "normalized"), (21, "normalized")]
    assert mention_spans("no such domain") is None
    request.addfinalizer(lambda: registry.DOMAINS.unregister("spanless_test_domain"))
    register_domain("spanless_test_domain", lambda env, only: None)  # type: ignore[arg-type,return-value]
    assert mention_spans("spanless_test_domain") is None
