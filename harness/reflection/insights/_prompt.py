"""ExpeL's critique request and its rule message, from the texts in `prompts/expel/`.

ExpeL builds the request as two human messages (its "system" template is a human template) that its
collapse_prompts joins with a newline: one user message.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.llm import ChatMessage
from harness.llm.prompts import read_prompt
from harness.reflection.insights._plan import ExpelDomain, PlannedCritique


def numbered(rules: Sequence[str]) -> str:
    """Rules as ExpeL numbers them: `1. <rule>` a line."""
    return "\n".join(f"{i}. {rule}" for i, rule in enumerate(rules, 1))


def critique_messages(planned: PlannedCritique, rules: Sequence[str], domain: ExpelDomain,
                      max_num_rules: int = 20) -> list[ChatMessage]:
    """The request ExpeL sends for one critique, shown the current rules in their order."""
    kind = planned.critique.kind
    system = read_prompt("expel/system.txt").format(
        ai_name=read_prompt("expel/ai_name_rules.txt"),
        instruction=read_prompt(f"expel/{domain}/{kind}_instruction.txt"),
    )
    # An empty list is shown as ExpeL shows it: a lone "1. ".
    slots = {"instruction": "", "success_history": planned.success_history, "existing_rules": numbered(rules or [""])}
    if kind == "compare":
        assert planned.task is not None and planned.fail_history is not None  # a compare critique plans both
        slots |= {"task": planned.task, "fail_history": planned.fail_history}
    template = read_prompt(f"expel/critique_{kind}.txt") + read_prompt("expel/format_rules_operation.txt")
    suffix = read_prompt("expel/suffix_full.txt" if max_num_rules <= len(rules) else "expel/suffix_not_full.txt")
    return [ChatMessage(role="user", content=system + "\n" + template.format(**slots) + suffix)]


def rules_message(rules: Sequence[str], domain: ExpelDomain) -> str:
    """What ExpeL puts before every evaluation task's prompt: the whole list, numbered, in its domain's words."""
    return read_prompt(f"expel/{domain}/rule_template.txt").format(rules=numbered(rules))
