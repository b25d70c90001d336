"""Reflexion's programming actor for HumanEval: internal unit tests, a first implementation, improved ones.

Every call is a chat request laid out as Reflexion's generator_utils.py lays it out (the layouts and their
source are in prompts/humaneval/README.md), at temperature 0. Reading the answers is pure and says what it
dropped or repaired: a test that cannot be run is recorded with its reason, code that cannot be found is
passed on raw and flagged, never silently fixed or lost.
"""

from __future__ import annotations

import ast
import random
import re
import textwrap
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from envs.humaneval import HumanEvalProblem
from harness.code_signals import check_belongs, raised_error, unfinished_test
from harness.llm import ChatMessage, LLMRequest
from harness.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.sandbox import AssertTests, Verdict

TEST_GENERATION_MAX_TOKENS = 1024
IMPLEMENTATION_MAX_TOKENS = 1024
# Both are Reflexion's budget (passed explicitly for tests, model.py's default for implementations). An
# implementation restates the signature and docstring (HumanEval prompts run to ~400 tokens) before its
# body, so a smaller ceiling would cut long ones off; greedy decoding ends at the end of the turn, so the
# ceiling only costs time on a runaway answer, and prompt plus 1024 fits the embedded models' 8192 context.

DEFAULT_MAX_TESTS = 6

# Reflexion's executor marks a test stopped by its timeout with this output.
TIMEOUT_OUTPUT = "TIMEOUT"
# Tests after the one a run was stopped in never ran; they did not pass, so they are listed as failed.
NOT_RUN_OUTPUT = "NOT RUN"
INDENT = "    "

TestDropReason = Literal["syntax_error", "not_a_single_assert", "no_entry_point_call", "duplicate", "over_limit"]

_FENCE_RE = re.compile(
    r"^[ \t]*```[ \t]*(?P<tag>[\w+.-]*)[^\n]*\n(?P<code>.*?)(?:^[ \t]*```|\Z)", re.DOTALL | re.MULTILINE
)
_PYTHON_TAGS = {"", "python", "py", "python3"}
# A line that starts a top-level statement a module of functions is made of.
_TOP_LEVEL_RE = re.compile(r"(?:async[ \t]+def|def|class)[ \t]|@|import[ \t]|from[ \t]")


class DroppedTest(BaseModel):
    """A line of the model's tests that is not run, and why."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The line, stripped.")
    reason: TestDropReason = Field(description="Which check it failed, in the order they are applied.")
    detail: str = Field(description="What exactly was wrong, e.g. the syntax error or the test it repeats.")


class InternalTests(BaseModel):
    """The model's unit tests for a problem, as Reflexion reads them (lines containing 'assert'), checked."""

    model_config = ConfigDict(frozen=True)

    kept: list[str] = Field(description="Single asserts calling the entry point, distinct, at most max_tests.")
    dropped: list[DroppedTest] = Field(description="Every other line containing 'assert', with its reason.")
    raw: str = Field(description="The model's answer.")


