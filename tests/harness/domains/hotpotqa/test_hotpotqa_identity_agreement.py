"""The HotpotQA identity rule against reflections labelled by reading (tests/fixtures/identity/): the development
split the rule was written on, the held-out split new readers labelled after each version was frozen, and its fourth
round, which two blind readers labelled after `hotpotqa/4` was frozen (the earlier rounds' misses shaped version 4);
and the stress split, drawn where version 4's new reading acts (reflections in which no name is found) and labelled
by two more blind readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.domains.hotpotqa.identity import reflection_identity
from harness.metrics.agreement import agreement
from harness.records.identity import IDENTITY_LABELS

LABELS = Path(__file__).resolve().parents[3] / "fixtures" / "identity" / "hotpotqa_labels.jsonl"
KAPPA_FLOOR = {"dev": 0.85, "held_out": 0.80}
CROSS_PAIRED_FLOOR = {"dev": 0.90, "held_out": 0.90}
"""Issue 48's aim on held-out items. `hotpotqa/3` stood at 62 of 69 over the first three held-out rounds; version 4
was written on its misses, so those rounds are its development data, and the fourth round is its held-out test."""
FOURTH_ROUND = 405
"""The first id of the fourth round (tests/fixtures/identity/draw_fourth_round.py)."""


SPLITS = {"dev": 235, "held_out": 239}
SOURCES = {"published", "embedded", "planted", "cross_paired"}
STRESS = 49


def labelled(split: str | None = None) -> list[dict[str, object]]:
    items = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    return [item for item in items if split is None or item["split"] == split]


def rule_label(item: dict[str, object], with_answer: bool = True) -> str:
    answer = item.get("attempt_answer") if with_answer else None
    return reflection_identity(str(item["text"]), str(item["task"]), answer).label  # type: ignore[arg-type]


@pytest.mark.parametrize("split", SPLITS)
def test_each_split_is_what_the_readme_describes(split: str) -> None:
    items = labelled(split)
    assert len(items) == SPLITS[split] and len(labelled()) == sum(SPLITS.values()) + STRESS
    assert {item["source"] for item in items} == SOURCES
    assert all(item["label"] in IDENTITY_LABELS and str(item["reason"]).strip() for item in items)
    # A label changed after the first reading says from what, by whom and why (the README lists them).
    assert all({"from", "by", "why"} <= set(item["relabelled"]) for item in items if "relabelled" in item)


@pytest.mark.parametrize("split", SPLITS)
def test_the_rule_agrees_with_reading(split: str) -> None:
    result = agreement([(str(item["label"]), rule_label(item)) for item in labelled(split)], IDENTITY_LABELS)
    print("confusion matrix (rows: reading, columns: rule, order", result.labels, "):", result.matrix)
    print(f"n = {result.n}, observed {result.observed:.3f}, kappa {result.kappa:.3f}")
    assert result.kappa is not None and result.kappa >= KAPPA_FLOOR[split]


def test_without_the_attempts_answer_it_still_agrees() -> None:
    # The audit's published logs give no answer beside a reflection: the question alone must do.
    result = agreement([(str(item["label"]), rule_label(item, False)) for item in labelled()], IDENTITY_LABELS)
    assert result.kappa is not None and result.kappa >= KAPPA_FLOOR["held_out"]


@pytest.mark.parametrize("split", SPLITS)
def test_reflections_presented_for_another_question_come_out_off_task(split: str) -> None:
    # Those a reader read off_task: a cross-paired source that names nothing of its own task reads vacuous.
    crossed = [item for item in labelled(split) if item["source"] == "cross_paired" and item["label"] == "off_task"]
    off = sum(rule_label(item) == "off_task" for item in crossed)
    assert len(crossed) >= 5 and off / len(crossed) >= CROSS_PAIRED_FLOOR[split]


def test_the_fourth_blind_round_meets_the_aim_on_its_own() -> None:
    items = [item for item in labelled("held_out") if int(str(item["id"]).split("-")[1]) >= FOURTH_ROUND]
    assert len(items) == 70
    result = agreement([(str(item["label"]), rule_label(item)) for item in items], IDENTITY_LABELS)
    assert result.kappa is not None and result.kappa >= 0.8
    crossed = [item for item in items if item["source"] == "cross_paired" and item["label"] == "off_task"]
    assert len(crossed) >= 20 and sum(rule_label(item) == "off_task" for item in crossed) / len(crossed) >= 0.9
    # The new reading fires on no natural reflection the readers did not read off task.
    natural = [item for item in items if item["source"] == "published"]
    assert not [item["id"] for item in natural if rule_label(item) == "off_task" and item["label"] != "off_task"]


def test_where_no_name_is_found_another_questions_words_make_it_off_task_and_no_natural_one() -> None:
    # The stress split: nameless reflections only, so it measures the described reading, not the rule at large
    # (`hotpotqa/3` called all 49 vacuous; the natural ones the readers call on_task restate their question's ask in
    # common words, "the number of schools", which no version reads).
    items = labelled("stress")
    assert len(items) == STRESS and {item["source"] for item in items} == {"published", "cross_paired"}
    crossed = [item for item in items if item["source"] == "cross_paired" and item["label"] == "off_task"]
    assert len(crossed) >= 15 and sum(rule_label(item) == "off_task" for item in crossed) / len(crossed) >= 0.85
    natural = [item for item in items if item["source"] == "published"]
    assert len(natural) == 25 and not [item["id"] for item in natural if rule_label(item) == "off_task"]
