"""The page's two per-reflection measures, in harness.metrics.core: the most similar earlier reflection (the same
ratios and threshold RRR counts) and where a reflection names its object (the same rules object mention counts)."""

from __future__ import annotations

import difflib

import pytest

from harness.audit import discover_sources, load_source
from harness.metrics.core import (
    SIMILARITY_THRESHOLD,
    most_similar_earlier,
    reflection_repetition_rate,
)
from harness.metrics.object_mention import mentions_object, object_mention_spans

PUBLISHED_ALFWORLD = ("alfworld_runs/root/reflexion_run_logs", "alfworld_runs/root/base_run_logs")


@pytest.fixture(scope="module")
def published_memories() -> list[list[str]]:
    """Every memory of two or more reflections in the published ALFWorld runs."""
    sources = [s for s in discover_sources() if s.name in PUBLISHED_ALFWORLD]
    return [task.reflections for s in sources for task in load_source(s) if len(task.reflections) >= 2]


def test_the_nearest_earlier_reflection_is_every_ratio_s_maximum_on_the_published_logs(
    published_memories: list[list[str]],
) -> None:
    assert len(published_memories) == 71
    for memory in published_memories:
        matches = most_similar_earlier(memory)
        assert matches[0] is None
        for i, match in enumerate(matches[1:], start=1):
            ratios = [difflib.SequenceMatcher(None, memory[i], memory[j]).ratio() for j in range(i)]
            assert match is not None
            assert (match.index, match.similarity) == (ratios.index(max(ratios)), max(ratios))


def test_the_repeats_it_marks_are_the_ones_rrr_counts(published_memories: list[list[str]]) -> None:
    marked = 0
    for memory in published_memories:
        repeats = [m.repeats for m in most_similar_earlier(memory) if m is not None]
        assert sum(repeats) / (len(memory) - 1) == reflection_repetition_rate(memory)
        marked += sum(repeats)
    assert marked > 50


def test_ties_go_to_the_earliest_and_an_empty_memory_has_no_match() -> None:
    matches = most_similar_earlier(["same text", "same text", "same text"])
    assert [(m.index, m.similarity) for m in matches if m] == [(0, 1.0), (0, 1.0)]
    assert most_similar_earlier([]) == [] and most_similar_earlier(["one"]) == [None]
    assert matches[1] is not None and matches[1].repeats and SIMILARITY_THRESHOLD == 0.85


@pytest.mark.parametrize(
    ("reflection", "target"),
    [
        ("Take the SaltShaker, then the salt shaker 2 and Salt-Shakers.", "SaltShaker"),
        ("Mugshots are not mugs; Mug 1 is.", "Mug"),
        ("Mugshot.", "Mug"),
        ("put cd 2 in safe 1, not the cdrom", "CD"),
        ("nothing here", "Mug"),
    ],
)
def test_spans_are_where_each_rule_finds_the_object(reflection: str, target: str) -> None:
    spans = object_mention_spans(reflection, target)
    for variant in ("strict", "normalized"):
        found = [reflection[s.start : s.end] for s in spans if s.variant == variant]
        assert bool(found) is mentions_object(reflection, target, variant)
        for text in found:
            assert mentions_object(text, target, variant)
    strict = [reflection[s.start : s.end] for s in spans if s.variant == "strict"]
    assert strict == [target] * reflection.count(target)
