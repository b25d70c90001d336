"""The "Propagation" section of a plant-and-trace run (experiment=propagation): the trace's table over seeds, the gate's
target, the carriers plot, every carrier with its rank, and each build's plant.

Rules, plants and marker words are model, log or config text: they enter the document as text runs only.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records.propagation import PropagationStudy
from harness.reflection.insights.trace import RESULT_FILE, Trace, gate_target, table
from harness.report._propagation_plot import CARRIERS_BY_STEP
from harness.report.document import Block, Code, Document, Figure, Link, Paragraph, Section, Table

TITLE = "Propagation"
TRACE_COMMAND = "reflexion-trace RUN_DIR"


def _gate(on: bool) -> str:
    return "on" if on else "off"


def _step(step: int | None) -> str:
    return "-" if step is None else str(step)


def carriers_table(traces: Sequence[Trace]) -> Table | Paragraph:
    """Every final rule that carries its build's plant, with its rank, count and identity labels."""
    rows = [
        [_gate(t.gate), t.plant, str(t.seed), str(c.rank), str(c.count), c.text,
         " ".join(f"{k}:{v}" for k, v in sorted(c.identity.items())) or "-"]
        for t in traces for c in t.carriers
    ]
    if not rows:
        return Paragraph("No final rule of any build carries a marker word.")
    return Table(["gate", "plant", "seed", "rank", "count", "rule", "identity over the tasks reached"], rows)


def builds_table(study: PropagationStudy, traces: Sequence[Trace]) -> Table:
    """Each build's plant: where it went, its donor and marker words, and what the trace found."""
    found = {(t.seed, t.gate, t.plant): t for t in traces}
    rows = []
    for build in study.builds:
        t = found[(build.seed, build.gate, build.plant.kind)]
        rows.append([
            _gate(build.gate), build.plant.kind, str(build.seed), Code(build.plant.task_id), str(build.plant.step),
            Code(build.plant.donor) if build.plant.donor else "-", ", ".join(build.plant.markers) or "-",
            _step(t.proposed), _step(t.entry), "yes" if t.survives else "no", str(len(build.ledger.steps)),
        ])
    header = ["gate", "plant", "seed", "planted task", "plant step", "donor", "markers", "proposed", "entered",
              "survives", "critique steps"]
    return Table(header, rows)


def propagation_section(study: PropagationStudy, traces: Sequence[Trace]) -> Section:
    """The table (one row per gate and plant kind, over seeds), the gate's target, the plot, carriers and plants."""
    header, rows = table(traces)
    seeds = sorted({b.seed for b in study.builds})
    blocks: list[Block] = [
        Paragraph("Critic ", Code(study.model), "; experience from ", Code(study.source), f"; {len(study.builds)} "
                  f"build(s) over seed(s) {', '.join(map(str, seeds))}. ", study.reads),
        Paragraph("One row per gate and plant kind, over its seeds; ", Code("none*"), " traces each clean build with "
                  "its seed's off-task markers (the null). The same table: ", Code(TRACE_COMMAND), "."),
        Table(header, rows),
        Paragraph(gate_target(traces)),
        Paragraph(Link.to_path("Carriers over critique steps", CARRIERS_BY_STEP),
                  ": rules carrying a marker word after each critique step, per build; the plant's step ringed."),
        Figure("Rules carrying the plant after each critique step, per build", CARRIERS_BY_STEP),
        Section("Carriers", [carriers_table(traces)]),
        Section("Plants", [builds_table(study, traces)]),
    ]
    return Section(TITLE, blocks)


def propagation_document(study: PropagationStudy, traces: Sequence[Trace], name: str) -> Document:
    """A propagation run's whole report: what it was written from, then the section."""
    return Document(f"Report: {name}", [
        Paragraph("Written by ", Code("reflexion-report"), " from the run's ", Code(RESULT_FILE),
                  "; nothing was rerun."),
        propagation_section(study, traces),
    ])
