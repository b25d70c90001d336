"""The memory gate on rule writes: an ADD or EDIT reaches the library only if every ALFWorld entity it names is
quoted from the trajectories its critique read, and no object-location claim it makes is contradicted by them.

The gate's own rule (harness/gate) keeps a memory item only if it quotes an outside turn: the environment's text is
evidence, the model's own words are not. Here a reflection is the model's own words, so the evidence is the
trajectories alone (the task sentence and each trial's text, never the reflections shown after them), and what must
be quoted is the rule's entity words (ALFWorld's object and receptacle types, `find_names`), each found as a name in
that evidence. Words of advice ("always", "check") are not checked: no trajectory says them, and they carry no task's
content. A location claim ("soapbar 1 from cabinet 1") is checked against where those trajectories first saw the
object (`harness/domains/alfworld/locations.py`): a contradicted one is refused with the observation quoted. Both
read text as the identity rules do (`plain`), so fullwidth letters or a zero-width space hide no word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from harness.domains.alfworld.locations import checked_claims, plain
from harness.domains.alfworld.vocabulary import find_names
from harness.llm import ChatMessage
from harness.records.insights import Critique, ExperienceTask, InsightsLedger, Operation
from harness.records.propagation import GateRefusal
from harness.reflection.insights._ledger import apply_answer
from harness.reflection.insights._plan import ExpelDomain, PlannedCritique
from harness.reflection.insights._prompt import critique_messages


def entity_words(text: str) -> list[str]:
    """The ALFWorld types a text names, lowercased, each once, in order of first mention."""
    return list(_entity_words(text))


@lru_cache(maxsize=4096)
def _entity_words(text: str) -> tuple[str, ...]:
    # A study reads the same rules and trajectories in every build and every null trace.
    return tuple(dict.fromkeys(name.type.lower() for name in find_names(plain(text))))


def evidence_plays(critique: Critique, tasks: Sequence[ExperienceTask]) -> list[str]:
    """What a critique read that the environment wrote: its tasks' sentences, then the trials it compared."""
    by_id = {task.id: task for task in tasks}
    parts = [by_id[task_id].task for task_id in critique.tasks]
    return parts + [by_id[ref.task_id].trials[ref.trial].trajectory for ref in critique.trials]


def evidence_text(critique: Critique, tasks: Sequence[ExperienceTask]) -> str:
    """The critique's evidence as one text."""
    return "\n".join(evidence_plays(critique, tasks))


def unquoted(rule: str, evidence: str) -> list[str]:
    """The rule's entity words the evidence does not name."""
    present = set(entity_words(evidence))
    return [word for word in entity_words(rule) if word not in present]


def contradicted(rule: str, plays: Sequence[str]) -> list[str]:
    """The rule's location claims the plays contradict, each with the observation that does."""
    return [f"{c.claim.words} -- {c.evidence}" for c in checked_claims(rule, plays) if c.verdict == "contradicted"]


def gated_answer(ledger: InsightsLedger, critique: Critique, raw_answer: str, plays: Sequence[str],
                 locations: bool = True) -> tuple[InsightsLedger, list[GateRefusal]]:
    """`apply_answer` with the gate: ADD and EDIT naming an unquoted entity or (with `locations`) a contradicted
    location are refused before ExpeL counts the rest. `plays`: the critique's evidence (`evidence_plays`).

    The step still records every parsed operation, so the refused ones stay visible beside the refusals.
    """
    refusals: list[GateRefusal] = []
    evidence = "\n".join(plays)

    def admit(step: int, operation: Operation) -> bool:
        writes = operation.kind in ("ADD", "EDIT")
        missing = unquoted(operation.text, evidence) if writes else []
        wrong = contradicted(operation.text, plays) if writes and locations else []
        if missing or wrong:
            refusals.append(GateRefusal(step=step, operation=operation, unquoted=missing, contradicted=wrong))
        return not (missing or wrong)

    return apply_answer(ledger, critique, raw_answer, admit), refusals


def gated_extract(planned: Sequence[PlannedCritique], tasks: Sequence[ExperienceTask],
                  ask: Callable[[list[ChatMessage]], str], domain: ExpelDomain, gate: bool,
                  max_num_rules: int = 20, locations: bool = True) -> tuple[InsightsLedger, list[GateRefusal]]:
    """ExpeL's create_rules over `planned`, each answer gated when `gate` (ungated: exactly `extract`); `locations`:
    the gate also checks location claims."""
    ledger, refusals = InsightsLedger(max_num_rules=max_num_rules), []
    for item in planned:
        answer = ask(critique_messages(item, [rule.text for rule in ledger.rules], domain, max_num_rules))
        if gate:
            ledger, refused = gated_answer(ledger, item.critique, answer, evidence_plays(item.critique, tasks),
                                            locations)
            refusals += refused
        else:
            ledger = apply_answer(ledger, item.critique, answer)
    return ledger, refusals
