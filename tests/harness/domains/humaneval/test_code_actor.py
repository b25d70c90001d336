"""Reflexion's programming actor: the message layouts of 218cf0e and test parsing. The model is a stand-in that
answers from a script (no LLM is run)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from envs.humaneval import load_problems
from harness.domains.humaneval.actor import (
    IMPLEMENTATION_MAX_TOKENS,
    TEST_GENERATION_MAX_TOKENS,
    first_implementation,
    improved_implementation,
    internal_tests,
    parse_internal_tests,
    reflection_messages,
)
from harness.llm import CachedLLM, CacheStore, CallContext, ChatMessage, LLMRequest, LLMResponse, Usage
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import PROMPTS_DIR

PROBLEMS = {problem.task_id: problem for problem in load_problems()}
HAS_CLOSE = PROBLEMS["HumanEval/0"]

SIMPLE_SYSTEM = (
    "You are an AI that only responds with python code, NOT ENGLISH. You will be given a function signature and "
    "its docstring by the user. Write your full implementation (restate the function signature).\n"
    "Use a Python code block to write your response. For example:\n```python\nprint('Hello world!')\n```"
)
REFLEXION_SYSTEM = (
    "You are an AI Python assistant. You will be given your past function implementation, a series of unit tests, "
    "and a hint to change the implementation appropriately. Write your full implementation (restate the function "
    "signature).\nUse a Python code block to write your response. For example:\n```python\nprint('Hello world!')\n```"
)
TEST_SYSTEM = (
    "You are an AI coding assistant that can write unique, diverse, and intuitive unit tests for functions given "
    "the signature and docstring."
)
SELF_REFLECTION_SYSTEM = (
    "You are a Python programming assistant. You will be given a function implementation and a series of unit "
    "tests. Your goal is to write a few sentences to explain why your implementation is wrong as indicated by the "
    "tests. You will need this as a hint when you try again later. Only provide the few sentence description in "
    "your answer, not the implementation."
)
# SHA-256 of the files decoded from py_generate.py (see prompts/humaneval/README.md).
VERBATIM_SHA256 = {
    "reflexion_few_shot.txt": "c5a6de2bf96f6446e87cd975b44c5b6459cbac3de3d13d2aeee1d22f1f334f9a",
    "self_reflection_few_shot.txt": "f93e6e4e482d97a7edc410311b55f0f2b9b143b09c8a2ac25f30ab05dcab1024",
}
TEST_FEW_SHOT = (
    'Examples:\nfunc signature:\ndef add3Numbers(x, y, z):\n    """ Add three numbers together.\n    This function '
    'takes three numbers as input and returns the sum of the three numbers.\n    """\nunit tests:\n'
    "assert add3Numbers(1, 2, 3) == 6\nassert add3Numbers(-1, 2, 3) == 4\nassert add3Numbers(1, -2, 3) == 2\n"
    "assert add3Numbers(1, 2, -3) == 0\nassert add3Numbers(-3, -2, -1) == -6\nassert add3Numbers(0, 0, 0) == 0\n"
)


