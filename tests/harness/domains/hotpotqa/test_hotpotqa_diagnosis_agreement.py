"""HotpotQA's diagnosis rules against reflections labelled by reading (tests/fixtures/diagnosis/hotpotqa/): the dev
split they were written on, the first held-out split (development data for version 2) and the held-out split labelled
after version 2 was frozen. The README's tables are these figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.diagnosis.agreement import (
    decisive_agreement,
    markdown,
    measures,
    scored,
)

README = Path(__file__).resolve().parents[3] / "fixtures" / "diagnosis" / "hotpotqa" / "README.md"
FLOORS = {
    "dev": {"category": 0.9, "hit": 0.9, "confabulated": 0.9, "cause": 0.9},
    "held_out_v1": {"category": 0.9, "hit": 0.9, "confabulated": 0.9, "cause": 0.9},
    "held_out": {"category": 0.8, "hit": 0.7, "confabulated": 0.6, "cause": 0.7},
}
SIZES = {"dev": 86, "held_out_v1": 38, "held_out": 41}


@pytest.mark.parametrize("split", FLOORS)
def test_the_rules_agree_with_the_reading(split: str) -> None:
    found = measures("hotpotqa", split)
    assert {name: found[name].n for name in found} == dict.fromkeys(found, SIZES[split])
    for name, floor in FLOORS[split].items():
        kappa = found[name].kappa
        assert kappa is not None and kappa >= floor, (split, name, kappa)
    same, total = decisive_agreement("hotpotqa", split)
    assert same >= 0.8 * total


def test_every_label_is_one_the_rubric_allows() -> None:
    for item in scored("hotpotqa"):
        label = item.label
        assert label["category"] in {"em_format", "stopped_at_bridge", "hop1_miss", "hop2_misread",
                                     "comparison_misread", "unsupported_answer", "other"}  # fmt: skip
        assert label["reason"].strip() and isinstance(label["hit"], bool)
        # The rubric's hit is derived from the other labels: the decisive fact pointed at, or else the cause.
        if label["decisive_fact"] is not None:
            assert label["hit"] == (label["decisive_fact"] in label["pointed_facts"]), label["id"]
        else:
            assert label["hit"] == (label["cause"] == label["category"] != "other"), label["id"]


def test_the_readme_holds_these_tables() -> None:
    assert markdown("hotpotqa") in README.read_text(encoding="utf-8")
