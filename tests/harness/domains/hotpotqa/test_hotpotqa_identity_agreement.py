"""The HotpotQA identity rule against the development split labelled by reading (tests/fixtures/identity/)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.domains.hotpotqa.identity import reflection_identity
from harness.metrics.agreement import agreement
from harness.records.identity import IDENTITY_LABELS

LABELS = Path(__file__).resolve().parents[3] / "fixtures" / "identity" / "hotpotqa_labels.jsonl"
KAPPA_FLOOR = 0.85
CROSS_PAIRED_FLOOR = 0.90
SOURCE_NAMES_NOTHING = "the source names nothing of its own task"


def labelled() -> list[dict[str, object]]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]


def rule_label(item: dict[str, object], with_answer: bool = True) -> str:
    answer = item.get("attempt_answer") if with_answer else None
    return reflection_identity(str(item["text"]), str(item["task"]), answer).label  # type: ignore[arg-type]


def test_the_dev_split_is_what_the_readme_describes() -> None:
    items = labelled()
    assert len(items) == 109 and {item["split"] for item in items} == {"dev"}
    assert {"published", "embedded", "planted", "cross_paired"} == {item["source"] for item in items}
    assert all(item["label"] in IDENTITY_LABELS and str(item["reason"]).strip() for item in items)


def test_the_rule_agrees_with_reading() -> None:
    result = agreement([(str(item["label"]), rule_label(item)) for item in labelled()], IDENTITY_LABELS)
    print("confusion matrix (rows: reading, columns: rule, order", result.labels, "):", result.matrix)
    print(f"n = {result.n}, observed {result.observed:.3f}, kappa {result.kappa:.3f}")
    assert result.kappa is not None and result.kappa >= KAPPA_FLOOR


def test_without_the_attempts_answer_it_still_agrees() -> None:
    # The audit's published logs give no answer beside a reflection: the question alone must do.
    result = agreement([(str(item["label"]), rule_label(item, False)) for item in labelled()], IDENTITY_LABELS)
    assert result.kappa is not None and result.kappa >= KAPPA_FLOOR


def test_reflections_presented_for_another_question_come_out_off_task() -> None:
    crossed = [
        item for item in labelled()
        if item["source"] == "cross_paired" and SOURCE_NAMES_NOTHING not in str(item["provenance"])
    ]  # fmt: skip
    off = sum(rule_label(item) == "off_task" for item in crossed)
    assert len(crossed) >= 10 and off / len(crossed) >= CROSS_PAIRED_FLOOR
