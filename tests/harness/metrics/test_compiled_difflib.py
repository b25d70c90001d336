"""The metrics measure similarity with cydifflib's SequenceMatcher, difflib's compiled: it must give the ratios,
bounds and matching blocks difflib gives, on the study's own reflections and on the strings that reach difflib's
special cases (empty, blank, identical, 200 characters and more where autojunk starts)."""

from __future__ import annotations

import difflib
import random

import cydifflib
import pytest

from harness.audit.sources import SkippedSourceError, discover_sources, load_source

PAIRS = 200  # sampled from the published memories: difflib itself takes seconds for many more


def published_pairs() -> list[tuple[str, str]]:
    """Later and earlier reflection of one memory, sampled from every readable published source."""
    pairs = []
    for source in discover_sources():
        try:
            tasks = load_source(source)
        except SkippedSourceError:
            continue
        for task in tasks:
            memory = task.reflections
            pairs += [(memory[i], memory[j]) for i in range(1, len(memory)) for j in range(i)]
    return random.Random(0).sample(pairs, PAIRS)


PLANTED = [
    ("", ""),
    ("", "look in the drawer"),
    ("   \n", "   \n"),
    ("go to desk 1", "go to desk 1"),
    ("a" * 199, "a" * 200),
    ("ab " * 80, "ba " * 80),
    ("I should take the mug. " * 12, "I should take the cup. " * 12),
    ("é und ü — 💡 plan", "e und u - plan"),
]


def same(first: str, second: str, autojunk: bool) -> bool:
    plain = difflib.SequenceMatcher(None, first, second, autojunk=autojunk)
    compiled = cydifflib.SequenceMatcher(None, first, second, autojunk=autojunk)
    return (
        plain.real_quick_ratio() == compiled.real_quick_ratio()
        and plain.quick_ratio() == compiled.quick_ratio()
        and plain.ratio() == compiled.ratio()
        and [tuple(b) for b in plain.get_matching_blocks()] == [tuple(b) for b in compiled.get_matching_blocks()]
    )


def test_the_compiled_matcher_agrees_with_difflib_on_the_published_reflections() -> None:
    pairs = published_pairs()
    assert sum(len(a) >= 200 for a, _ in pairs) > PAIRS // 4, "too few long reflections to exercise autojunk"
    differing = [
        (a, b, autojunk)
        for later, earlier in pairs
        for a, b in ((later, earlier), (earlier, later))
        for autojunk in (True, False)
        if not same(a, b, autojunk)
    ]
    assert differing == []


@pytest.mark.parametrize(("first", "second"), PLANTED, ids=[f"planted{i}" for i in range(len(PLANTED))])
def test_the_compiled_matcher_agrees_with_difflib_on_the_special_cases(first: str, second: str) -> None:
    for autojunk in (True, False):
        assert same(first, second, autojunk) and same(second, first, autojunk)
