"""The run-on rule against reflections labelled by reading (tests/fixtures/run_on/), and how records are counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.audit.sources import DEFAULT_ROOT
from harness.metrics.agreement import agreement
from harness.metrics.run_on import (
    RunOnCounts,
    reflection_end,
    record_end,
    run_on_at,
    run_on_counts,
    run_on_warning,
)
from harness.records import TrialRecord
from harness.records.calls import ModelCall
from tests.harness.factories import make_record

LABELS = Path(__file__).resolve().parents[2] / "fixtures" / "run_on" / "reflections.json"
KAPPA_FLOOR = 0.8


def labelled() -> list[dict[str, object]]:
    return json.loads(LABELS.read_text())["items"]


def rule_label(text: str) -> str:
    return "yes" if run_on_at(text) is not None else "no"


def test_the_labelled_set_holds_what_the_issue_asks() -> None:
    items = labelled()
    labels = [item["label"] for item in items]
    assert labels.count("yes") >= 20 and labels.count("no") >= 20
    assert all(str(item["text"]) and str(item["reason"]).strip() and item["source"] for item in items)
    assert {"published_alfworld", "published_hotpotqa", "published_programming", "embedded", "planted"} <= {
        item["source"] for item in items
    }
    # Real run-ons from the embedded models' answers, not only planted ones.
    assert sum(item["source"] == "embedded" and item["label"] == "yes" for item in items) >= 5
    # The published items are the published logs' text, read off the logs themselves.
    memories = {
        memory
        for path in (DEFAULT_ROOT / "alfworld_runs/root").glob("*/env_results_trial_*.json")
        for env in json.loads(path.read_text())
        for memory in env["memory"]
    }
    published = [str(item["text"]) for item in items if item["source"] == "published_alfworld"]
    assert len(published) >= 10 and set(published) <= memories


@pytest.mark.parametrize("split", ["all", "development", "held_out"])
def test_the_rule_agrees_with_reading(split: str) -> None:
    items = [item for item in labelled() if split == "all" or item["split"] == split]
    result = agreement([(str(item["label"]), rule_label(str(item["text"]))) for item in items], ["yes", "no"])
    print(f"{split}: confusion matrix (rows: reading, columns: rule, order {result.labels}): {result.matrix}")
    print(f"{split}: n = {result.n}, observed {result.observed:.3f}, kappa {result.kappa:.3f}")
    assert result.kappa is not None and result.kappa >= KAPPA_FLOOR


@pytest.mark.parametrize(
    ("text", "kind", "marker"),
    [
        (" I will go to desk 2.\n\nYou are in the middle of a room. Looking quickly", "episode", "You are in the middle of a room"),
        (" I will take the mug.\n> go to desk 1\nOn the desk 1, you see a pen 1.", "action", "> go to"),
        (" I will take the mug.\n> think: To solve the task, I need a mug.", "action", "> think:"),
        (" I was stuck.\nOK.", "observation", "OK."),
        ("\nTrial #1: I was stuck.\n\nTrial #2: I was stuck again.", "trial", "Trial #2:"),
        ("I should answer with the full name.Question: Who broke the sound barrier?", "question", "Question:"),
        ("FAILED STEP: > go to desk 1 -> Nothing happens.\nROOT CAUSE: x\nNEW PLAN: y. FAILED STEP: > go to", "template answer", "FAILED STEP:"),
        ("The loop never ends.\n\n[improved impl]:\n```python", "code turn", "[improved impl]:"),
    ],
)  # fmt: skip
def test_each_kind_of_run_on_is_found_where_it_starts(text: str, kind: str, marker: str) -> None:
    found = run_on_at(text)
    assert found is not None and found[:2] == (kind, marker)
    assert text[found[2] :].startswith(marker)


@pytest.mark.parametrize(
    "text",
    [
        # A label opening the answer has nothing before it to run on from.
        "\nTrial #1:  I was stuck in a loop.",
        "> go to cabinet 1 -> On the cabinet 1, you see a vase 1.\nROOT CAUSE: wrong place\nNEW PLAN: go to shelf 1.",
        # Actions, observations and labels inside sentences.
        ' I typed "> go to desk 1" and the environment said "Nothing happens." twice.',
        " In trial #2 I did what I did in Trial #1.",
        "I answered Finish[Paris]; my previous Action: Finish[Paris] was wrong.",
        # The template's three parts once each.
        "FAILED STEP: > go to desk 1 -> Nothing happens.\nROOT CAUSE: x\nNEW PLAN: y",
        "",
    ],
)
def test_what_is_not_a_run_on(text: str) -> None:
    assert run_on_at(text) is None


def test_the_token_limit_comes_from_the_finish_reason_and_stays_unknown_without_one() -> None:
    assert reflection_end(" I was stuck.", "length").hit_limit is True
    assert reflection_end(" I was stuck.", "stop").hit_limit is False
    unknown = reflection_end(" I was stuck.\n> go to desk 1", None)
    assert unknown.hit_limit is None and unknown.ran_on and unknown.kind == "action"
    nothing_kept = reflection_end(None, "length")
    assert nothing_kept.hit_limit is True and not nothing_kept.ran_on and nothing_kept.marker is None


def reflector(finish: str | None) -> ModelCall:
    return ModelCall(role="reflector", key="k", cached=False, backend="openai:m", finish_reason=finish, temperature=0.0)


def actor(finish: str | None) -> ModelCall:
    return ModelCall(role="actor", key="k", cached=False, backend="openai:m", finish_reason=finish, temperature=0.0)


def with_calls(reflection: str | None, *calls: ModelCall, trial: int = 0) -> TrialRecord:
    return make_record(trial, reflection).model_copy(update={"calls": list(calls)})


def test_records_are_counted_by_their_reflector_calls_and_text() -> None:
    records = [
        with_calls(" A plan.\n> go to desk 1", actor("length"), reflector("stop"), trial=0),
        with_calls(" A plan cut", actor("stop"), reflector("length"), trial=1),
        with_calls(None, reflector("length"), trial=2),  # a gated answer nothing of which passed
        with_calls(" A plan, recorded before calls were.", trial=3),
        with_calls(None, actor("stop"), trial=4),  # no reflection asked: not counted
    ]
    assert record_end(records[4]) is None
    assert record_end(records[0]).hit_limit is False  # the actor's limit is not the reflector's
    assert run_on_counts(records) == RunOnCounts(reflections=4, hit_limit=2, ran_on=1, limit_unrecorded=1)


def test_the_warning_names_the_condition_the_counts_and_the_fix() -> None:
    assert run_on_warning("self_diagnosis", RunOnCounts(reflections=9, limit_unrecorded=9)) is None
    warning = run_on_warning("self_diagnosis", RunOnCounts(reflections=9, hit_limit=2, ran_on=3))
    assert warning is not None and warning.startswith("self_diagnosis: 2 of 9 reflection(s) hit the token limit")
    assert "3 ran on" in warning and "model.reflector_stop" in warning and "--n_ctx 8192" in warning
