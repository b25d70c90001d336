"""programmatic: the parser's failure steps reach the reflection prompt and the record."""

from __future__ import annotations

from pathlib import Path

from harness.domains.alfworld.reflection import AlfworldReflection
from harness.reflection import ExtractedSignals, ReflectionInput
from harness.reflection.programmatic import Programmatic
from harness.reflection.self_diagnosis import SelfDiagnosis
from tests.harness.reflection.canned import SCENARIO, TRAJECTORY, CannedAnswer, metered

RENDERED = (
    "Failed steps found in this log by a parser (exact, from the environment's answers):\n"
    "Step 3: `take soapbottle 2 from countertop 1` -> Nothing happens.\n"
    "Steps 4-7: `go to toilet 1`, `go to countertop 1` repeated 2 times in a row.\n"
    "Step 7: the step budget of 7 actions ran out."
)


def trial(end_reason: str = "max_steps") -> ReflectionInput:
    return ReflectionInput(
        domain="alfworld",
        task_id="pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165",
        task_text="put some soapbottle on toilet.",
        scenario=SCENARIO,
        trajectory=TRAJECTORY,
        end_reason=end_reason,
        max_steps=len(TRAJECTORY),
        memory=["an earlier plan"],
    )


def test_signals_are_injected_after_the_scenario_and_kept_with_the_reflection(tmp_path: Path) -> None:
    backend = CannedAnswer(" I will take soapbottle 1.")
    reflection = Programmatic(memory_window=3).reflect(trial(), AlfworldReflection(), metered(backend, tmp_path))
    assert reflection.text == " I will take soapbottle 1."
    details = reflection.details
    assert isinstance(details, ExtractedSignals)
    assert [(n.step, n.action) for n in details.signals.nothing_happens] == [(3, "take soapbottle 2 from countertop 1")]
    assert [(loop.start_step, loop.end_step, loop.cycle, loop.repeats) for loop in details.signals.loops] == [
        (4, 7, ["go to toilet 1", "go to countertop 1"], 2)
    ]
    assert details.signals.budget is not None and details.signals.budget.max_steps == 7
    assert details.signals.exhausted is None
    assert details.rendered == RENDERED
    [prompt] = backend.prompts
    assert prompt.index(SCENARIO) < prompt.index(RENDERED) < prompt.index("Plans from past attempts:")
    assert prompt.endswith("Trial #0: an earlier plan\n\n\nNew plan:")


def test_without_signals_the_prompt_says_so(tmp_path: Path) -> None:
    backend = CannedAnswer(" plan")
    clean = trial("context_overflow").model_copy(update={"trajectory": TRAJECTORY[:2], "max_steps": 10})
    reflection = Programmatic(memory_window=3).reflect(clean, AlfworldReflection(), metered(backend, tmp_path))
    assert isinstance(reflection.details, ExtractedSignals) and not reflection.details.signals.has_failures
    assert "A parser of this log found no failed step." in backend.prompts[0]


def test_the_prompt_is_self_diagnosis_plus_the_signal_block(tmp_path: Path) -> None:
    plain, extracted = CannedAnswer(" plan"), CannedAnswer(" plan")
    SelfDiagnosis(memory_window=3).reflect(trial(), AlfworldReflection(), metered(plain, tmp_path))
    reflection = Programmatic(memory_window=3).reflect(trial(), AlfworldReflection(), metered(extracted, tmp_path))
    assert isinstance(reflection.details, ExtractedSignals)
    assert extracted.prompts[0] == plain.prompts[0].replace(SCENARIO, SCENARIO + "\n\n" + reflection.details.rendered)
