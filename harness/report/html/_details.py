"""What a reflection source kept beside the reflection, as detail blocks: the failure signals injected into the
prompt (programmatic), the template's fields and refusals (grounded_template), what the gate proposed, dropped and
approved (gated), and on code the attempt the reflection is about."""

from __future__ import annotations

import json

from collections.abc import Callable
from typing import Any

from harness.records import TrialRecord
from harness.records.details import GateOutcome, TemplateParts
from harness.records.humaneval import CodeAttempt
from harness.records.registry import Registry
from harness.report.html._model import DetailBlock, DetailItem

SIGNALS_TITLE = "failure signals injected into the reflection prompt"


def signal_blocks(details: Any) -> list[DetailBlock]:
    """Any source's failure signals, from the lines the reflector was shown (`details.rendered`)."""
    lines = [line for line in details.rendered.splitlines() if line.strip()]
    # A line ending in ':' introduces the signals below it; the others are signals.
    items = [DetailItem(text=line, tone="plain" if line.endswith(":") else "bad") for line in lines]
    return [DetailBlock(title=SIGNALS_TITLE, items=items or [DetailItem(text="none found")])]


def template_blocks(parts: TemplateParts) -> list[DetailBlock]:
    step = parts.failed_step
    if parts.matched_step is not None:
        step = f"{step}  (step {parts.matched_step} of the trajectory)"
    items = [
        DetailItem(label="FAILED STEP", text=step if step is not None else "missing", tone="plain" if step else "bad"),
        DetailItem(label="ROOT CAUSE", text=parts.root_cause or "missing", tone="plain" if parts.root_cause else "bad"),
        DetailItem(label="NEW PLAN", text=parts.new_plan or "missing", tone="plain" if parts.new_plan else "bad"),
    ]
    if parts.malformed:
        kept = "kept the raw answer as the reflection" if parts.policy == "keep_raw" else "stored no reflection"
        items += [DetailItem(label="refused", text=problem, tone="bad") for problem in parts.problems]
        items += [
            DetailItem(label="policy", text=f"{parts.policy}: {kept}"),
            DetailItem(label="raw answer", text=parts.raw, tone="code"),
        ]
    if parts.malformed:
        return [DetailBlock(title="template: refused (malformed)", items=items)]
    # Well-formed, the fields are the reflection itself: folded, with the step it quotes in the title.
    quoted = f", FAILED STEP quotes step {parts.matched_step}" if parts.matched_step is not None else ""
    return [DetailBlock(title=f"template fields: well-formed{quoted}", items=items, folded=True)]


def gate_blocks(outcome: GateOutcome) -> list[DetailBlock]:
    approved = set(outcome.approved)
    items = []
    for proposal in outcome.proposed:
        state = "approved" if proposal.id in approved else "proposed, not approved"
        items.append(DetailItem(label=state, text=proposal.lesson, tone="good" if proposal.id in approved else "plain"))
        items.append(
            DetailItem(label=f"cites turn {proposal.evidence.turn}", text=proposal.evidence.quote, tone="code")
        )
    for dropped in outcome.dropped:
        items.append(DetailItem(label=f"dropped: {dropped.reason}", text=dropped.detail, tone="bad"))
        items.append(DetailItem(label="item", text=json.dumps(dropped.item, ensure_ascii=False), tone="code"))
    if not items:
        items.append(DetailItem(text="the answer held no item"))
    counts = f"{len(outcome.proposed)} proposed, {len(approved)} approved, {len(outcome.dropped)} dropped"
    return [DetailBlock(title=f"gate ({outcome.policy} policy): {counts}", items=items)]


DETAIL_BLOCKS: Registry[Callable[[Any], list[DetailBlock]]] = Registry(
    "renderer of reflection details",
    group="reflexion_harness.detail_renderers",
    entries={
        "programmatic": "harness.report.html._details:signal_blocks",
        "programmatic_code": "harness.report.html._details:signal_blocks",
        "listed_signals": "harness.report.html._details:signal_blocks",
        "grounded_template": "harness.report.html._details:template_blocks",
        "gated": "harness.report.html._details:gate_blocks",
    },
)
"""A reflection's details (by their `kind`) -> the page's blocks; a source from an installed package adds the
renderer of its own kind through an entry point of that name."""


def reflection_blocks(details: Any) -> list[DetailBlock]:
    """The blocks of one reflection's details; none for plain text, or a kind no renderer shows."""
    kind = getattr(details, "kind", None)
    return DETAIL_BLOCKS.get(kind)(details) if isinstance(kind, str) and kind in DETAIL_BLOCKS else []


def attempt_block(attempt: CodeAttempt) -> DetailBlock:
    """The verdicts of a trial's code and the tests it ran against (the code itself is its trajectory's step)."""
    passed = attempt.internal_status == "passed"
    items = [
        DetailItem(label="internal tests", text=attempt.internal_status, tone="good" if passed else "bad"),
        DetailItem(label="check()", text=attempt.check_status or "not run"),
        *(DetailItem(label="test run", text=test, tone="code") for test in attempt.tests_run),
    ]
    return DetailBlock(title="the attempt's verdicts", items=items)


def record_blocks(record: TrialRecord) -> list[DetailBlock]:
    """Every block of a trial record, the reflection's first."""
    blocks = reflection_blocks(record.reflection_details)
    # Only code attempts carry verdicts to show; other domains' evidence (HotpotQA's answers) is in the trajectory.
    if isinstance(record.attempt_details, CodeAttempt):
        blocks.append(attempt_block(record.attempt_details))
    return blocks
