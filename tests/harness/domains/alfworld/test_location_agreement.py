"""The location-claim rule and the copy rule against labels: the claim rule against 97 places of the published
reflections labelled by reading (tests/fixtures/location_claims/README.md), the copy rule against every pair of
published reflections cross-paired (a reflection copies only a text identical to it)."""

from __future__ import annotations

import itertools
import json

from harness.audit.expert_trajectories import published_tasks, reflecting
from harness.domains.alfworld.locations import location_claims
from harness.metrics.agreement import agreement
from harness.reflection.insights.copies import ReadText, copied_from
from tests.runner import ROOT

LABELLED = ROOT / "tests" / "fixtures" / "location_claims" / "labelled.jsonl"


def test_the_claim_rule_agrees_with_the_labels_read() -> None:
    rows = [json.loads(line) for line in LABELLED.read_text().splitlines()]
    pairs = [("claim" if row["claim"] else "no",
              "claim" if any(row["text"].lower().endswith(c.words) for c in location_claims(row["text"])) else "no")
             for row in rows]
    found = agreement(pairs, ["claim", "no"])
    assert found.n == 97 and found.matrix[1][0] == 0  # no place read as a claim that is none
    assert found.kappa is not None and found.kappa >= 0.9


def test_the_copy_rule_finds_a_reflection_in_itself_and_seldom_in_another() -> None:
    texts = {task.task_id: task.reflections[0].strip() for task in reflecting(published_tasks())}
    pairs = []
    for a, b in itertools.product(sorted(texts)[::5], sorted(texts)):  # a tenth of the 2,500 pairs: kept cheap
        source = ReadText(kind="reflection", task_id=b, trial=0, text=texts[b])
        pairs.append(("copy" if texts[a] == texts[b] else "no",
                      "copy" if copied_from(texts[a], [source]) else "no"))
    found = agreement(pairs, ["copy", "no"])
    assert found.matrix[0][1] == 0  # every reflection is a copy of itself
    assert found.kappa is not None and found.kappa >= 0.8
