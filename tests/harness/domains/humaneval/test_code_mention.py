"""Object mention for code: a reflection names a failed test case by its call or by all of its inputs."""

from __future__ import annotations

import pytest

from harness.domains.humaneval.mention import failed_test_mention, mentions_case, mentions_failed_test
from harness.domains.humaneval.signals import checked_call
from harness.metrics.core import MentionCounts

ADD = checked_call("assert add(1, 2) == 3", "add")
WORDS = checked_call("assert count_words('hello world') == 2", "count_words")
LISTS = checked_call("assert total([1, 2, 3], 10) == 16", "total")


@pytest.mark.parametrize(
    ("reflection", "strict", "normalized"),
    [
        ("The implementation failed add(1, 2) because it subtracts.", True, True),
        ("The call add(1,2) returned -1.", False, True),
        ("It fails when a is 1 and b is 2.", False, True),
        ("It fails when a is 1.", False, False),  # one input of two
        ("It fails for 10 and 21, and for 1.5 and 2.5.", False, False),  # only inside longer numbers
        ("The output -1 and -2 are wrong.", False, False),  # a sign makes another number
        ("The function subtracts instead of adding.", False, False),
    ],
)
def test_a_call_is_named_exactly_without_spaces_or_by_all_its_inputs(
    reflection: str, strict: bool, normalized: bool
) -> None:
    assert mentions_case(reflection, ADD, "strict") is strict
    assert mentions_case(reflection, ADD, "normalized") is normalized


def test_a_string_input_is_named_by_its_content_or_its_repr() -> None:
    assert mentions_case("It miscounts the words of hello world.", WORDS, "normalized")
    assert mentions_case("For 'hello world' it returns 1.", WORDS, "normalized")
    assert not mentions_case("It miscounts hello.", WORDS, "normalized")


def test_whitespace_inside_an_input_may_vary() -> None:
    assert mentions_case("Summing [1,2,3] with start 10 gives 15.", LISTS, "normalized")


def test_a_case_without_a_call_or_inputs_is_never_named_by_inputs() -> None:
    no_call = checked_call("assert math.fabs(poly(xs, x)) < 1e-4", "find_zero")
    assert not mentions_case("poly(xs, x) is not zero", no_call, "normalized")
    no_inputs = checked_call("assert empty() == []", "empty")
    assert mentions_case("empty ( ) returns None", no_inputs, "normalized")
    assert not mentions_case("it returns None for any input", no_inputs, "normalized")


def test_any_failed_case_of_the_run_counts() -> None:
    assert mentions_failed_test("add(1, 2) is fine but total is not", [LISTS, ADD])
    assert not mentions_failed_test("add(1, 2) is fine", [LISTS])
    assert not mentions_failed_test("anything", [])


def test_counts_map_onto_mention_counts() -> None:
    counts = failed_test_mention(
        [
            ("The call add(1, 2) returned -1.", [ADD]),
            ("It fails when a is 1 and b is 2.", [ADD]),
            ("The loop never ends.", []),
        ]
    )
    assert counts == MentionCounts(reflections=3, strict=1, normalized=2)


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mention variant"):
        mentions_case("add(1, 2)", ADD, "loose")  # type: ignore[arg-type]


def test_records_without_a_manifest_are_taken_for_the_domain_their_task_ids_name() -> None:
    from harness.domains.hotpotqa.questions import questions_by_id
    from harness.domains.registry import domain_of_tasks

    hotpot_ids = list(questions_by_id())[:2]
    assert domain_of_tasks(["HumanEval/0", "HumanEval/163"]) == "humaneval"
    assert domain_of_tasks(hotpot_ids) == "hotpotqa", "HotpotQA question ids were taken for HumanEval problems"
    assert domain_of_tasks(["HumanEval/0", hotpot_ids[0]]) is None
