"""The HumanEval env config (configs/env/humaneval.yaml), validated."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from harness.domains.frozen_in_path import FrozenIn


class HumanEvalEnvConfig(BaseModel):
    """Which HumanEval problems to solve, and how their code is tested."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["humaneval"]
    problems: list[str] = Field(default_factory=list, description="Problem ids ('HumanEval/0'); empty = all 164.")
    first_n: StrictInt | None = Field(None, ge=1, description="Keep the first N problems after the id filter.")
    frozen_in: FrozenIn = Field(None, description="A run directory: keep the tasks whose memory froze there.")
    frozen_condition: str = Field("self_diagnosis", description="The condition of `frozen_in` whose memory counts.")
    frozen_similarity_threshold: StrictFloat = Field(
        0.85, gt=0, le=1, description="`frozen_in` counts a reflection repeated at this SequenceMatcher ratio or more."
    )
    frozen_rrr_threshold: StrictFloat = Field(
        0.5, gt=0, le=1, description="`frozen_in` counts a task frozen at this RRR or more (mean over its repeats)."
    )
    max_tests: StrictInt = Field(
        1, ge=1, description="Internal tests kept, sampled with the run's seed (Reflexion: 1)."
    )
    test_filter: Literal["reflexion", "strict"] = Field(
        "reflexion",
        description="reflexion: every line with 'assert' that parses; strict (harness option): one assert calling "
        "the entry point per line, repeats dropped.",
    )
    feedback: Literal["reflexion", "repr"] = Field(
        "reflexion",
        description="reflexion: str() of the value, an exception's message; repr (harness option): repr() and "
        "'Type: message'.",
    )
    code_extraction: Literal["reflexion", "repair"] = Field(
        "reflexion",
        description="reflexion: the original's code-block parser; repair (harness option): the block defining the "
        "entry point, body-only answers completed, indentation and the prompt's imports put back.",
    )
    test_timeout_s: StrictFloat = Field(
        5.0, gt=0, description="Wall-time limit of one internal test's run (Reflexion: 5)."
    )
    check_timeout_s: StrictFloat = Field(10.0, gt=0, description="Wall-time limit of the check() run (Reflexion: 10).")
