"""audit.md's section on the task identity of the HumanEval and HotpotQA runs, beside each run's RRR and frozen
counts."""

from __future__ import annotations

from harness.audit.audit_model import AuditReport
from harness.audit.source_audit import SourceAudit
from harness.audit.task_identity import SourceIdentity
from harness.domains.hotpotqa.identity import IDENTITY_NOTE as HOTPOTQA_NOTE
from harness.domains.humaneval.identity import IDENTITY_NOTE as HUMANEVAL_NOTE
from harness.metrics.identity import IdentityCounts
from harness.report.document import Code, Paragraph, Part, Section, Table

HEADER = [
    "domain", "source", "tasks labelled", "reflections: on / off task / vacuous", "frozen", "avg RRR, frozen",
    "avg RRR, with RRR", "frozen tasks' reflections: on / off task / vacuous",
]  # fmt: skip


def _shares(counts: IdentityCounts) -> str:
    if not counts.reflections:
        return "none"
    cells = [f"{counts.count(label)} ({counts.count(label) / counts.reflections:.0%})" for label in
             ("on_task", "off_task", "vacuous")]  # fmt: skip
    return f"{' / '.join(cells)} of {counts.reflections}"


def _rrr(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _row(identity: SourceIdentity, row: SourceAudit | None) -> list[Part]:
    unknown = f" ({identity.tasks_unknown} not shipped)" if identity.tasks_unknown else ""
    return [
        identity.domain,
        Code(identity.source),
        f"{identity.tasks_labelled}{unknown}",
        _shares(identity.identity),
        "n/a" if row is None else f"{row.n_frozen}/{row.n_with_rrr}",
        _rrr(row.avg_rrr_frozen if row else None),
        _rrr(row.avg_rrr_with_rrr if row else None),
        _shares(identity.frozen_identity),
    ]


def identity_section(report: AuditReport) -> Section:
    """One row per HumanEval or HotpotQA run with reflections, with the rules in a sentence each."""
    rows = {row.source: row for row in report.sources}
    labelled = [identity for identity in report.identity if identity.identity.reflections]
    rule = Paragraph(
        "Each reflection labelled against its own task alone (",
        Code("reflexion-identity"),
        "'s rules; the logs keep no test feedback and no answer beside a reflection, so neither is used): ",
        HUMANEVAL_NOTE, " ", HOTPOTQA_NOTE,
        " frozen: frozen tasks / tasks with RRR (at least two reflections). Both rules were checked against ",
        "reflections labelled by reading ",
        Code("tests/fixtures/identity/"), ".",
    )  # fmt: skip
    table = Table(HEADER, [_row(identity, rows.get(identity.source)) for identity in labelled])
    return Section("Task identity in the HumanEval and HotpotQA runs", [rule, table])
