"""Reading the code out of a model's answer: Reflexion's parser, or the harness's repairing one.

`reflexion` (the default) is what the original's `parse_code_block` does: the first ```python block, else the
first bare ``` block, else the first top-level function, each without its closing newline; an answer with none of
them becomes the text `None` (the original formats the missing code into its prompts and programs as `None`).
`repair` is the harness's option: it picks the block defining the entry point, completes a body-only answer onto
the problem's prompt, re-indents a body written flush left, and puts back the prompt's imports and helpers; every
repair is flagged in the Implementation.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Literal

from envs.humaneval import HumanEvalProblem
from harness.records.humaneval import Implementation

CodeExtraction = Literal["reflexion", "repair"]
INDENT = "    "

_FENCE_RE = re.compile(
    r"^[ \t]*```[ \t]*(?P<tag>[\w+.-]*)[^\n]*\n(?P<code>.*?)(?:^[ \t]*```|\Z)", re.DOTALL | re.MULTILINE
)
_PYTHON_TAGS = {"", "python", "py", "python3"}
# A line that starts a top-level statement a module of functions is made of.
_TOP_LEVEL_RE = re.compile(r"(?:async[ \t]+def|def|class)[ \t]|@|import[ \t]|from[ \t]")
# Reflexion's fences: a language tag then a newline, the code, a newline then the closing fence.
_REFLEXION_PYTHON_BLOCK = re.compile(r"```python\n(.*?)\n```", re.DOTALL)
_REFLEXION_BARE_BLOCK = re.compile(r"```\n(.*?)\n```", re.DOTALL)
MISSING_CODE = "None"


def extract_implementation(answer: str, problem: HumanEvalProblem, mode: CodeExtraction = "reflexion") -> Implementation:
    """The code in a model's answer, read as `mode` says."""
    if mode == "repair":
        return repaired_implementation(answer, problem)
    code = reflexion_code(answer)
    return Implementation(
        code=MISSING_CODE if code is None else code,
        raw=answer,
        extracted=code is not None,
        body_only=False,
        indentation_repaired=False,
        prepended=[],
    )


def reflexion_code(answer: str) -> str | None:
    """Reflexion's `parse_code_block`: a ```python block, a bare ``` block, else the first function; None."""
    for fence in (_REFLEXION_PYTHON_BLOCK, _REFLEXION_BARE_BLOCK):
        match = fence.search(answer)
        if match:
            return match.group(1)
    return _first_function(answer)


def _first_function(answer: str) -> str | None:
    """Reflexion's `parse_first_func`: from the first `def ` line to the first empty line after a line
    mentioning `return`, else to the end (also when a second `def ` line comes first)."""
    lines = answer.split("\n")
    start: int | None = None
    end = 0
    returned = False
    for index, line in enumerate(lines):
        if line.startswith("def "):
            if start is not None:
                break
            start = index
        elif start is not None and "return" in line:
            returned = True
        if start is not None and returned and line == "":
            end = index
            break
    if start is None:
        return None
    if end == 0:
        end = len(lines) - 1
    # The original strips these characters from the end, one by one (a [/PYTHON] tag, or any of its letters).
    return "\n".join(lines[start : end + 1]).rstrip("[/PYTHON]")


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


def repaired_implementation(answer: str, problem: HumanEvalProblem) -> Implementation:
    """The harness's extraction: a ```python block or bare code, a whole function or only its body, repaired."""
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
