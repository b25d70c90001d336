"""Grounded template: the reflector must name the failed step, its root cause and a new plan.

The answer is parsed into its three parts. It is malformed when a part is missing or empty,
or when FAILED STEP quotes no action the actor actually took. Policy for a malformed answer
(`on_malformed`): `skip` (default) keeps it out of memory, `keep_raw` stores the raw text;
either way the record keeps the raw answer and the reasons, so nothing is silently accepted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.reflection._base import Reflection, ReflectionInput, ReflectionSource, register_source
from harness.reflection_details import TemplateParts
from harness.reflection.self_diagnosis import past_plans, reflection_request
from harness.trajectory import Step
from harness.trajectory_parser import is_thought

LABELS = ("FAILED STEP", "ROOT CAUSE", "NEW PLAN")
# The prompt ends with the first label, so the model's answer starts inside that part.
ANSWER_PREFIX = "FAILED STEP:"
_LABEL_RE = re.compile(r"^[ \t>*#-]*(FAILED STEP|ROOT CAUSE|NEW PLAN)[ \t*]*:", re.IGNORECASE | re.MULTILINE)


class TemplateOptions(BaseModel):
    """Settings of the grounded_template source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    on_malformed: Literal["skip", "keep_raw"] = Field(
        "skip", description="skip: nothing reaches memory; keep_raw: the raw answer does, flagged in the record."
    )


def template_query(scenario: str, memory: list[str]) -> str:
    """The grounded-template reflection prompt."""
    return read_prompt("alfworld/grounded_template_query.txt").format(
        examples=read_prompt("alfworld/grounded_template_examples.txt"),
        scenario=scenario,
        past_plans=past_plans(memory).rstrip("\n"),
    ).rstrip("\n")


def split_parts(answer: str) -> dict[str, str]:
    """Each label's text (first occurrence), up to the next label; NEW PLAN also ends at a blank line."""
    matches = list(_LABEL_RE.finditer(answer))
    parts: dict[str, str] = {}
    for index, match in enumerate(matches):
        label = match.group(1).upper()
        if label in parts:
            continue
        end = matches[index + 1].start() if index + 1 < len(matches) else len(answer)
        body = answer[match.end() : end].strip()
        if label == "NEW PLAN":
            body = body.split("\n\n", 1)[0].strip()
        parts[label] = body
    return parts


def _normalize(text: str) -> str:
    return " ".join(text.lower().split())


def quoted_step(failed_step: str, trajectory: Sequence[Step]) -> int | None:
    """1-based number of the step whose action FAILED STEP quotes: the longest quoted action, earliest first."""
    said = _normalize(failed_step)
    best: tuple[int, int] | None = None  # (-length, step)
    for number, step in enumerate(trajectory, start=1):
        action = _normalize(step.action)
        if not action or is_thought(action):
            continue
        if re.search(rf"(?<![\w]){re.escape(action)}(?![\w])", said):
            candidate = (-len(action), number)
            best = candidate if best is None or candidate < best else best
    return best[1] if best else None


def parse_answer(answer: str, trajectory: Sequence[Step], policy: Literal["skip", "keep_raw"]) -> TemplateParts:
    """The three parts of an answer (which starts after the prompt's 'FAILED STEP:'), checked."""
    raw = answer
    parts = split_parts(ANSWER_PREFIX + answer)
    problems = [f"no {label} part" for label in LABELS if label not in parts]
    problems += [f"empty {label} part" for label in LABELS if label in parts and not parts[label]]
    failed_step = parts.get("FAILED STEP")
    matched = quoted_step(failed_step, trajectory) if failed_step else None
    if failed_step and matched is None:
        problems.append("FAILED STEP quotes no action that was taken in the episode")
    return TemplateParts(
        raw=raw,
        failed_step=failed_step,
        root_cause=parts.get("ROOT CAUSE"),
        new_plan=parts.get("NEW PLAN"),
        matched_step=matched,
        malformed=bool(problems),
        problems=problems,
        policy=policy,
    )


def memory_text(parts: TemplateParts) -> str | None:
    """What reaches memory: the three parts in canonical form, the raw text, or nothing."""
    if not parts.malformed:
        return f"FAILED STEP: {parts.failed_step}\nROOT CAUSE: {parts.root_cause}\nNEW PLAN: {parts.new_plan}"
    return parts.raw.strip() if parts.policy == "keep_raw" else None


@register_source("grounded_template")
class GroundedTemplate(ReflectionSource):
    """FAILED STEP / ROOT CAUSE / NEW PLAN, parsed and checked against the trajectory."""

    Options = TemplateOptions
    options: TemplateOptions

    def reflect(self, trial: ReflectionInput, llm: MeteredLLM) -> Reflection:
        prompt = template_query(trial.scenario, trial.memory)
        answer = llm.generate(reflection_request(prompt, trial.seed)).text
        parts = parse_answer(answer, trial.trajectory, self.options.on_malformed)
        return Reflection(text=memory_text(parts), details=parts)
