"""The memory gate on rule writes: an ADD or EDIT reaches the library only if every ALFWorld entity it names is
quoted from the trajectories its critique read.

The gate's own rule (harness/gate) keeps a memory item only if it quotes an outside turn: the environment's text is
evidence, the model's own words are not. Here a reflection is the model's own words, so the evidence is the
trajectories alone (the task sentence and each trial's text, never the reflections shown after them), and what must
be quoted is the rule's entity words (ALFWorld's object and receptacle types, `find_names`), each found as a name in
that evidence (the whitespace-normalised text, as the gate normalises). Words of advice ("always", "check") are not
checked: no trajectory says them, and they carry no task's content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.domains.alfworld.vocabulary import find_names
from harness.gate import normalize_text
from harness.llm import ChatMessage
from harness.records.insights import Critique, CritiqueStep, ExperienceTask, InsightsLedger
from harness.records.propagation import GateRefusal
from harness.reflection.insights._counting import Source, update
from harness.reflection.insights._ledger import apply_answer
from harness.reflection.insights._operations import parse_operations
from harness.reflection.insights._plan import ExpelDomain, PlannedCritique
from harness.reflection.insights._prompt import critique_messages


def entity_words(text: str) -> list[str]:
    """The ALFWorld types a text names, lowercased, each once, in order of first mention."""
    seen: list[str] = []
    for name in find_names(normalize_text(text)):
        if name.type.lower() not in seen:
            seen.append(name.type.lower())
    return seen


def evidence_text(critique: Critique, tasks: Sequence[ExperienceTask]) -> str:
    """What a critique read that the environment wrote: its tasks' sentences and the trials it compared."""
    by_id = {task.id: task for task in tasks}
    parts = [by_id[task_id].task for task_id in critique.tasks]
    parts += [by_id[ref.task_id].trials[ref.trial].trajectory for ref in critique.trials]
    return "\n".join(parts)


def unquoted(rule: str, evidence: str) -> list[str]:
    """The rule's entity words the evidence does not name."""
    present = set(entity_words(evidence))
    return [word for word in entity_words(rule) if word not in present]


def gated_answer(ledger: InsightsLedger, critique: Critique, raw_answer: str,
                 evidence: str) -> tuple[InsightsLedger, list[GateRefusal]]:
    """`apply_answer` with the gate: ADD and EDIT naming an unquoted entity are refused before ExpeL counts the rest.

    The step still records every parsed operation, so the refused ones stay visible beside the refusals.
    """
    before = len(ledger.rules)
    prompt_full = ledger.max_num_rules <= before
    list_full = ledger.max_num_rules + 5 <= before
    operations = parse_operations(raw_answer)
    step = len(ledger.steps)
    refusals, passed = [], []
    for operation in operations:
        missing = unquoted(operation.text, evidence) if operation.kind in ("ADD", "EDIT") else []
        if missing:
            refusals.append(GateRefusal(step=step, operation=operation, unquoted=missing))
        else:
            passed.append(operation)
    kept, dropped = update(ledger.rules, passed, list_full, Source(step, critique, raw_answer))
    record = CritiqueStep(
        step=step, critique=critique, raw_answer=raw_answer, operations=operations, prompt_full=prompt_full,
        list_full=list_full, rules=[(rule.text, rule.count) for rule in kept],
    )
    return ledger.model_copy(update={
        "steps": [*ledger.steps, record], "rules": kept, "dropped": [*ledger.dropped, *dropped],
    }), refusals


def gated_extract(planned: Sequence[PlannedCritique], tasks: Sequence[ExperienceTask],
                  ask: Callable[[list[ChatMessage]], str], domain: ExpelDomain, gate: bool,
                  max_num_rules: int = 20) -> tuple[InsightsLedger, list[GateRefusal]]:
    """ExpeL's create_rules over `planned`, each answer gated when `gate` (ungated: exactly `extract`)."""
    ledger, refusals = InsightsLedger(max_num_rules=max_num_rules), []
    for item in planned:
        answer = ask(critique_messages(item, [rule.text for rule in ledger.rules], domain, max_num_rules))
        if gate:
            ledger, refused = gated_answer(ledger, item.critique, answer, evidence_text(item.critique, tasks))
            refusals += refused
        else:
            ledger = apply_answer(ledger, item.critique, answer)
    return ledger, refusals
