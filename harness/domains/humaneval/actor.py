"""Reflexion's programming actor for HumanEval: internal unit tests, a first implementation, improved ones.

Every call is a chat request laid out as Reflexion's generators lay it out at 218cf0e (the layouts and their
source are in prompts/humaneval/README.md): tests at its chat default temperature 0.2, implementations at 0.
Reading the answers is pure and says what it dropped: a test that is not kept is recorded with its reason.
"""

from __future__ import annotations

import ast
import random
from typing import Literal

from envs.humaneval import HumanEvalProblem
from harness.domains.humaneval.extraction import CodeExtraction, extract_implementation
from harness.records.humaneval import DroppedTest, Implementation, InternalTests, TestDropReason
from harness.llm import ChatMessage, chat_request
from harness.llm.metering import MeteredLLM
from harness.llm.prompts import read_prompt

TEST_GENERATION_MAX_TOKENS = 1024
IMPLEMENTATION_MAX_TOKENS = 1024
# Both are Reflexion's budget (passed explicitly for tests, model.py's default for implementations). An
# implementation restates the signature and docstring (HumanEval prompts run to ~400 tokens) before its
# body, so a smaller ceiling would cut long ones off; greedy decoding ends at the end of the turn, so the
# ceiling only costs time on a runaway answer, and prompt plus 1024 fits the embedded models' 8192 context.

# Reflexion's generate_chat default, which its test generation and self-reflection calls leave as it is.
REFLEXION_CHAT_TEMPERATURE = 0.2
DEFAULT_MAX_TESTS = 1
"""Reflexion's `gen.internal_tests(prompt, model, 1)`: one test, sampled from the valid ones."""

TestFilter = Literal["reflexion", "strict"]
"""reflexion: lines containing 'assert' that parse; strict (harness option): single asserts calling the entry
point, each once."""


# ---------------------------------------------------------------- prompts


def _template(name: str) -> str:
    return read_prompt(f"humaneval/{name}.txt")


def code_block(code: str) -> str:
    """Reflexion's add_code_block: the code in a ```python fence."""
    return _template("code_block").format(code=code)


def _system(instruction: str) -> ChatMessage:
    content = _template("system_message").format(
        instruction=_template(instruction), code_block_instruction=_template("code_block_instruction")
    )
    return ChatMessage(role="system", content=content)


def test_generation_messages(problem: HumanEvalProblem) -> list[ChatMessage]:
    """The test-generation instruction, then one user message: the few-shot example and the problem's prompt."""
    query = _template("test_generation_query").format(
        few_shot=_template("test_generation_few_shot"), func_sig=problem.prompt
    )
    return [
        ChatMessage(role="system", content=_template("test_generation_chat_instruction")),
        ChatMessage(role="user", content=query),
    ]


def first_implementation_messages(problem: HumanEvalProblem) -> list[ChatMessage]:
    """Reflexion's "simple" strategy: the instruction, then the problem's prompt."""
    return [_system("simple_chat_instruction"), ChatMessage(role="user", content=problem.prompt)]


def improved_implementation_messages(
    problem: HumanEvalProblem, previous: str, feedback: str, reflections: list[str]
) -> list[ChatMessage]:
    """Reflexion's "reflexion" strategy: few-shot example, previous code, feedback, reflection, the prompt.

    Reflexion passes one reflection; several (a memory window) share the reflection turn, oldest first,
    separated by a blank line, so a window of one is exactly the published layout.
    """
    if not reflections:
        raise ValueError(
            "an improved implementation needs at least one reflection; without memory, retry with "
            "first_implementation (Reflexion's reflexion strategy refuses a missing reflection too)."
        )
    return [
        _system("reflexion_chat_instruction"),
        ChatMessage(role="user", content=_template("reflexion_few_shot")),
        ChatMessage(role="assistant", content=code_block(previous)),
        ChatMessage(role="user", content=_template("reflexion_feedback_turn").format(feedback=feedback)),
        ChatMessage(role="assistant", content="\n\n".join(reflections)),
        ChatMessage(role="user", content=_template("reflexion_improved_turn").format(func_sig=problem.prompt)),
    ]


