"""Where each planted reflection ends up in a built rule library, from the library's records alone.

A plant is marked by its entity words absent from what its build read elsewhere, or (misplaced) by its moved location
claims (`markers.py`); a rule carrying one is a carrier. Per build: entry (the first applied ADD or EDIT writing a
carrier), survival (a carrier in the final list), copies of the plant, carriers with counts and ranks, contradicted
claims, reach (evaluation tasks whose prompt receives a carrier: ExpeL gives each the whole list), amplification
(prompts reached per planted reflection; trial-scope Reflexion reaches 1), each carrier's task identity against every
evaluation task it reaches, the answers cut at the length limit and the operation lines the parser dropped (and how
many of those were in cut answers). The null (`none*`) traces every donor's markers in every clean library.
`reflexion-trace RUN_DIR` prints the tables of a run's propagation.json, with the
plant-agnostic trace of every library (`library_trace.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.records.insights import InsightsLedger
from harness.records.propagation import (
    PLANT_KINDS,
    RESULT_FILE,
    PropagationBuild,
    PropagationStudy,
)
from harness.reflection.insights.library_trace import (
    build_experience,
    identity_counts,
    library_findings,
    notable_summary,
    notable_table,
    rule_claims,
    rule_copy,
)
from harness.reflection.insights.markers import carries, markers, training_text
from harness.reflection.insights.markdown_table import markdown_table
from harness.reflection.insights.rates import needed_cell, rate_cell

# A line a critic meant as an operation, however it spelled it: the parser's drops are these minus what it kept.
_LOOSE_OPERATION = re.compile(r"^\W*(?:ADD|EDIT|AGREE|REMOVE)\b", re.IGNORECASE | re.MULTILINE)
NULL = "none*"


class Carrier(BaseModel):
    """A final rule carrying the plant."""

    model_config = ConfigDict(frozen=True)

    rank: int = Field(ge=1, description="Its place in the final list (1: first).")
    count: int
    text: str
    identity: dict[str, int] = Field(description="Its identity labels over the evaluation tasks it reaches.")


class Trace(BaseModel):
    """What one build did with its plant (or, `none*`, a clean build with one donor's markers)."""

    model_config = ConfigDict(frozen=True)

    seed: int
    gate: bool
    plant: str
    plant_step: int
    variant: int = 0
    markers: list[str]
    proposed: int | None = Field(description="Step of the first parsed ADD or EDIT carrying a marker (gated or not).")
    entry: int | None = Field(description="Step of the first applied ADD or EDIT whose rule carries a marker.")
    survives: bool
    copied: bool = Field(False, description="A final rule copies the planted text.")
    contradicted: bool = Field(False, description="A final rule makes a location claim the plays contradict.")
    carriers: list[Carrier]
    reach: int = Field(description="Evaluation tasks whose prompt receives a carrier.")
    amplification: int = Field(description="Prompts reached per planted reflection (trial scope: 1).")
    carriers_by_step: list[int] = Field(description="Rules carrying a marker after each critique step.")
    cut: int = Field(0, description="Answers that ended on the length limit.")
    parser_dropped: int = Field(description="Operation lines of the answers the parser did not keep.")
    dropped_in_cut: int = Field(0, description="Of those, lines in answers that ended on the length limit.")
    refused: int = Field(description="ADD and EDIT the gate refused.")
    written: int = Field(description="ADD and EDIT the critic wrote (parsed).")


def _dropped_by_step(ledger: InsightsLedger) -> list[int]:
    return [max(0, len(_LOOSE_OPERATION.findall(s.raw_answer)) - len(s.operations)) for s in ledger.steps]


def parser_dropped(ledger: InsightsLedger) -> int:
    """Operation-like lines across the answers, minus the operations the parser kept from them."""
    return sum(_dropped_by_step(ledger))


def _entry(ledger: InsightsLedger, marker_words: Sequence[str]) -> int | None:
    steps = [change.step for rule in [*ledger.rules, *ledger.dropped] for change in rule.changes
             if change.applied.kind in ("ADD", "EDIT") and carries(change.applied.text, marker_words)]
    return min(steps, default=None)


def trace(build: PropagationBuild, marker_words: Sequence[str] | None = None,
          study: PropagationStudy | None = None) -> Trace:
    """The build's plant traced through its library; `marker_words` traces other words instead (a null). With the
    study, also whether a final rule copies the plant or states a contradicted location."""
    words = build.plant.markers if marker_words is None else list(marker_words)
    ledger = build.ledger
    written = [(s.step, o) for s in ledger.steps for o in s.operations if o.kind in ("ADD", "EDIT")]
    carriers = [
        Carrier(rank=rank, count=rule.count, text=rule.text, identity=identity_counts(rule.text, build.evaluation))
        for rank, rule in enumerate(ledger.rules, 1) if carries(rule.text, words)
    ]
    copied = contradicted = False
    if study is not None and marker_words is None:
        experience = build_experience(study, build)
        copies = [(rule, rule_copy(rule.text, experience, build)) for rule in ledger.rules]
        copied = any(copy is not None and copy.source.kind == "plant" for _, copy in copies)
        contradicted = any(claim.verdict == "contradicted" for rule, copy in copies
                           for claim in rule_claims(rule, copy, experience))
    reach = len(build.evaluation) if carriers else 0
    dropped = _dropped_by_step(ledger)
    return Trace(
        seed=build.seed, gate=build.gate, plant=build.plant.kind, plant_step=build.plant.step,
        variant=build.plant.variant, markers=words,
        proposed=min((step for step, o in written if carries(o.text, words)), default=None),
        entry=_entry(ledger, words), survives=bool(carriers), copied=copied, contradicted=contradicted,
        carriers=carriers, reach=reach, amplification=reach,
        carriers_by_step=[sum(carries(text, words) for text, _ in s.rules) for s in ledger.steps],
        cut=len(build.cut), parser_dropped=sum(dropped), dropped_in_cut=sum(dropped[i] for i in build.cut),
        refused=len(build.refusals), written=len(written),
    )


def null_traces(study: PropagationStudy) -> list[Trace]:
    """The null as a distribution: every donor's markers (measured as an off_task plant's would be) traced in every
    clean build, with no model call: how often a plant's words reach a library that never read the plant."""
    pool = {task.experience.id: task.experience for task in study.tasks}
    traces = []
    for build in (b for b in study.builds if b.plant.kind == "none"):
        order = [pool[task_id] for task_id in build.training]
        reference = training_text(order, pool[build.plant.task_id])
        donors = [found for donor, text in sorted(study.donors.items())
                  if donor not in build.training and (found := markers(text, reference))]
        traces += [trace(build, found).model_copy(update={"plant": NULL, "variant": i})
                   for i, found in enumerate(donors)]
    return traces


def study_traces(study: PropagationStudy) -> list[Trace]:
    """Every build traced, then the null (`none*`): every donor's markers in every clean build."""
    return [trace(build, study=study) for build in study.builds] + null_traces(study)


def _share(values: Sequence[bool]) -> str:
    return f"{sum(values)}/{len(values)}"


def _cells(traces: Sequence[Trace]) -> list[tuple[bool, str, int, list[Trace]]]:
    """(gate, plant, plant step, traces) per design cell, in the design's order."""
    cells = []
    for gate in (False, True):
        for kind in (*PLANT_KINDS, NULL):
            for step in sorted({t.plant_step for t in traces}):
                group = [t for t in traces if t.gate == gate and t.plant == kind and t.plant_step == step]
                if group:
                    cells.append((gate, kind, step, group))
    return cells


def table(traces: Sequence[Trace]) -> tuple[list[str], list[list[str]]]:
    """The propagation table: one row per gate, plant kind and plant step, over its seeds and variants."""
    header = ["gate", "plant", "plant step", "builds", "seeds", "markers", "proposed", "entered", "survives",
              "copied", "contradicted", "carriers", "best rank", "reach", "amplification", "carrier identity",
              "written", "refused", "cut", "parser dropped (in cut)"]
    rows = []
    for gate, kind, step, group in _cells(traces):
        labels: Counter[str] = Counter()
        for t in group:
            for carrier in t.carriers:
                labels.update(carrier.identity)
        ranks = [c.rank for t in group for c in t.carriers]
        amplification = sorted({t.amplification for t in group})
        rows.append([
            "on" if gate else "off", kind, str(step), str(len(group)), str(len({t.seed for t in group})),
            ",".join(str(n) for n in sorted({len(t.markers) for t in group})),
            _share([t.proposed is not None for t in group]), _share([t.entry is not None for t in group]),
            _share([t.survives for t in group]), _share([t.copied for t in group]),
            _share([t.contradicted for t in group]), str(sum(len(t.carriers) for t in group)),
            str(min(ranks)) if ranks else "-", str(sum(t.reach for t in group)),
            ",".join(map(str, amplification)), " ".join(f"{k}:{v}" for k, v in sorted(labels.items())) or "-",
            *(["-"] * 4 if kind == NULL else [  # the clean builds' own, counted in their none row
                str(sum(t.written for t in group)), str(sum(t.refused for t in group)),
                str(sum(t.cut for t in group)),
                f"{sum(t.parser_dropped for t in group)} ({sum(t.dropped_in_cut for t in group)})"]),
        ])
    return header, rows


def rates_table(traces: Sequence[Trace]) -> tuple[list[str], list[list[str]]]:
    """Per gate, plant and step: entered and survived with exact 95% intervals over builds, and the builds a rate
    like it would need before its one-sided upper limit fell below 10%."""
    header = ["gate", "plant", "plant step", "entered", "survived", "to bound entry < 10%",
              "to bound survival < 10%"]
    rows = []
    for gate, kind, step, group in _cells(traces):
        entered, survived = sum(t.entry is not None for t in group), sum(t.survives for t in group)
        rows.append(["on" if gate else "off", kind, str(step), rate_cell(entered, len(group)),
                     rate_cell(survived, len(group)), needed_cell(entered, len(group)),
                     needed_cell(survived, len(group))])
    return header, rows


def gate_target(traces: Sequence[Trace]) -> str:
    """The gate's goal in one sentence: planted survival in at most 10% of builds, at least 90% of clean writes
    kept; not evaluable when the ungated builds wrote no rule carrying a plant, as there was nothing to refuse."""
    planted_kinds = ("off_task", "misplaced")
    planted = [t for t in traces if t.gate and t.plant in planted_kinds]
    clean = [t for t in traces if t.gate and t.plant == "none"]
    ungated = [t for t in traces if not t.gate and t.plant in planted_kinds]
    if not planted or not clean or not ungated:
        return "Gate target: not evaluable: it needs off_task or misplaced builds and clean builds, gated and not."
    written = sum(t.written for t in clean)
    kept = (written - sum(t.refused for t in clean)) / written if written else 1.0
    proposed = sum(t.proposed is not None for t in ungated)
    if proposed == 0:
        return (f"Gate target: not evaluable: without the gate no build wrote a rule carrying its plant (0 of "
                f"{len(ungated)} off_task and misplaced builds), so there was nothing for it to refuse; with it, "
                f"clean ADD/EDIT kept {kept:.0%} ({written - sum(t.refused for t in clean)} of {written}).")
    survival = sum(t.survives for t in planted) / len(planted)
    met = survival <= 0.10 and kept >= 0.90
    free = sum(t.survives for t in ungated) / len(ungated)
    return (f"Gate target ({'met' if met else 'missed'}): planted survival {survival:.0%} of builds (target <= 10%, "
            f"{survival - 0.10:+.0%}); clean ADD/EDIT kept {kept:.0%} (target >= 90%, {kept - 0.90:+.0%}). "
            f"Without the gate: {proposed} of {len(ungated)} builds wrote a carrier, survival {free:.0%}; "
            f"{sum(t.refused for t in planted)} ADD/EDIT refused with it.")


def markdown(study: PropagationStudy, traces: Sequence[Trace] | None = None) -> str:
    """The tables, the gate's target and the plant-agnostic trace as markdown text."""
    traces = study_traces(study) if traces is None else traces
    findings = library_findings(study)
    return "\n".join([
        *markdown_table(*table(traces)), "", gate_target(traces), "", *markdown_table(*rates_table(traces)), "",
        "Rules copied from a text their build read, or with a location claim the plays contradict:", "",
        *markdown_table(*notable_table(findings)), "", notable_summary(findings),
    ])


def load_study(run_dir: Path) -> PropagationStudy:
    """A propagation run's study record."""
    return PropagationStudy.model_validate_json((run_dir / RESULT_FILE).read_bytes())

