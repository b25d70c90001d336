"""A sequence of critiques and the critic's answers, folded into the rule library with every rule's history."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from harness.llm import ChatMessage
from harness.records.insights import Critique, CritiqueStep, InsightsLedger, Operation
from harness.reflection.insights._counting import Source, screen, update
from harness.reflection.insights._operations import parse_operations
from harness.reflection.insights._plan import ExpelDomain, PlannedCritique
from harness.reflection.insights._prompt import critique_messages


def apply_answer(
    ledger: InsightsLedger,
    critique: Critique,
    raw_answer: str,
    admit: Callable[[int, Operation], bool] | None = None,
) -> InsightsLedger:
    """The ledger after one critique's answer, as ExpeL's extend_rules counts it. `admit(step, operation)`, where
    given, decides which parsed operations are counted (a gate); the step records them all."""
    before = len(ledger.rules)
    # Both judged on the list the critic was shown, before this answer changes it.
    prompt_full = ledger.max_num_rules <= before
    list_full = ledger.max_num_rules + 5 <= before
    operations = parse_operations(raw_answer)
    step = len(ledger.steps)
    counted = operations if admit is None else [o for o in operations if admit(step, o)]
    screened = {id(parsed) for parsed, _ in screen([rule.text for rule in ledger.rules], counted)}
    kept, dropped = update(ledger.rules, counted, list_full, Source(step, critique, raw_answer))
    record = CritiqueStep(
        step=step, critique=critique, raw_answer=raw_answer, operations=operations,
        screened_out=[o for o in counted if id(o) not in screened], prompt_full=prompt_full,
        list_full=list_full, rules=[(rule.text, rule.count) for rule in kept],
    )
    return ledger.model_copy(update={
        "steps": [*ledger.steps, record], "rules": kept, "dropped": [*ledger.dropped, *dropped],
    })


def replay(answers: Iterable[tuple[Critique, str]], max_num_rules: int = 20) -> InsightsLedger:
    """The rule library a sequence of (critique, raw answer) builds from an empty list, with full provenance."""
    ledger = InsightsLedger(max_num_rules=max_num_rules)
    for critique, raw_answer in answers:
        ledger = apply_answer(ledger, critique, raw_answer)
    return ledger


def extract(planned: Sequence[PlannedCritique], ask: Callable[[list[ChatMessage]], str], domain: ExpelDomain,
            max_num_rules: int = 20) -> InsightsLedger:
    """ExpeL's create_rules: each critique asked in turn (`ask` returns the critic's answer), shown the rules so far."""
    ledger = InsightsLedger(max_num_rules=max_num_rules)
    for item in planned:
        messages = critique_messages(item, [rule.text for rule in ledger.rules], domain, max_num_rules)
        ledger = apply_answer(ledger, item.critique, ask(messages))
    return ledger
