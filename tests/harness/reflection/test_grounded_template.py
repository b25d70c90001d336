"""grounded_template: answers parsed into FAILED STEP / ROOT CAUSE / NEW PLAN; malformed ones are never accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.domains.alfworld.reflection import TEMPLATE_ANSWER_PREFIX, AlfworldReflection, action_candidates
from harness.reflection import ReflectionInput, TemplateParts
from harness.reflection.grounded_template import GroundedTemplate, parse_answer, quoted_item, split_parts
from tests.harness.reflection.canned import SCENARIO, TRAJECTORY, CannedAnswer, metered

# The model's answer starts after the prompt's trailing "FAILED STEP:".
GOOD = (
    " > take soapbottle 2 from countertop 1 -> Nothing happens.\n"
    "ROOT CAUSE: The countertop held soapbottle 1, not soapbottle 2.\n"
    "NEW PLAN: Take soapbottle 1 from countertop 1, go to toilet 1 and put it in/on toilet 1.\n"
    "\nYou are in the middle of a room."
)
# What smollm2-135m answered to the first draft of the prompt: the instruction parroted back, no other part.
PARROT = ' The attempt went wrong, copied exactly from a "> " line of the log\n\nFAILED STEP: The attempt went wrong'


ALFWORLD = AlfworldReflection()


def quoted_step(failed_step: str, steps: list) -> int | None:
    return quoted_item(failed_step, action_candidates(steps))


def trial(memory: list[str] | None = None) -> ReflectionInput:
    return ReflectionInput(
        domain="alfworld",
        task_id="pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165",
        task_text="put some soapbottle on toilet.",
        scenario=SCENARIO,
        trajectory=TRAJECTORY,
        end_reason="max_steps",
        max_steps=len(TRAJECTORY),
        memory=memory or [],
    )


def test_a_well_formed_answer_is_split_checked_and_stored_in_canonical_form(tmp_path: Path) -> None:
    backend = CannedAnswer(GOOD)
    reflection = GroundedTemplate(memory_window=3).reflect(trial(["an earlier plan"]), ALFWORLD, metered(backend, tmp_path))
    parts = reflection.details
    assert isinstance(parts, TemplateParts) and not parts.malformed and parts.problems == []
    assert parts.failed_step == "> take soapbottle 2 from countertop 1 -> Nothing happens."
    assert parts.root_cause == "The countertop held soapbottle 1, not soapbottle 2."
    # NEW PLAN ends at the blank line: what follows is the model continuing into another episode.
    assert parts.new_plan == "Take soapbottle 1 from countertop 1, go to toilet 1 and put it in/on toilet 1."
    assert parts.matched_step == 3
    assert reflection.text == (
        "FAILED STEP: > take soapbottle 2 from countertop 1 -> Nothing happens.\n"
        "ROOT CAUSE: The countertop held soapbottle 1, not soapbottle 2.\n"
        "NEW PLAN: Take soapbottle 1 from countertop 1, go to toilet 1 and put it in/on toilet 1."
    )
    [prompt] = backend.prompts
    assert prompt.endswith("Trial #0: an earlier plan\n\nFAILED STEP:")
    assert SCENARIO in prompt and "ROOT CAUSE: I examined stoveburner 1 again and again" in prompt


def test_a_malformed_model_answer_is_recorded_raw_and_kept_out_of_memory(tmp_path: Path) -> None:
    reflection = GroundedTemplate(memory_window=3).reflect(trial(), ALFWORLD, metered(CannedAnswer(PARROT), tmp_path))
    parts = reflection.details
    assert isinstance(parts, TemplateParts)
    assert parts.malformed and parts.raw == PARROT and parts.policy == "skip"
    assert parts.problems == [
        "no ROOT CAUSE part",
        "no NEW PLAN part",
        "FAILED STEP quotes no action that was taken in the episode",
    ]
    assert reflection.text is None


def test_keep_raw_stores_a_malformed_answer_verbatim_and_flags_it(tmp_path: Path) -> None:
    source = GroundedTemplate(memory_window=3, options={"on_malformed": "keep_raw"})
    reflection = source.reflect(trial(), ALFWORLD, metered(CannedAnswer(PARROT), tmp_path))
    assert reflection.text == PARROT.strip()
    assert isinstance(reflection.details, TemplateParts) and reflection.details.malformed
    assert reflection.details.policy == "keep_raw"


@pytest.mark.parametrize(
    ("answer", "problems"),
    [
        (" > go to toilet 1 -> nothing.\nROOT CAUSE:\nNEW PLAN: Look elsewhere.", ["empty ROOT CAUSE part"]),
        (" > go to toilet 1\nNEW PLAN: Look elsewhere.", ["no ROOT CAUSE part"]),
        (
            " > open drawer 3 -> Nothing happens.\nROOT CAUSE: No drawer.\nNEW PLAN: Look elsewhere.",
            ["FAILED STEP quotes no action that was taken in the episode"],
        ),
        # A thought is not a step that can fail in the environment.
        (
            " > think: The soapbottle is likely on the countertop.\nROOT CAUSE: Wrong guess.\nNEW PLAN: Look.",
            ["FAILED STEP quotes no action that was taken in the episode"],
        ),
    ],
)
def test_what_makes_an_answer_malformed(answer: str, problems: list[str]) -> None:
    parts = parse_answer(answer, ALFWORLD.template_candidates(trial()), "skip", TEMPLATE_ANSWER_PREFIX)
    assert parts.malformed and parts.problems == problems


def test_labels_are_found_in_any_case_and_with_markdown_around_them() -> None:
    parts = split_parts("**Failed step**: > go to toilet 1\n- root cause: wrong place\n### NEW PLAN: go back")
    assert parts == {"FAILED STEP": "> go to toilet 1", "ROOT CAUSE": "wrong place", "NEW PLAN": "go back"}


def test_the_longest_quoted_action_names_the_step_and_a_prefix_is_not_a_quote() -> None:
    steps = TRAJECTORY + [TRAJECTORY[1].model_copy(update={"action": "go to countertop 10"})]
    assert quoted_step("> go to countertop 10 -> On it...", steps) == 8
    assert quoted_step("I went to countertop 1 and then GO TO  TOILET 1", steps) == 4
    assert quoted_step("go to countertop 1", steps) == 2  # the earliest of equal quotes
    assert quoted_step("go to countertop", steps) is None
