"""The ALFWorld diagnosis rules against the labels read by hand (tests/fixtures/diagnosis/alfworld/): the decisive
step (exact, within 2), the trial's category, the hit and the confabulated flag (Cohen's kappa and the confusion
matrix, harness/metrics/agreement.py), by split. Ground truths come from the committed `truths.jsonl` (no engine);
claims are read live.

    python -m tests.harness.domains.alfworld.diagnosis_agreement     # prints the tables of the fixture's README
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from harness.domains.alfworld.diagnosis_claims import reflection_claims
from harness.metrics.agreement import Agreement, agreement
from harness.records.diagnosis import ALFWORLD_CAUSES, GroundTruth
from harness.records.step import Step

FIXTURE = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "diagnosis" / "alfworld"
CAUSES = (*ALFWORLD_CAUSES, "none")


def _lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURE / name).read_text().splitlines()]


@dataclass(frozen=True)
class Figures:
    """One split's agreement between the reading and the rules."""

    items: int
    trials: int
    exact: float
    within_2: float
    category: Agreement
    hit: Agreement
    confabulated: Agreement
    cause: Agreement
    claimed_exact: float


READERS = {"A": "labels.jsonl", "B": "second_reader.jsonl"}
"""Reader A labelled before the rules (and the held-out split after they were frozen); reader B, blind, read the
GUIDELINE and the shuffled items only, after."""


@cache
def figures(split: str | None = None, reader: str = "A") -> Figures:
    """The agreement of the rules with one reader over one split (None: every item)."""
    items = {item["id"]: item for item in _lines("items.jsonl")}
    truths = {line["trajectory"]: GroundTruth.model_validate(line["truth"]) for line in _lines("truths.jsonl")}
    split_of = {label["id"]: label["split"] for label in _lines("labels.jsonl")}
    labels = [label for label in _lines(READERS[reader]) if split is None or split_of[label["id"]] == split]
    exact = within = claimed_exact = 0
    category, hit, confabulated, cause = [], [], [], []
    for label in labels:
        item, truth = items[label["id"]], truths[label["trajectory"]]
        steps = [Step(**step) for step in item["steps"]]
        claims = reflection_claims(item["reflection"], steps, str(truth.facts.get("room", "")))
        read, ruled = label["decisive_step"], truth.decisive_step
        exact += read == ruled
        within += read == ruled or (read is not None and ruled is not None and abs(read - ruled) <= 2)
        category.append((label["category"], truth.category or "other"))
        hit.append((str(read is not None and read in label["claimed_steps"]), str(ruled is not None and ruled in claims.claimed_steps)))
        confabulated.append((str(label["confabulated"]), str(claims.confabulated)))
        cause.append((label["cause"], claims.cause or "none"))
        claimed_exact += sorted(label["claimed_steps"]) == claims.claimed_steps
    n = len(labels)
    return Figures(
        items=n,
        trials=len({label["trajectory"] for label in labels}),
        exact=exact / n,
        within_2=within / n,
        category=agreement(category, ALFWORLD_CAUSES),
        hit=agreement(hit, ("True", "False")),
        confabulated=agreement(confabulated, ("True", "False")),
        cause=agreement(cause, CAUSES),
        claimed_exact=claimed_exact / n,
    )


def matrix(table: Agreement) -> str:
    """A confusion matrix in Markdown (rows: reading, columns: the rule), empty rows and columns left out."""
    used = [i for i, _ in enumerate(table.labels) if sum(table.matrix[i]) or sum(row[i] for row in table.matrix)]
    lines = ["| reading \\ rule | " + " | ".join(table.labels[i] for i in used) + " |", "|---" * (len(used) + 1) + "|"]
    lines += [f"| {table.labels[i]} | " + " | ".join(str(table.matrix[i][j]) for j in used) + " |" for i in used]
    return "\n".join(lines)


def _kappa(table: Agreement) -> str:
    return "undefined" if table.kappa is None else f"{table.kappa:.2f}"


def report(reader: str = "A") -> str:
    parts = []
    for split in ("development", "held_out", None):
        f = figures(split, reader)
        parts += [
            f"### reader {reader}, {split or 'all'}: {f.items} reflections on {f.trials} trials",
            "",
            f"- decisive step: exact {f.exact:.0%}, within 2 steps {f.within_2:.0%}",
            f"- category kappa {_kappa(f.category)} ({f.category.observed:.0%} alike); hit kappa {_kappa(f.hit)} "
            f"({f.hit.observed:.0%}); confabulated kappa {_kappa(f.confabulated)} ({f.confabulated.observed:.0%}); "
            f"cause named kappa {_kappa(f.cause)} ({f.cause.observed:.0%}); claimed steps identical {f.claimed_exact:.0%}",
            "",
            "Category", "", matrix(f.category), "", "Hit", "", matrix(f.hit), "", "Confabulated", "", matrix(f.confabulated),
            "", "Cause named", "", matrix(f.cause), "",
        ]
    return "\n".join(parts)


if __name__ == "__main__":
    print(report("A"))
    print(report("B"))
