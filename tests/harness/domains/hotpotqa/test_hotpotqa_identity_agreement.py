"""The HotpotQA identity rule against reflections labelled by reading (tests/fixtures/identity/): the development
split the rule was written on, and the held-out split a new reader labelled after the rule was frozen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.domains.hotpotqa.identity import reflection_identity
from harness.metrics.agreement import agreement
from harness.records.identity import IDENTITY_LABELS

LABELS = Path(__file__).resolve().parents[3] / "fixtures" / "identity" / "hotpotqa_labels.jsonl"
KAPPA_FLOOR = {"dev": 0.85, "held_out": 0.80}
CROSS_PAIRED_FLOOR = {"dev": 0.90, "held_out": 0.85}
"""Issue 48 aims at 0.90 on held-out items: the third round's blind readers put the frozen rule at 17 of 20 (the
README's table), 62 of 69 over the held-out rounds; this floor guards that figure and does not meet the aim."""


SPLITS = {"dev": 235, "held_out": 169}


def labelled(split: str | None = None) -> list[dict[str, object]]:
    items = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    return [item for item in items if split is None or item["split"] == split]


def rule_label(item: dict[str, object], with_answer: bool = True) -> str:
    answer = item.get("attempt_answer") if with_answer else None
    return reflection_identity(str(item["text"]), str(item["task"]), answer).label  # type: ignore[arg-type]


@pytest.mark.parametrize("split", SPLITS)
def test_each_split_is_what_the_readme_describes(split: str) -> None:
    items = labelled(split)
    assert len(items) == SPLITS[split] and len(labelled()) == sum(SPLITS.values())
    assert {"published", "embedded", "planted", "cross_paired"} == {item["source"] for item in items}
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
