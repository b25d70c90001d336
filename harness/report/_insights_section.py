"""The report's "Rule libraries" section (memory.scope insights or both): each library's final rules with the
operations that made them, replayed from insights.jsonl, and how its evaluation tasks went (evaluation.jsonl).

Every rule, answer and planted text is model or config text: it enters the document as text runs only.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records import TrialRecord
from harness.records.insights import InsightsLedger, Rule, RuleChange
from harness.records.insights_log import EVALUATION_FILE, LibraryOpened
from harness.records.trial import read_trials
from harness.reflection.insights import run_libraries
from harness.report._runs import RunData
from harness.report.document import Block, BulletList, Code, Paragraph, Section, Table

TITLE = "Rule libraries"


def _change(change: RuleChange) -> str:
    critique = change.critique
    read = ", ".join(f"{ref.task_id} trial {ref.trial}" for ref in critique.trials)
    edited = f" (was: {change.previous_text})" if change.previous_text is not None else ""
    return (f"step {change.step} {critique.kind} [{read}]: {change.operation.label} -> {change.applied.label} "
            f"{change.delta:+d} = {change.count}{edited}")


def _rules_table(rules: Sequence[Rule]) -> Table:
    rows = [[str(i), rule.text, str(rule.count), "; ".join(_change(c) for c in rule.changes)]
            for i, rule in enumerate(rules, 1)]
    return Table(["#", "rule", "count", "history (critique step, kind, trials read: operation as parsed -> as "
                  "counted, change = count)"], rows)


def _evaluation(records: Sequence[TrialRecord], opened: LibraryOpened) -> Paragraph:
    mine = [r for r in records if r.condition == opened.condition and r.task_id in opened.evaluation_tasks]
    solved = sorted({r.task_id for r in mine if r.success})
    return Paragraph(f"Evaluation with the library: {len(solved)}/{len(opened.evaluation_tasks)} task(s) solved "
                     f"({len(mine)} trial(s) recorded in {EVALUATION_FILE}).")


def _library(run: RunData, opened: LibraryOpened, ledger: InsightsLedger, records: Sequence[TrialRecord]) -> Section:
    blocks: list[Block] = [
        Paragraph(f"Built from {len(opened.training_tasks)} training task(s) by {len(ledger.steps)} of "
                  f"{opened.critiques} planned critique(s) (read_reflections: {str(opened.read_reflections).lower()}); "
                  f"evaluated on: ", Code(", ".join(opened.evaluation_tasks)), "."),
    ]
    if opened.plant is not None:
        where = "a training task" if opened.plant.in_training else "an evaluation task, so the critic never read it"
        blocks.append(Paragraph("Planted in the memory of ", Code(opened.plant.task), f" ({where}): ",
                                opened.plant.reflection))
    blocks.append(_rules_table(ledger.rules) if ledger.rules else Paragraph("The library holds no rule."))
    if ledger.dropped:
        blocks.append(BulletList([f"dropped: {rule.text} (count {rule.count})" for rule in ledger.dropped]))
    blocks.append(_evaluation(records, opened))
    return Section(f"{run.name}: {opened.condition}, fold {opened.fold}", blocks)


def insights_section(runs: Sequence[RunData]) -> Section | None:
    """The libraries of the runs that built any; None when none did (the section is left out)."""
    sections = []
    for run in runs:
        built = run_libraries(run.path)
        if not built:
            continue
        records = read_trials(run.path, EVALUATION_FILE)
        sections += [_library(run, opened, ledger, records) for opened, ledger in built]
    return Section(TITLE, sections) if sections else None
