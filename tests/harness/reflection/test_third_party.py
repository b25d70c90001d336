"""The third-party framing on every shipped domain: the domain's own self-diagnosis request with its instruction, and
nothing else, replaced by prompts/third_party/<domain>.txt; a request that no longer holds the instruction once is
refused in one sentence rather than sent half-framed."""

from __future__ import annotations

import pytest

from harness.domains.alfworld.reflection import AlfworldReflection
from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.domains.hotpotqa.questions import load_questions
from harness.domains.hotpotqa.reflection import HotpotQAReflection
from harness.domains.humaneval.reflection import HumanEvalReflection
from harness.llm.prompts import read_prompt
from harness.records.step import Step
from harness.reflection import source_prompts
from harness.reflection.third_party import SOURCE, FramingError, ThirdPartyFraming

QUESTION = load_questions()[0]


def _trial(domain: str) -> tuple[ReflectionHooks, ReflectionInput]:
    hooks: ReflectionHooks
    if domain == "alfworld":
        hooks, scenario = AlfworldReflection(), "You are in the middle of a room.\n> go to desk 1\nNothing happens."
    elif domain == "hotpotqa":
        hooks, scenario = HotpotQAReflection({QUESTION.id: QUESTION}), "\nThought: x\nAction: Finish[y]"
    else:
        hooks, scenario = HumanEvalReflection(), "Tests failed:\nassert f(1) == 2 # output: 3"
    step = Step(action="def f(x):\n    return x + 2", observation=scenario)
    trial = ReflectionInput(domain=domain, task_id=QUESTION.id, task_text="t", scenario=scenario, trajectory=[step],
                            end_reason="max_steps", max_steps=30, memory=["an earlier plan"], seed=7)
    return hooks, trial


@pytest.mark.parametrize("domain", ["alfworld", "hotpotqa", "humaneval"])
def test_only_the_instruction_changes(domain: str) -> None:
    hooks, trial = _trial(domain)
    framing: ThirdPartyFraming = source_prompts(SOURCE, domain)
    own = hooks.self_diagnosis_request(trial)
    framed = framing.request(own)
    assert framed != own
    wording = read_prompt(f"third_party/{domain}.txt").rstrip()
    if own.kind == "completion":
        assert wording in (framed.prompt or "") and framing.first_person not in (framed.prompt or "")
        back = (framed.prompt or "").replace(framing.third_party, framing.first_person)
        assert back == own.prompt
    else:
        system = [m for m in framed.messages or [] if m.role == "system"]
        assert [m.content for m in system] == [framing.third_party]
        assert [m for m in framed.messages or [] if m.role != "system"] == [
            m for m in own.messages or [] if m.role != "system"]
    assert framed.model_dump(exclude={"prompt", "messages"}) == own.model_dump(exclude={"prompt", "messages"})


def test_a_request_without_its_instruction_once_is_refused() -> None:
    hooks, trial = _trial("alfworld")
    own = hooks.self_diagnosis_request(trial)
    doubled = own.model_copy(update={"prompt": (own.prompt or "") * 2})
    with pytest.raises(FramingError, match="holds its instruction 2 times, not once"):
        source_prompts(SOURCE, "alfworld").request(doubled)
