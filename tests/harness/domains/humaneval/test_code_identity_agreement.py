"""The HumanEval identity rule against reflections labelled by reading (tests/fixtures/identity/): the development
split the rule was written on, and the held-out split a new reader labelled after the rule was frozen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.domains.humaneval.identity import line_identity
from harness.metrics.agreement import agreement
from harness.records.identity import IDENTITY_LABELS

LABELS = Path(__file__).resolve().parents[3] / "fixtures" / "identity" / "humaneval_labels.jsonl"
KAPPA_FLOOR = {"dev": 0.85, "held_out": 0.80}
CROSS_PAIRED_FLOOR = 0.90


SPLITS = {"dev": 193, "held_out": 144}


def labelled(split: str | None = None) -> list[dict[str, object]]:
    items = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    return [item for item in items if split is None or item["split"] == split]


def rule_label(item: dict[str, object]) -> str:
    """As `reflexion-identity` reads the item: the feedback only where it is known."""
    line = {"task": item["task"], "text": item["text"]}
    if item.get("failed_test"):
        line["failed_test"] = item["failed_test"]
    return line_identity(line).label


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


@pytest.mark.parametrize("split", SPLITS)
def test_reflections_presented_for_another_problem_come_out_off_task(split: str) -> None:
    # Those a reader read off_task: a cross-paired source that names nothing of its own task reads vacuous.
    crossed = [item for item in labelled(split) if item["source"] == "cross_paired" and item["label"] == "off_task"]
    off = sum(rule_label(item) == "off_task" for item in crossed)
    assert len(crossed) >= 5 and off / len(crossed) >= CROSS_PAIRED_FLOOR
