"""The ALFWorld identity rule against reflections labelled by reading (tests/fixtures/identity/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.audit.sources import DEFAULT_ROOT
from harness.domains.alfworld.identity import reflection_identity
from harness.metrics.agreement import agreement
from harness.cli.identity import label_line
from harness.records.identity import IDENTITY_LABELS

LABELS = Path(__file__).resolve().parents[3] / "fixtures" / "identity" / "alfworld_labels.jsonl"
KAPPA_FLOOR = 0.95
CROSS_PAIRED_FLOOR = 0.95
CASE_STUDIES = ("env_22", "env_31", "env_35", "env_97")


def labelled() -> list[dict[str, object]]:
    return [json.loads(line) for line in LABELS.read_text().splitlines()]


def rule_label(item: dict[str, object]) -> str:
    return reflection_identity(str(item["text"]), str(item["task"])).label


def test_the_labelled_set_holds_what_the_issue_asks() -> None:
    items = labelled()
    sources = {item["source"] for item in items}
    assert len(items) >= 150
    assert {"published_reflexion", "published_base", "embedded", "cross_paired", "planted"} <= sources
    assert all(item["label"] in IDENTITY_LABELS and str(item["reason"]).strip() for item in items)
    # Every reflection of the four case-study environments, read off the published log itself.
    final = json.loads((DEFAULT_ROOT / "alfworld_runs/root/reflexion_run_logs/env_results_trial_14.json").read_text())
    memories = {env["name"]: env["memory"] for env in final}
    texts = {str(item["text"]) for item in items if item["source"] == "published_reflexion"}
    for env in CASE_STUDIES:
        assert memories[env] and set(memories[env]) <= texts, env


def test_the_rule_agrees_with_reading() -> None:
    items = labelled()
    result = agreement([(str(item["label"]), rule_label(item)) for item in items], IDENTITY_LABELS)
    print("confusion matrix (rows: reading, columns: rule, order", result.labels, "):", result.matrix)
    print(f"n = {result.n}, observed {result.observed:.3f}, kappa {result.kappa:.3f}")
    assert result.kappa is not None and result.kappa >= KAPPA_FLOOR


def test_reflections_paired_with_another_game_come_out_off_task() -> None:
    crossed = [item for item in labelled() if item["source"] == "cross_paired"]
    off = sum(rule_label(item) == "off_task" for item in crossed)
    assert len(crossed) >= 30 and off / len(crossed) >= CROSS_PAIRED_FLOOR


@pytest.mark.parametrize(
    ("task", "text", "label", "deciding"),
    [
        # The right object and a wrong one as goals.
        ("pick_and_place_simple-SaltShaker-None-Cabinet-10",
         "I will take the saltshaker and the peppershaker and put them in cabinet 1.", "off_task", "peppershaker"),
        # The right object under the wrong task type.
        ("pick_cool_then_place_in_recep-Tomato-None-Microwave-10",
         "I should have taken the tomato, heated it, then put it in microwave 1.", "off_task", "heated"),
        # The right object into another receptacle.
        ("pick_and_place_simple-Vase-None-Safe-219", "Next time I will put vase 1 on shelf 12.", "off_task", "shelf"),
        # No object at all.
        ("pick_and_place_simple-Vase-None-Safe-219", "I should explore more carefully.", "vacuous", None),
        # Another object named only as a mistake.
        ("pick_and_place_simple-SoapBottle-None-Toilet-424",
         "I took the spraybottle instead of the soapbottle. I will put the soapbottle on toilet 1.", "on_task", "soapbottle"),
        # ALFWorld's joined names, spaced names, plurals, a receptacle the task uses as its tool.
        ("pick_cool_then_place_in_recep-Potato-None-Microwave-10",
         "I will cool the potatoes with fridge 1 and put one in microwave 1.", "on_task", "potatoes"),
        ("look_at_obj_in_light-CD-None-DeskLamp-308", "I will take cd 1 and turn on desklamp 1.", "on_task", "cd"),
        ("pick_and_place_simple-KeyChain-None-Safe-219", "I should find the key chain on the dresser.", "on_task", "key chain"),
    ],
)  # fmt: skip
def test_the_failures_the_study_describes(task: str, text: str, label: str, deciding: str | None) -> None:
    identity = reflection_identity(text, task)
    assert identity.label == label
    words = [e.text for e in identity.deciding()]
    assert (deciding in words) if deciding else words == []
    for evidence in identity.evidence:
        assert text[evidence.start : evidence.end] == evidence.text


def test_a_task_that_is_no_alfworld_task_is_refused() -> None:
    with pytest.raises(ValueError, match="task folder"):
        reflection_identity("I will take the mug.", "HumanEval/0")


MUG_TO_DESK = "pick_and_place_simple-Mug-None-Desk-308"


@pytest.mark.parametrize(
    ("text", "label", "deciding"),
    [
        # A zero-width space inside this task's object, and inside another object's name.
        ("I will take the mu\u200bg and put it on desk 1.", "on_task", "mu\u200bg"),
        ("I will take the pen\u200bcil 1 and put it on desk 1.", "off_task", "pen\u200bcil"),
        # Fullwidth letters, folded by NFKC.
        ("I will take the \uff4d\uff55\uff47 1 and put it on desk 1.", "on_task", "\uff4d\uff55\uff47"),
        ("I will take the \uff50\uff45\uff4e\uff43\uff49\uff4c 1 and put it on desk 1.", "off_task", None),
        # A negation six words before the receptacle still reaches it: nothing ends its scope in between.
        ("I should not put the mug in the toilet 1; put it on desk 1.", "on_task", "mug"),
        # In a plan, "X instead of Y" chooses X: the wrong receptacle is planned, the right one set aside.
        ("put the mug in toilet 1 instead of desk 1", "off_task", "toilet"),
        # In a narration the other way round: what came after "instead of" was meant.
        ("I put the mug in toilet 1 instead of desk 1. I will take the mug to desk 1.", "on_task", "mug"),
        # Issue 47 item 7: a variation selector or a combining grapheme joiner (both Mn) inside the word hides nothing.
        ("I will take the m\ufe0fug and put it on desk 1.", "on_task", "m\ufe0fug"),
        ("I will take the m\u034fug and put it on desk 1.", "on_task", "m\u034fug"),
        ("I will take the pen\ufe0ecil 1 and put it on desk 1.", "off_task", "pen\ufe0ecil"),
        # Issue 47 item 8: "don't forget" reminds, it does not set aside; a second goal "too" is another goal.
        ("Don't forget the soapbottle 1: I need to put it on desk 1 too.", "off_task", "soapbottle"),
        # "avoid the mug" reaches the mug only: "and take ..." starts a new step, whose object is planned.
        ("I must avoid the mug and take the soapbottle 1 instead.", "off_task", "soapbottle"),
        # The subject of a plan is planned: "the soapbottle is what I need to put on desk 1".
        ("The mug was not the problem; the soapbottle is what I need to put on desk 1.", "off_task", "soapbottle"),
        # A negation reaches every item of its list, past the commas: no goal is planned.
        ("I will not take the soapbottle 1, the cup 1, or the pen 1.", "vacuous", None),
        # ... but not past a comma that starts another step.
        ("I will not take the soapbottle 1, put the mug on desk 1 instead.", "on_task", "mug"),
    ],
)
def test_hostile_spellings_and_scopes(text: str, label: str, deciding: str | None) -> None:
    line = json.dumps({"domain": "alfworld", "task": MUG_TO_DESK, "text": text})
    out = label_line(line, 1, "test")  # one line of `reflexion-identity`
    assert out["label"] == label
    words = [e["text"] for e in out["evidence"] if e["counts"]]
    assert deciding is None or deciding in words
    for evidence in out["evidence"]:
        assert text[evidence["start"] : evidence["end"]] == evidence["text"]
