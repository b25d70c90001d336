"""The "Diagnosis" section: per domain, whether each condition's reflections name the step and cause where their
trial was lost, beside the chance and heuristic rows, with intervals over tasks and the paired effects against
`self_diagnosis` (harness.metrics.diagnosis). It reads diagnosis.jsonl only; where a run has none it says so.

Rule names and task ids are record text: they enter the document as text runs only.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.diagnosis.effects import PairedEffect
from harness.metrics.diagnosis.row import DiagnosisRow, MeasureShare
from harness.metrics.diagnosis.scores import (
    MEASURE_NAMES,
    MEASURES,
    STEP_MEASURES,
    MeasureName,
)
from harness.metrics.diagnosis.summary import (
    STRATA,
    DomainDiagnosis,
    EfficacyLink,
    run_diagnosis,
)
from harness.records.diagnosis_log import TrialDiagnosis, read_diagnosis
from harness.report._runs import RunData
from harness.report.document import Block, BulletList, Code, Paragraph, Section, Table

TITLE = "Diagnosis"
COMMAND = "reflexion-diagnosis RUN_DIR"
MISSING = (
    "No diagnosis: this run was played with metrics.diagnosis=false (the default: ALFWorld's ground truth replays "
    "every failed trial through the engine). "
)


def share_cell(share: MeasureShare) -> str:
    """k/n (share; interval over tasks, or why none), "-" where the measure is undefined for every reflection."""
    if share.share is None:
        return "-"
    if share.no_interval == "expected value":
        return f"{share.share:.1%} (expected)"
    counts = f"{share.count:g}/{share.n}"
    if share.low is None or share.high is None:
        return f"{counts} ({share.share:.0%}; {share.no_interval})"
    return f"{counts} ({share.share:.0%}; {share.low:.0%}-{share.high:.0%})"


def _kind(row: DiagnosisRow) -> str:
    return {"chance": "chance", "heuristic": "heuristic", "condition": "condition"}[row.kind]


def rows_table(rows: Sequence[DiagnosisRow], measures: Sequence[MeasureName] = MEASURE_NAMES) -> Table:
    """One row per condition, heuristic and chance row; a column per measure."""
    headings = {m.name: m.heading for m in MEASURES}
    header = ["row", "kind", "trials (tasks)", "steps named", *(headings[m] for m in measures)]
    body = [
        [row.name, _kind(row), f"{row.trials} ({row.tasks})",
         "-" if row.claimed_steps is None else f"{row.claimed_steps:.2f}",
         *(share_cell(row.measures[m]) for m in measures)]
        for row in rows
    ]
    return Table(header, body)


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def effects_table(effects: Sequence[PairedEffect]) -> Table:
    """Each condition minus the control: McNemar over the paired trajectories, permutation and interval over tasks."""
    header = ["condition", "measure", "pairs", "discordant (+/-)", "McNemar p (Holm)", "tasks",
              "difference over tasks [95% CI]", "permutation p (Holm)"]
    body = []
    for e in effects:
        d = e.over_tasks
        difference = "-" if d.difference is None else f"{d.difference:+.2f}"
        interval = "" if d.ci_low is None or d.ci_high is None else f" [{d.ci_low:+.2f}, {d.ci_high:+.2f}]"
        body.append([e.condition, e.measure, str(e.pairs), f"{e.discordant[0]}/{e.discordant[1]}",
                     f"{_p(e.mcnemar_p)} ({_p(e.mcnemar_holm)})", str(d.n), difference + interval,
                     f"{_p(d.p)} ({_p(e.over_tasks_holm)})"])
    return Table(header, body)


def efficacy_table(links: Sequence[EfficacyLink]) -> Table:
    header = ["condition", "next trial solved after an exact hit", "after a miss"]
    return Table(header, [[link.condition, share_cell(link.after_hit), share_cell(link.after_miss)] for link in links])


def domain_section(found: DomainDiagnosis) -> Section:
    """One domain's tables."""
    blocks: list[Block] = [
        Paragraph(f"{found.trajectories} failed trajectories with a reflection; decisive causes: "
                  + (", ".join(f"{k} {v}" for k, v in found.categories.items()) or "none scored") + "."),
        Paragraph("Scored by ", *[part for rule in found.rules for part in (Code(rule), " ")],
                  "(ground truth computed from the environment, never shown to a condition). Each cell: reflections "
                  "scoring 1 / reflections where the measure is defined (the mean over tasks of each task's share; "
                  "its 95% interval over tasks). The chance row is the expectation of a step drawn uniformly from the "
                  "trial's steps."),
        rows_table(found.rows),
    ]
    if found.unscored:
        blocks.append(Paragraph("Unscored (never guessed):"))
        blocks.append(BulletList(found.unscored))
    for stratum, rows in found.strata.items():
        table = rows_table(rows, (*STEP_MEASURES, "cause")) if rows else Paragraph("No scored trial here.")
        blocks.append(Section(STRATA[stratum], [table]))
    if found.efficacy:
        blocks.append(Section("Efficacy: does a right diagnosis help the next trial?", [efficacy_table(found.efficacy)]))
    if found.effects:
        blocks.append(Section(f"Paired effects against {found.control}", [effects_table(found.effects)]))
    return Section(f"{found.domain}", blocks)


def diagnosis_section(found: Sequence[DomainDiagnosis] | None, command: str = COMMAND) -> Section:
    """The section, or the sentence saying the diagnosis is missing and how to compute it."""
    if found is None:
        return Section(TITLE, [Paragraph(MISSING, "Compute it for this run with ", Code(command),
                                         " (or play with metrics.diagnosis=true); docs/diagnosis.md says how.")])
    if not found:
        return Section(TITLE, [Paragraph("No failed trial with a reflection: nothing to diagnose.")])
    intro = Paragraph("Does each reflection name the step and the cause where its trial was lost? Definitions, "
                      "validation and limits: docs/diagnosis.md.")
    return Section(TITLE, [intro, *(domain_section(domain) for domain in found)])


def runs_diagnosis_section(runs: Sequence[RunData]) -> Section:
    """The runs' diagnosis.jsonl as one section, each run's conditions in its order; the runs without one named."""
    found: list[TrialDiagnosis] = []
    missing = []
    for run in runs:
        items = read_diagnosis(run.path)
        if items is None:
            missing.append(run.name)
        else:
            found += items
    if missing and not found:
        return diagnosis_section(None, COMMAND if len(runs) == 1 else f"{COMMAND} (for {', '.join(missing)})")
    conditions = list(dict.fromkeys(c.condition for run in runs for c in run.metrics.conditions))
    section = diagnosis_section(run_diagnosis(found, conditions))
    if not missing:
        return section
    note = Paragraph(f"No diagnosis.jsonl in {', '.join(missing)}: their reflections are left out; ", Code(COMMAND),
                     " computes it.")
    return Section(TITLE, [note, *section.blocks])
