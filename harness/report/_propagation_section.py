"""The "Propagation" section of a plant-and-trace run (experiment=propagation): the trace's table over seeds, the gate's
target, the carriers plot, every carrier with its rank, and each build's plant.

Rules, plants and marker words are model, log or config text: they enter the document as text runs only.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records.propagation import PropagationStudy
from harness.reflection.insights.library_trace import library_findings, notable_summary, notable_table
from harness.reflection.insights.trace import RESULT_FILE, Trace, gate_target, rates_table, table
from harness.report.plot_files import CARRIERS_BY_STEP
from harness.report.document import Block, Cell, Code, Document, Figure, Link, Paragraph, Section, Table

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
    found = {(t.seed, t.gate, t.plant, t.plant_step, t.variant): t for t in traces}
    rows: list[list[Cell]] = []
    for build in study.builds:
        plant = build.plant
        t = found[(build.seed, build.gate, plant.kind, plant.step, plant.variant)]
        rows.append([
            _gate(build.gate), plant.kind, str(build.seed), str(plant.variant), Code(plant.task_id), str(plant.step),
            Code(plant.donor) if plant.donor else "-", ", ".join(plant.markers) or "-",
            _step(t.proposed), _step(t.entry), "yes" if t.survives else "no", str(len(build.ledger.steps)),
            str(len(build.cut)),
        ])
    header = ["gate", "plant", "seed", "variant", "planted task", "plant step", "donor", "markers", "proposed",
              "entered", "survives", "critique steps", "cut"]
    return Table(header, rows)


def notable_section(study: PropagationStudy) -> Section:
    """The plant-agnostic trace: rules copied from a text their build read or with a contradicted location claim."""
    findings = library_findings(study)
    header, rows = notable_table(findings)
    body: list[Block] = [Paragraph(notable_summary(findings))]
    body.append(Table(header, rows) if rows else Paragraph("No final rule copies a text read or states a "
                                                           "contradicted location."))
    return Section("Copied and contradicted rules", body)


def propagation_section(study: PropagationStudy, traces: Sequence[Trace]) -> Section:
    """The table (one row per gate and plant kind, over seeds), the gate's target, the plot, carriers and plants."""
    header, rows = table(traces)
    seeds = sorted({b.seed for b in study.builds})
    blocks: list[Block] = [
        Paragraph("Critic ", Code(study.model), "; experience from ", Code(study.source), f"; {len(study.builds)} "
                  f"build(s) over seed(s) {', '.join(map(str, seeds))}. ", study.reads),
        Paragraph("One row per gate, plant kind and plant step, over its seeds and variants; ", Code("none*"),
                  " traces every donor's markers in every clean build (the null). The same tables: ",
                  Code(TRACE_COMMAND), "."),
        Table(header, rows),
        Paragraph(gate_target(traces)),
        Table(*rates_table(traces)),
        Paragraph(Link.to_path("Carriers over critique steps", CARRIERS_BY_STEP),
                  ": rules carrying a marker word after each critique step, per build; the plant's step ringed."),
        Figure("Rules carrying the plant after each critique step, per build", CARRIERS_BY_STEP),
        Section("Carriers", [carriers_table(traces)]),
        notable_section(study),
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