def reflection_messages(implementation: str, feedback: str) -> list[ChatMessage]:
    """Reflexion's self-reflection query (for a reflection source): instruction, then few-shot + code + feedback."""
    query = _template("self_reflection_query").format(
        few_shot=_template("self_reflection_few_shot"), implementation=code_block(implementation), feedback=feedback
    )
    return [
        ChatMessage(role="system", content=_template("self_reflection_chat_instruction")),
        ChatMessage(role="user", content=query),
    ]


# ---------------------------------------------------------------- internal tests


def _drop_reason(tree: ast.Module, entry_point: str) -> tuple[TestDropReason, str] | None:
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        kinds = ", ".join(type(node).__name__ for node in tree.body) or "nothing (a comment?)"
        return "not_a_single_assert", f"parses as {kinds}"
    called = [node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    if entry_point not in called:
        return "no_entry_point_call", f"calls {', '.join(sorted(set(called))) or 'nothing'}, not {entry_point}"
    return None


def parse_internal_tests(
    answer: str, entry_point: str, max_tests: int, seed: int, test_filter: TestFilter = "reflexion"
) -> InternalTests:
    """Reflexion's test parsing (stripped lines containing 'assert' that parse, at most max_tests sampled), with
    every line not kept recorded; `strict` also drops lines that are not one assert calling the entry point,
    and repeats."""
    if max_tests < 1:
        raise ValueError(f"max_tests must be >= 1, got {max_tests}.")
    valid: list[str] = []
    seen: dict[str, int] = {}
    dropped: list[DroppedTest] = []
    for text in (line.strip() for line in answer.splitlines() if "assert" in line):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            dropped.append(DroppedTest(text=text, reason="syntax_error", detail=str(error)))
            continue
        if test_filter == "strict":
            problem = _drop_reason(tree, entry_point)
            if problem is not None:
                dropped.append(DroppedTest(text=text, reason=problem[0], detail=problem[1]))
                continue
            shape = ast.dump(tree)  # the same test however it is spaced
            if shape in seen:
                detail = f"repeats kept test {seen[shape] + 1}"
                dropped.append(DroppedTest(text=text, reason="duplicate", detail=detail))
                continue
            seen[shape] = len(valid)
        valid.append(text)
    # Reflexion samples at random; a sample seeded by the run's seed keeps that and makes it reproducible.
    chosen = set(random.Random(seed).sample(range(len(valid)), max_tests)) if len(valid) > max_tests else None
    kept_at = [index for index in range(len(valid)) if chosen is None or index in chosen]
    detail = f"{len(valid)} valid tests, {max_tests} sampled with seed {seed}"
    dropped += [
        DroppedTest(text=test, reason="over_limit", detail=detail)
        for index, test in enumerate(valid)
        if index not in kept_at
    ]
    return InternalTests(kept=[valid[index] for index in kept_at], dropped=dropped, raw=answer)


def internal_tests(
    problem: HumanEvalProblem,
    llm: MeteredLLM,
    seed: int,
    max_tests: int = DEFAULT_MAX_TESTS,
    test_filter: TestFilter = "reflexion",
) -> InternalTests:
    """The model writes unit tests from the problem's prompt; the ones the filter lets through are kept."""
    request = chat_request(
        test_generation_messages(problem), TEST_GENERATION_MAX_TOKENS, seed, REFLEXION_CHAT_TEMPERATURE
    )
    return parse_internal_tests(llm.generate(request).text, problem.entry_point, max_tests, seed, test_filter)


# ---------------------------------------------------------------- implementations


def first_implementation(
    problem: HumanEvalProblem, llm: MeteredLLM, seed: int, extraction: CodeExtraction = "reflexion"
) -> Implementation:
    """The model's first implementation, from the problem's prompt alone."""
    request = chat_request(first_implementation_messages(problem), IMPLEMENTATION_MAX_TOKENS, seed)
    return extract_implementation(llm.generate(request).text, problem, extraction)


def improved_implementation(
    problem: HumanEvalProblem,
    previous: str,
    feedback: str,
    reflections: list[str],
    llm: MeteredLLM,
    seed: int,
    extraction: CodeExtraction = "reflexion",
) -> Implementation:
    """A new implementation from the previous code (Implementation.code), its test feedback and the reflections."""
    messages = improved_implementation_messages(problem, previous, feedback, reflections)
    request = chat_request(messages, IMPLEMENTATION_MAX_TOKENS, seed)
    return extract_implementation(llm.generate(request).text, problem, extraction)