class Implementation(BaseModel):
    """Code read from the model's answer, ready to run."""

    model_config = ConfigDict(frozen=True)

    code: str = Field(description="The module to run: the function (and whatever the answer defined with it).")
    raw: str = Field(description="The model's answer.")
    extracted: bool = Field(description="Code was found; false: the answer held none and `code` is the raw text.")
    body_only: bool = Field(description="The answer was a function body, completed onto the problem's prompt.")
    indentation_repaired: bool = Field(description="The code compiled only after re-indenting a function body.")
    prepended: list[str] = Field(
        description="Statements of the problem's prompt (imports, helpers) the answer lacked, put before it."
    )


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
    """System instruction, the few-shot exchange, then the problem's prompt."""
    return [
        ChatMessage(role="system", content=_template("test_generation_chat_instruction")),
        ChatMessage(role="user", content=_template("test_generation_few_shot_user")),
        ChatMessage(role="assistant", content=_template("test_generation_few_shot_assistant")),
        ChatMessage(role="user", content=problem.prompt),
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


def chat_request(messages: list[ChatMessage], max_tokens: int, seed: int) -> LLMRequest:
    """A greedy chat request."""
    return LLMRequest(kind="chat", messages=messages, max_tokens=max_tokens, temperature=0.0, seed=seed)


# ---------------------------------------------------------------- internal tests


def _drop_reason(tree: ast.Module, entry_point: str) -> tuple[TestDropReason, str] | None:
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        kinds = ", ".join(type(node).__name__ for node in tree.body) or "nothing (a comment?)"
        return "not_a_single_assert", f"parses as {kinds}"
    called = [node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    if entry_point not in called:
        return "no_entry_point_call", f"calls {', '.join(sorted(set(called))) or 'nothing'}, not {entry_point}"
    return None


def parse_internal_tests(answer: str, entry_point: str, max_tests: int, seed: int) -> InternalTests:
    """Reflexion's test parsing (stripped lines containing 'assert', at most max_tests sampled), with every
    line it does not keep recorded: unparseable, not one assert, not calling the entry point, a repeat."""
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
        problem = _drop_reason(tree, entry_point)
        if problem is not None:
            dropped.append(DroppedTest(text=text, reason=problem[0], detail=problem[1]))
            continue
        shape = ast.dump(tree)  # the same test however it is spaced
        if shape in seen:
            dropped.append(DroppedTest(text=text, reason="duplicate", detail=f"repeats kept test {seen[shape] + 1}"))
            continue
        seen[shape] = len(valid)
        valid.append(text)
    # Reflexion samples at random; a seeded sample keeps that and makes it reproducible.
    chosen = set(random.Random(seed).sample(range(len(valid)), max_tests)) if len(valid) > max_tests else None
    kept = [test for index, test in enumerate(valid) if chosen is None or index in chosen]
    detail = f"{len(valid)} valid tests, {max_tests} sampled with seed {seed}"
    dropped += [DroppedTest(text=test, reason="over_limit", detail=detail) for test in valid if test not in kept]
    return InternalTests(kept=kept, dropped=dropped, raw=answer)


def internal_tests(
    problem: HumanEvalProblem, llm: MeteredLLM, seed: int, max_tests: int = DEFAULT_MAX_TESTS
) -> InternalTests:
    """The model writes unit tests from the problem's prompt; the runnable ones are kept."""
    request = chat_request(test_generation_messages(problem), TEST_GENERATION_MAX_TOKENS, seed)
    return parse_internal_tests(llm.generate(request).text, problem.entry_point, max_tests, seed)


# ---------------------------------------------------------------- code extraction


def _compiles(code: str) -> bool:
    """Whether the code compiles (compiled only, never run)."""
    try:
        compile(code, "<answer>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _fenced_block(answer: str, entry_point: str) -> str | None:
    """The Python code block defining the entry point, else the first one; an unclosed fence runs to the end."""
    blocks = [m.group("code") for m in _FENCE_RE.finditer(answer) if m.group("tag").lower() in _PYTHON_TAGS]
    return next((block for block in blocks if _defines(block, entry_point)), blocks[0] if blocks else None)


def _def_line(lines: list[str], entry_point: str) -> int | None:
    pattern = re.compile(rf"[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}[ \t]*\(")
    return next((index for index, line in enumerate(lines) if pattern.match(line)), None)


def _defines(code: str, entry_point: str) -> bool:
    return _def_line(code.splitlines(), entry_point) is not None


def _indented(line: str) -> bool:
    return line[:1] in (" ", "\t")


def _function_bodies(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line ranges of the bodies of top-level defs whose first body line is not indented."""
    ranges = []
    for index, line in enumerate(lines):
        if not re.match(r"(?:async[ \t]+)?def[ \t]", line):
            continue
        header_end = next((i for i in range(index, len(lines)) if lines[i].split("#")[0].rstrip().endswith(":")), None)
        if header_end is None:
            continue
        first = next((i for i in range(header_end + 1, len(lines)) if lines[i].strip()), None)
        if first is None or _indented(lines[first]):
            continue
        end = next((i for i in range(first + 1, len(lines)) if _TOP_LEVEL_RE.match(lines[i])), len(lines))
        ranges.append((first, end))
    return ranges


def _indent_first_body_lines(code: str) -> str:
    """A model's classic slip: the body's first line flush left, the rest indented."""
    lines = code.splitlines()
    for first, _ in _function_bodies(lines):
        lines[first] = INDENT + lines[first]
    return "\n".join(lines)


def _indent_whole_bodies(code: str) -> str:
    """A body written entirely flush left under its def."""
    lines = code.splitlines()
    for first, end in _function_bodies(lines):
        lines[first:end] = [INDENT + line if line.strip() else line for line in lines[first:end]]
    return "\n".join(lines)


def _first_compiling(variants: list[str]) -> tuple[str, bool] | None:
    """The first variant that compiles, and whether it was a repair (not the first)."""
    return next(((code, index > 0) for index, code in enumerate(variants) if _compiles(code)), None)


def _function_variants(code: str) -> list[str]:
    plain = textwrap.dedent(code)
    return [plain, _indent_first_body_lines(plain), _indent_whole_bodies(plain)]


def _code_start(lines: list[str], def_line: int) -> int:
    """First line, up to the def, that starts top-level code (prose such as "from the docstring ..." does not)."""
    for index in range(def_line):
        line = lines[index]
        if _TOP_LEVEL_RE.match(line) and (not re.match(r"(?:import|from)[ \t]", line) or _compiles(line)):
            return index
    return def_line


def _function_code(text: str, entry_point: str, bare: bool) -> tuple[str, bool]:
    """The code of an answer defining the entry point; a bare answer loses the prose around its code."""
    lines = text.splitlines()
    def_line = _def_line(lines, entry_point) or 0
    start = _code_start(lines, def_line) if bare else 0
    # Cut trailing prose: try the longest region first, then end before each later flush-left non-code line.
    ends = [len(lines)]
    if bare:
        ends += [i for i in range(len(lines) - 1, def_line, -1) if lines[i].strip() and not _indented(lines[i])]
    for end in ends:
        found = _first_compiling(_function_variants("\n".join(lines[start:end])))
        if found is not None:
            return found
    return textwrap.dedent("\n".join(lines[start:])), False


def _defines_top_level(text: str) -> bool:
    """Compiles as a module holding a function or class (a renamed function, or helpers only)."""
    if not _compiles(textwrap.dedent(text)):
        return False
    tree = ast.parse(textwrap.dedent(text))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def _body_code(text: str, prompt: str) -> tuple[str, bool] | None:
    """The answer as the body of the prompt's function, if it compiles so (re-indented if it must be)."""
    if not text.strip():
        return None  # the prompt's docstring alone would compile, as a function returning None
    head = prompt.rstrip() + "\n"
    body = textwrap.dedent(text).strip("\n")
    lines = text.strip("\n").splitlines()
    first_line_fixed = "\n".join([INDENT + lines[0].strip(), *lines[1:]])
    return _first_compiling([head + textwrap.indent(body, INDENT), head + first_line_fixed])


def _bound_names(nodes: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _missing_context(code: str, problem: HumanEvalProblem) -> list[str]:
    """Top-level statements of the prompt other than the entry point's def (imports; helpers such as
    HumanEval/10's is_palindrome) that the code does not itself bind."""
    prompt_tree = ast.parse(problem.prompt)
    context = [
        node
        for node in prompt_tree.body
        if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == problem.entry_point)
    ]
    sources = [ast.get_source_segment(problem.prompt, node) or "" for node in context]
    if not _compiles(code):
        return [source for source in sources if source not in code]
    bound = _bound_names(ast.parse(code).body)
    return [source for node, source in zip(context, sources) if not _bound_names([node]) <= bound]


def extract_implementation(answer: str, problem: HumanEvalProblem) -> Implementation:
    """The code in a model's answer: a ```python block or bare code, a whole function or only its body."""
    block = _fenced_block(answer, problem.entry_point)
    text = block if block is not None else answer
    found: tuple[str, bool] | None = None
    if _defines(text, problem.entry_point):
        found = _function_code(text, problem.entry_point, bare=block is None)
    elif _defines_top_level(text):
        found = textwrap.dedent(text), False
    else:
        body = _body_code(text, problem.prompt)
        if body is not None:
            code, repaired = body
            return Implementation(
                code=code + "\n",
                raw=answer,
                extracted=True,
                body_only=True,
                indentation_repaired=repaired,
                prepended=[],
            )
        if block is not None or re.search(r"^(?:async[ \t]+)?def[ \t]", text, re.MULTILINE):
            found = textwrap.dedent(text), False  # code that does not compile: the sandbox will say why
    if found is None:
        return Implementation(
            code=answer, raw=answer, extracted=False, body_only=False, indentation_repaired=False, prepended=[]
        )
    code, repaired = found
    code = code.strip("\n") + "\n"
    prepended = _missing_context(code, problem)
    if prepended:
        code = "\n".join(prepended) + "\n\n\n" + code
    return Implementation(
        code=code, raw=answer, extracted=True, body_only=False, indentation_repaired=repaired, prepended=prepended
    )


def first_implementation(problem: HumanEvalProblem, llm: MeteredLLM, seed: int) -> Implementation:
    """The model's first implementation, from the problem's prompt alone."""
    request = chat_request(first_implementation_messages(problem), IMPLEMENTATION_MAX_TOKENS, seed)
    return extract_implementation(llm.generate(request).text, problem)


def improved_implementation(
    problem: HumanEvalProblem, previous: str, feedback: str, reflections: list[str], llm: MeteredLLM, seed: int
) -> Implementation:
    """A new implementation from the previous code (Implementation.code), its test feedback and the reflections."""
    messages = improved_implementation_messages(problem, previous, feedback, reflections)
    request = chat_request(messages, IMPLEMENTATION_MAX_TOKENS, seed)
    return extract_implementation(llm.generate(request).text, problem)


# ---------------------------------------------------------------- feedback


def _stop_output(verdict: Verdict) -> str:
    """What the test a run was stopped in gets as its output."""
    if verdict.status == "timeout":
        return TIMEOUT_OUTPUT
    if verdict.status == "resource_limit":
        return f"{(verdict.resource_limit or 'resource').replace('_', ' ')} limit exceeded"
    if verdict.status == "killed_by_signal":
        return f"killed by {verdict.signal}"
    return "the process exited"


def test_outputs(verdict: Verdict, tests: AssertTests) -> list[str | None]:
    """Per assert, None if it passed, else the text after '# output:'."""
    check_belongs(verdict, tests)
    if verdict.load_error is not None:
        # As in Reflexion, where every test re-ran the code that failed to load.
        return [raised_error(verdict.load_error, None, None).output()] * len(tests.asserts)
    stopped_in = unfinished_test(verdict, tests)
    outputs: list[str | None] = []
    for index in range(len(tests.asserts)):
        if index < len(verdict.tests):
            result = verdict.tests[index]
            if result.outcome == "passed":
                outputs.append(None)
            elif result.error is not None:
                outputs.append(raised_error(result.error, None, None).output())
            else:
                outputs.append(result.actual if result.actual is not None else "AssertionError")
        else:
            outputs.append(_stop_output(verdict) if index == stopped_in else NOT_RUN_OUTPUT)
    return outputs


def feedback_text(verdict: Verdict, tests: AssertTests) -> str:
    """Reflexion's test feedback for a run of `tests`: 'Tested passed:' then 'Tests failed:' with outputs."""
    outputs = test_outputs(verdict, tests)
    passed = "".join(f"\n{test}" for test, output in zip(tests.asserts, outputs) if output is None)
    failed = "".join(
        f"\n{test} # output: {output}" for test, output in zip(tests.asserts, outputs) if output is not None
    )
    return _template("test_feedback").format(passed=passed, failed=failed)
