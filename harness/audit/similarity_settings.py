"""RRR under the similarity settings the study leaves unstated: SequenceMatcher's argument order and its autojunk.

The harness measures with `harness.metrics.core.similarity` (the later reflection first, autojunk on, difflib's
default); the paper checks recompute a published log's frozen tasks under the other choices, so that a count that
rests on one of them says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from cydifflib import SequenceMatcher  # difflib's, compiled (harness/metrics/core.py)

from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD, is_blank

HARNESS_SETTINGS = f"difflib ratio >= {SIMILARITY_THRESHOLD}, the later reflection first, autojunk on"
"""The harness's similarity, as a sentence names it."""


def _repeats(later: str, earlier: str, swapped: bool, autojunk: bool) -> bool:
    """Whether `later` repeats `earlier` under the setting; difflib's cheap upper bounds first, as exact."""
    if is_blank(later) or is_blank(earlier):
        return False  # a blank reflection repeats nothing, under every setting
    first, second = (earlier, later) if swapped else (later, earlier)
    matcher = SequenceMatcher(None, first, second, autojunk=autojunk)
    bounds = (matcher.real_quick_ratio, matcher.quick_ratio, matcher.ratio)
    return all(bound() >= SIMILARITY_THRESHOLD for bound in bounds)


def rrr_with(memory: Sequence[str], swapped: bool = False, autojunk: bool = True) -> float | None:
    """RRR of `memory` with the similarity's arguments swapped (the earlier reflection first) or autojunk off.

    Autojunk drops characters frequent in the second string once it has 200 or more, so both choices move the
    ratios of long reflections. None below two reflections, as RRR.
    """
    if len(memory) < 2:
        return None
    repeats = sum(
        any(_repeats(memory[i], memory[j], swapped, autojunk) for j in range(i))
        for i in range(1, len(memory))
    )
    return repeats / (len(memory) - 1)


def frozen_rrrs(memories: Sequence[Sequence[str]], swapped: bool = False, autojunk: bool = True) -> list[float]:
    """The RRR of every memory frozen under the setting (RRR >= the frozen threshold), in order."""
    rates = [rrr_with(memory, swapped, autojunk) for memory in memories]
    return [rate for rate in rates if rate is not None and rate >= FROZEN_THRESHOLD]
