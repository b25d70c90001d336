"""A run's rule libraries read back from its insights.jsonl: each as opened (its tasks, options and plant) with the
ledger its recorded answers build, ExpeL's counting replayed, so every rule comes with its history."""

from __future__ import annotations

from pathlib import Path

from harness.records.insights import InsightsLedger
from harness.records.insights_log import CritiqueAnswered, LibraryOpened, read_insights
from harness.reflection.insights._ledger import replay


def run_libraries(run_dir: Path) -> list[tuple[LibraryOpened, InsightsLedger]]:
    """Each library of a run in the order it was opened ([] for a run of memory.scope=trial)."""
    lines = read_insights(run_dir)
    built = []
    for opened in (line for line in lines if isinstance(line, LibraryOpened)):
        answers = sorted(
            (line for line in lines if isinstance(line, CritiqueAnswered)
             and (line.condition, line.fold) == (opened.condition, opened.fold)),
            key=lambda line: line.step,
        )
        built.append((opened, replay(((a.critique, a.raw_answer) for a in answers), opened.max_num_rules)))
    return built
