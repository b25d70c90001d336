"""Grounded template: the reflector must name the failed step, its root cause and a new plan.

The answer is parsed into its three parts. It is malformed when a part is missing or empty, or when
FAILED STEP quotes nothing the domain offers as quotable (on ALFWorld an action the actor took, on
HumanEval a test that failed in the run). Policy for a malformed answer (`on_malformed`): `skip` (default) keeps it out
of memory, `keep_raw` stores the raw text; either way the record keeps the raw answer and the reasons,
so nothing is silently accepted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.base import ReflectionHooks, ReflectionInput, TemplateCandidates
from harness.llm.metering import MeteredLLM
from harness.records.details import TemplateParts
from harness.reflection._base import Reflection, ReflectionSource, register_source

LABELS = ("FAILED STEP", "ROOT CAUSE", "NEW PLAN")
_LABEL_RE = re.compile(r"^[ \t>*#-]*(FAILED STEP|ROOT CAUSE|NEW PLAN)[ \t*]*:", re.IGNORECASE | re.MULTILINE)


class TemplateOptions(BaseModel):
    """Settings of the grounded_template source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    on_malformed: Literal["skip", "keep_raw"] = Field(
        "skip", description="skip: nothing reaches memory; keep_raw: the raw answer does, flagged in the record."
    )


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


def parse_answer(
    answer: str, candidates: TemplateCandidates, policy: Literal["skip", "keep_raw"], prefix: str = ""
) -> TemplateParts:
    """The three parts of an answer (after `prefix`, which the prompt ended with), checked against what
    FAILED STEP may quote."""
    parts = split_parts(prefix + answer)
    problems = [f"no {label} part" for label in LABELS if label not in parts]
    problems += [f"empty {label} part" for label in LABELS if label in parts and not parts[label]]
    failed_step = parts.get("FAILED STEP")
    matched = quoted_item(failed_step, candidates.items) if failed_step else None
    if failed_step and matched is None:
        problems.append(candidates.unmatched)
    return TemplateParts(
        raw=answer,
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
    """FAILED STEP / ROOT CAUSE / NEW PLAN, parsed and checked against what the domain offers as quotable."""

    Options = TemplateOptions
    options: TemplateOptions

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        request, prefix = domain.template_request(trial)
        answer = llm.generate(request).text
        parts = parse_answer(answer, domain.template_candidates(trial), self.options.on_malformed, prefix)
        return Reflection(text=memory_text(parts), details=parts)