class ScriptedStandIn:
    """A stand-in for a model (it is no LLM): answers each call with the next scripted text, keeps the requests."""

    identity = "scripted-stand-in"

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.requests: list[LLMRequest] = []

    def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return LLMResponse(text=self.answers.pop(0), usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


def metered(backend: ScriptedStandIn, tmp_path: Path) -> MeteredLLM:
    """The stand-in behind the real cache (mode off) and meter, as the loop's actor sees its model."""
    llm = CachedLLM(backend, CacheStore(tmp_path / "cache.jsonl"), "off")
    return MeteredLLM(llm, CallContext(task_id="HumanEval/0", trial=0, condition="c", role="actor"))


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


# ---------------------------------------------------------------- prompts: the exact message lists


@pytest.mark.parametrize("name", sorted(VERBATIM_SHA256))
def test_few_shot_files_are_the_published_bytes(name: str) -> None:
    assert hashlib.sha256((PROMPTS_DIR / "humaneval" / name).read_bytes()).hexdigest() == VERBATIM_SHA256[name]


def test_internal_tests_request_is_the_instruction_then_one_message_with_the_example_and_the_prompt(
    tmp_path: Path,
) -> None:
    backend = ScriptedStandIn("assert has_close_elements([1.0], 0.5) == False")
    internal_tests(HAS_CLOSE, metered(backend, tmp_path), seed=7)
    (request,) = backend.requests
    assert (request.kind, request.temperature, request.max_tokens, request.seed) == (
        "chat",
        0.2,
        TEST_GENERATION_MAX_TOKENS,
        7,
    )
    assert request.messages == [
        ChatMessage(role="system", content=TEST_SYSTEM),
        ChatMessage(
            role="user", content=TEST_FEW_SHOT + "\n\n[func signature]:\n" + HAS_CLOSE.prompt + "\n\n[unit tests]:"
        ),
    ]


def test_first_implementation_request_is_the_simple_strategy(tmp_path: Path) -> None:
    backend = ScriptedStandIn(fence(HAS_CLOSE.prompt + HAS_CLOSE.canonical_solution))
    first_implementation(HAS_CLOSE, metered(backend, tmp_path), seed=3)
    (request,) = backend.requests
    assert (request.kind, request.temperature, request.max_tokens, request.seed) == (
        "chat",
        0.0,
        IMPLEMENTATION_MAX_TOKENS,
        3,
    )
    assert request.messages == [
        ChatMessage(role="system", content=SIMPLE_SYSTEM),
        ChatMessage(role="user", content=HAS_CLOSE.prompt),
    ]


def test_improved_implementation_request_is_the_reflexion_strategy(tmp_path: Path) -> None:
    backend = ScriptedStandIn(fence("def has_close_elements(numbers, threshold):\n    return True"))
    previous = "def has_close_elements(numbers, threshold):\n    return False"
    feedback = "Tested passed:\n\nTests failed:\nassert has_close_elements([1.0, 1.1], 0.5) == True # output: False"
    improved_implementation(HAS_CLOSE, previous, feedback, ["It always returns False."], metered(backend, tmp_path), 5)
    (request,) = backend.requests
    assert (request.kind, request.temperature, request.max_tokens, request.seed) == (
        "chat",
        0.0,
        IMPLEMENTATION_MAX_TOKENS,
        5,
    )
    few_shot = (PROMPTS_DIR / "humaneval" / "reflexion_few_shot.txt").read_text()
    assert few_shot.startswith("Example 1:\n[previous impl]:\n```python\ndef add(a: int, b: int) -> int:\n")
    assert few_shot.endswith(
        "[improved impl]:\n```python\ndef add(a: int, b: int) -> int:\n" + '    """\n    Given '
        'integers a and b, return the total value of a and b.\n    """\n    return a + b\n```\n'
    )
    assert request.messages == [
        ChatMessage(role="system", content=REFLEXION_SYSTEM),
        ChatMessage(role="user", content=few_shot),
        ChatMessage(role="assistant", content="```python\n" + previous + "\n```"),
        ChatMessage(
            role="user",
            content="[unit test results from previous impl]:\n" + feedback + "\n\n[reflection on previous impl]:",
        ),
        ChatMessage(role="assistant", content="It always returns False."),
        ChatMessage(role="user", content="[improved impl]:\n" + HAS_CLOSE.prompt),
    ]


def test_a_memory_window_shares_the_reflection_turn_oldest_first(tmp_path: Path) -> None:
    backend = ScriptedStandIn("    return True")
    improved_implementation(HAS_CLOSE, "code", "feedback", ["first", "second"], metered(backend, tmp_path), 0)
    assert backend.requests[0].messages[4] == ChatMessage(role="assistant", content="first\n\nsecond")


def test_an_improved_implementation_without_a_reflection_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one reflection"):
        improved_implementation(HAS_CLOSE, "code", "feedback", [], metered(ScriptedStandIn(), tmp_path), 0)


def test_reflection_messages_are_the_published_self_reflection_query() -> None:
    few_shot = (PROMPTS_DIR / "humaneval" / "self_reflection_few_shot.txt").read_text()
    assert few_shot.startswith("Example 1:\n[function impl]:\n```python\ndef longest_subarray_with_sum_limit(")
    assert few_shot.endswith("thus avoiding the IndexError.\nEND OF EXAMPLES\n")
    assert reflection_messages(
        "def f():\n    return 1", "Tested passed:\n\nTests failed:\nassert f() == 2 # output: 1"
    ) == [
        ChatMessage(role="system", content=SELF_REFLECTION_SYSTEM),
        ChatMessage(
            role="user",
            content=few_shot + "\n\n[function impl]:\n```python\ndef f():\n    return 1\n```\n\n[unit test results]:\n"
            "Tested passed:\n\nTests failed:\nassert f() == 2 # output: 1\n\n[self-reflection]:",
        ),
    ]


# ---------------------------------------------------------------- internal tests: kept and dropped with reasons


TEST_ANSWER = """Here are the tests:
```python
assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False
assert has_close_elements([1.0, 2.8, 3.0, 4.0 == True
print("assert it")
assert sorted([3, 1]) == [1, 3]
assert has_close_elements([1.0,2.0,3.0], 0.5)==False
assert has_close_elements([1.0, 1.05], 0.1) == True
```"""


def test_internal_tests_keep_the_lines_with_assert_that_parse_and_sample_one(tmp_path: Path) -> None:
    tests = internal_tests(HAS_CLOSE, metered(ScriptedStandIn(TEST_ANSWER), tmp_path), seed=0)
    valid = [line for line in TEST_ANSWER.splitlines() if "assert" in line and "4.0 == True" not in line]
    assert len(tests.kept) == 1 and tests.kept[0] in valid
    assert [(d.text, d.reason) for d in tests.dropped if d.reason != "over_limit"] == [
        ("assert has_close_elements([1.0, 2.8, 3.0, 4.0 == True", "syntax_error"),
    ]
    assert sorted([d.text for d in tests.dropped if d.reason == "over_limit"] + tests.kept) == sorted(valid)
    assert "never closed" in tests.dropped[0].detail
    assert tests.raw == TEST_ANSWER


def test_the_strict_filter_keeps_single_asserts_calling_the_entry_point_once_each(tmp_path: Path) -> None:
    tests = internal_tests(HAS_CLOSE, metered(ScriptedStandIn(TEST_ANSWER), tmp_path), 0, 6, "strict")
    assert tests.kept == [
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False",
        "assert has_close_elements([1.0, 1.05], 0.1) == True",
    ]
    assert [(d.text, d.reason) for d in tests.dropped] == [
        ("assert has_close_elements([1.0, 2.8, 3.0, 4.0 == True", "syntax_error"),
        ('print("assert it")', "not_a_single_assert"),
        ("assert sorted([3, 1]) == [1, 3]", "no_entry_point_call"),
        ("assert has_close_elements([1.0,2.0,3.0], 0.5)==False", "duplicate"),
    ]
    assert tests.dropped[1].detail == "parses as Expr"
    assert tests.dropped[2].detail == "calls sorted, not has_close_elements"
    assert tests.dropped[3].detail == "repeats kept test 1"


def test_more_valid_tests_than_the_limit_are_sampled_reproducibly_and_recorded() -> None:
    answer = "\n".join(f"assert f({n}) == {n}" for n in range(10))
    first = parse_internal_tests(answer, "f", max_tests=3, seed=11)
    assert first == parse_internal_tests(answer, "f", max_tests=3, seed=11)
    assert len(first.kept) == 3
    assert first.kept == sorted(first.kept, key=lambda test: int(test.split("(")[1].split(")")[0]))  # answer order
    assert [d.reason for d in first.dropped] == ["over_limit"] * 7
    assert {d.text for d in first.dropped} | set(first.kept) == set(answer.splitlines())
    assert first.dropped[0].detail == "10 valid tests, 3 sampled with seed 11"


def test_max_tests_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_tests"):
        parse_internal_tests("assert f(1) == 1", "f", max_tests=0, seed=0)
