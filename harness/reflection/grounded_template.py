"""Grounded template: the reflector must name the failed step, its root cause and a new plan.

The answer is parsed into its three parts. It is malformed when a part is missing or empty, or when
FAILED STEP quotes nothing that really failed: on ALFWorld an action the actor took, on HumanEval a test
that failed in the run. Policy for a malformed answer (`on_malformed`): `skip` (default) keeps it out
of memory, `keep_raw` stores the raw text; either way the record keeps the raw answer and the reasons,
so nothing is silently accepted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.humaneval.actor import chat_request, code_block
from harness.domains.humaneval.models import CodeSignals
from harness.llm import ChatMessage
from harness.llm.metering import MeteredLLM
from harness.prompts import read_prompt
from harness.reflection._base import Reflection, ReflectionInput, ReflectionSource, code_and_feedback, register_source
from harness.reflection.self_diagnosis import CODE_REFLECTION_MAX_TOKENS, past_plans, reflection_request
from harness.records.details import TemplateParts
from harness.records.step import Step
from harness.domains.alfworld.signals import is_thought

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
    return (
        read_prompt("alfworld/grounded_template_query.txt")
        .format(
            examples=read_prompt("alfworld/grounded_template_examples.txt"),
            scenario=scenario,
            past_plans=past_plans(memory).rstrip("\n"),
        )
        .rstrip("\n")
    )


def code_template_messages(implementation: str, feedback: str) -> list[ChatMessage]:
    """HumanEval: the template instruction, then the code and its test results."""
    user = read_prompt("humaneval/grounded_template_user.txt").format(
        implementation=code_block(implementation), feedback=feedback
    )
    return [
        ChatMessage(role="system", content=read_prompt("humaneval/grounded_template_system.txt").rstrip("\n")),
        ChatMessage(role="user", content=user.rstrip("\n")),
    ]


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


def quoted_item(text: str, candidates: Sequence[tuple[int, str]]) -> int | None:
    """Number of the candidate `text` quotes as a whole: the longest quoted one, earliest first."""
    said = _normalize(text)
    best: tuple[int, int] | None = None  # (-length, number)
    for number, item in candidates:
        wanted = _normalize(item)
        if wanted and re.search(rf"(?<![\w]){re.escape(wanted)}(?![\w])", said):
            candidate = (-len(wanted), number)
            best = candidate if best is None or candidate < best else best
    return best[1] if best else None


def action_candidates(trajectory: Sequence[Step]) -> list[tuple[int, str]]:
    """ALFWorld: (step number, action) of every action sent to the environment; thoughts cannot fail."""
    return [(n, s.action) for n, s in enumerate(trajectory, start=1) if s.action.strip() and not is_thought(s.action)]


def quoted_step(failed_step: str, trajectory: Sequence[Step]) -> int | None:
    """1-based number of the step whose action FAILED STEP quotes: the longest quoted action, earliest first."""
    return quoted_item(failed_step, action_candidates(trajectory))


def test_candidates(signals: CodeSignals) -> list[tuple[int, str]]:
    """HumanEval: (1-based position, source) of every failed test case of the run."""
    return list(enumerate((case.source for case in signals.failed_cases), start=1))


def parse_answer(
    answer: str,
    candidates: Sequence[tuple[int, str]],
    policy: Literal["skip", "keep_raw"],
    prefix: str = ANSWER_PREFIX,
) -> TemplateParts:
    """The three parts of an answer (after `prefix`, which the prompt ended with), checked against what
    FAILED STEP may quote: ALFWorld actions taken, or HumanEval's failed tests."""
    raw = answer
    parts = split_parts(prefix + answer)
    problems = [f"no {label} part" for label in LABELS if label not in parts]
    problems += [f"empty {label} part" for label in LABELS if label in parts and not parts[label]]
    failed_step = parts.get("FAILED STEP")
    matched = quoted_item(failed_step, candidates) if failed_step else None
    if failed_step and matched is None:
        problems.append(
            "FAILED STEP quotes no action that was taken in the episode"
            if prefix
            else "FAILED STEP quotes no test that failed"
        )
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
        if trial.domain == "humaneval":
            if trial.evidence is None:
                raise ValueError(f"{trial.task_id}: a HumanEval trial reached grounded_template without signals.")
            implementation, feedback = code_and_feedback(trial)
            request = chat_request(
                code_template_messages(implementation, feedback), CODE_REFLECTION_MAX_TOKENS, trial.seed
            )
            answer = llm.generate(request).text
            parts = parse_answer(answer, test_candidates(trial.evidence), self.options.on_malformed, prefix="")
            return Reflection(text=memory_text(parts), details=parts)
        prompt = template_query(trial.scenario, trial.memory)
        answer = llm.generate(reflection_request(prompt, trial.seed)).text
        parts = parse_answer(answer, action_candidates(trial.trajectory), self.options.on_malformed)
        return Reflection(text=memory_text(parts), details=parts)
