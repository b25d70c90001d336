"""The two shapes of tests the sandbox runs: a list of asserts, or a script defining check(candidate)."""

from __future__ import annotations

import ast
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AssertTests(BaseModel):
    """Statements run one by one in the code's namespace, so one failure does not hide the others."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["asserts"] = "asserts"
    asserts: list[str] = Field(min_length=1, description="Python statements, typically `assert f(1) == 2`.")

    @classmethod
    def from_source(cls, source: str) -> AssertTests:
        """One test per top-level statement of `source` (raises SyntaxError if it does not parse)."""
        statements = []
        for node in ast.parse(source).body:
            decorators = getattr(node, "decorator_list", [])
            text = "".join(f"@{ast.get_source_segment(source, d)}\n" for d in decorators)
            statements.append(text + (ast.get_source_segment(source, node) or ""))
        return cls(asserts=statements)


class CheckScript(BaseModel):
    """A test script such as HumanEval's `test` field, run as `<script>` then `check(<entry_point>)`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["check_script"] = "check_script"
    script: str = Field(description="Defines check(candidate), which asserts on candidate's results.")
    entry_point: str = Field(description="Name of the function, defined by the code, passed to check().")


TestSuite = AssertTests | CheckScript
