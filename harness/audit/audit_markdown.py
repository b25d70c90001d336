"""audit.md's document: the per-source table, the conventions behind it, object mention and the frozen ALFWorld
environments; rendered to audit.md and to the top of audit.html."""

from __future__ import annotations

from harness.audit.alfworld_mention import AlfworldMention
from harness.audit.audit_model import AuditReport
from harness.audit.identity_markdown import identity_section
from harness.audit.semantic_markdown import semantic_section
from harness.audit.source_audit import AuditSpearman, SourceAudit
from harness.audit.paper_claims import PaperClaim, verdict_counts
from harness.audit.threshold_curves import CURVE_RULE
from harness.domains.alfworld.identity import IDENTITY_NOTE
from harness.metrics.core import FROZEN_THRESHOLD, SIMILARITY_THRESHOLD, MentionCounts
from harness.metrics.identity import IdentityCounts
from harness.report import THRESHOLD_CURVES
from harness.report.document import (
    Block,
    BulletList,
    Cell,
    Code,
    Document,
    Figure,
    Paragraph,
    Part,
    Section,
    Strong,
    Table,
    Text,
    render_markdown,
)
from harness.report.tables import threshold_tables

NOT_AVAILABLE = "n/a"
TITLE = "Audit of the published Reflexion logs"

CONVENTIONS: list[list[Part]] = [
    ["Memory: a task's reflections at the end of the run, in the order written. \"With memory\": at least one."],
    [
        "RRR (reflection repetition rate): the share of reflections after the first that repeat an earlier one, i.e. ",
        Code(f"difflib.SequenceMatcher(None, later, earlier).ratio() >= {SIMILARITY_THRESHOLD}"),
        ". RRR is undefined, not 0, for a task with fewer than two reflections; \"with RRR\" counts the tasks with at "
        f"least two. Frozen: RRR >= {FROZEN_THRESHOLD}.",
    ],
    [
        "frozen / RRR = frozen tasks / tasks with RRR: the frozen share, as the harness counts it everywhere (a task "
        "without RRR can neither freeze nor not); frozen / memory = frozen tasks / tasks with memory: the paper's "
        f"ALFWorld denominator, kept to check its figures. A ratio or mean with nothing to divide by is "
        f"{NOT_AVAILABLE}, never 0."
    ],
    [
        "avg RRR, frozen: mean over the frozen tasks; avg RRR, with RRR: mean over the tasks with at least two "
        "reflections. Reflections in frozen: reflections held by the frozen tasks."
    ],
    [
        "Spearman of RRR against trials played (the first solved trial + 1, or every trial played when never solved): "
        "over the tasks with at least two reflections (>= 2), and over the tasks with at least one, RRR taken as 0 "
        f"where there is exactly one (>= 1, RRR 0). {NOT_AVAILABLE} with the reason when a counted task has no trial "
        "count in its log (the programming runs keep none) or rho is undefined."
    ],
]


def _number(value: float | None) -> str:
    return NOT_AVAILABLE if value is None else f"{value:.2f}"


def _ratio(value: float | None, numerator: int, denominator: int) -> str:
    return f"{_number(value)} ({numerator}/{denominator})"


def _spearman(result: AuditSpearman) -> str:
    if result.rho is None or result.p is None:
        return f"{NOT_AVAILABLE}, n={result.n}: {result.reason}"
    return f"rho {result.rho:.2f}, p {result.p:.3g}, n={result.n}"


def _source_row(row: SourceAudit) -> list[Part]:
    return [
        row.domain,
        Code(row.source),
        str(row.n_tasks),
        str(row.n_with_memory),
        str(row.n_with_rrr),
        str(row.n_frozen),
        _ratio(row.frozen_ratio_over_rrr, row.n_frozen, row.n_with_rrr),
        _ratio(row.frozen_ratio_over_memory, row.n_frozen, row.n_with_memory),
        _number(row.avg_rrr_frozen),
        _number(row.avg_rrr_with_rrr),
        str(row.reflections_in_frozen),
        *(_spearman(s) for s in row.spearman_rrr_vs_trials),
    ]


SOURCES_HEADER = [
    "domain",
    "source",
    "tasks",
    "with memory",
    "with RRR",
    "frozen",
    "frozen / RRR (the frozen share)",
    "frozen / memory (the paper's)",
    "avg RRR, frozen",
    "avg RRR, with RRR",
    "reflections in frozen",
    "Spearman RRR vs trials, >= 2",
    "Spearman RRR vs trials, >= 1, RRR 0",
]


def sources_table(rows: list[SourceAudit]) -> Table:
    """One row per readable source, in the given (domain-grouped) order."""
    return Table(SOURCES_HEADER, [_source_row(row) for row in rows])


def _mention(counts: MentionCounts, variant: str) -> str:
    rate = counts.strict_rate if variant == "strict" else counts.normalized_rate
    return f"{getattr(counts, variant)}/{counts.reflections}" + (f" ({rate:.0%})" if rate is not None else "")


def _labels(counts: IdentityCounts) -> str:
    return f"{counts.on_task} / {counts.off_task} / {counts.vacuous}"


def mention_table(mentions: list[AlfworldMention]) -> Table:
    """Task identity and object mention per ALFWorld source, over all reflections and over the frozen environments."""
    header = [
        "source",
        "all reflections: on / off task / vacuous",
        "all reflections: strict",
        "all reflections: normalized",
        "frozen environments: on / off task / vacuous",
        "frozen environments: strict",
        "frozen environments: normalized",
    ]
    rows: list[list[Cell]] = [
        [
            Code(m.source),
            _labels(m.all_identity),
            *(_mention(m.all_reflections, variant) for variant in ("strict", "normalized")),
            _labels(m.frozen_identity),
            *(_mention(m.frozen_reflections, variant) for variant in ("strict", "normalized")),
        ]
        for m in mentions
    ]
    return Table(header, rows)


def frozen_env_table(mention: AlfworldMention) -> Table:
    """The frozen environments of one ALFWorld source with their games."""
    header = [
        "env", "game", "target object", "RRR", "reflections", "on / off task / vacuous", "mention, strict",
        "mention, normalized",
    ]  # fmt: skip
    rows: list[list[Cell]] = [
        [
            e.env,
            Code(e.game),
            e.target_object,
            f"{e.rrr:.2f}",
            str(e.mentions.reflections),
            _labels(e.identity),
            str(e.mentions.strict),
            str(e.mentions.normalized),
        ]
        for e in mention.frozen_envs
    ]
    return Table(header, rows)


def skipped_table(report: AuditReport) -> Table:
    rows: list[list[Cell]] = [[Code(s.source), s.domain, s.format, s.reason] for s in report.skipped]
    return Table(["source", "domain", "format", "reason"], rows)


def mention_section(report: AuditReport) -> Section:
    """Object mention per ALFWorld source, then each source's frozen environments."""
    rule = Paragraph(
        "Each ",
        Code("env_N"),
        " is mapped to its game by ",
        Code(report.env_to_game),
        "; the target object is the second dash-separated field of the game's task folder. Cells: reflections naming "
        "the object / reflections. strict: the CamelCase name as a case-sensitive substring (the study's rule); "
        "normalized: case-insensitive, words joined or separated, a plural allowed, as a whole word. On / off task "
        "/ vacuous: the reflections' task-identity labels against the mapped game (",
        IDENTITY_NOTE,
        ").",
    )
    frozen = [
        Section(["Frozen environments of ", Code(m.source)], [frozen_env_table(m)]) for m in report.object_mention
    ]
    return Section(
        "Task identity and object mention in the ALFWorld runs", [rule, mention_table(report.object_mention), *frozen]
    )


PAPER_HEADER = ["figure", "the paper", "the logs", "verdict", "why"]


def _quote(claim: PaperClaim) -> list[Part]:
    """Where the paper states a figure: its sentence or row, then each place it states it again."""
    return [f"{claim.topic} ({claim.source}): ", Text(claim.text), *(Text(f" Again: {r}") for r in claim.restated)]


def paper_section(report: AuditReport) -> Section:
    """Every figure of the paper the logs speak to, recomputed, with its verdict; then where the paper says it."""
    counts = verdict_counts(report.paper)
    summary = Paragraph(
        f"Each figure of the study (Dixit et al., arXiv 2605.29463) that the published logs can speak to, recomputed "
        f"from them by this audit: {counts['agrees']} agree, {counts['differs']} differ, {counts['cannot be checked']} "
        "cannot be checked. The paper's figures and sentences are data in ",
        Code("data/paper/honest_lying_claims.json"),
        " (where each was read is said there); the rest is computed at every run.",
    )
    rows: list[list[Cell]] = [[c.claim.topic, c.claim.figure, c.logs, Strong(c.verdict), c.reason] for c in report.paper]
    quotes = BulletList([_quote(c.claim) for c in report.paper])
    blocks: list[Block] = [summary, Table(PAPER_HEADER, rows), Paragraph("Where the paper says it:"), quotes]
    if report.diagnosis:
        blocks += diagnosis_blocks(report)
    return Section("The paper against its logs", blocks)


DIAGNOSIS_HEADER = [
    "log", "reflections (questions)", "name the loss", "per question", "name its cause",
    "confabulate", "where the trials were lost",
]  # fmt: skip


def diagnosis_blocks(report: AuditReport) -> list[Block]:
    """Reflexion's own HotpotQA reflections against their trials' ground truth, one row per log."""
    first = report.diagnosis[0]
    note = Paragraph(
        "Reflexion's own HotpotQA reflections, each against its failed trial's ground truth (",
        Code(first.truth_rule),
        ", from the supporting facts, the gold answer and the trial's thought and answer, all kept by the logs) as ",
        Code(first.claims_rule),
        " reads them. A reflection names the loss when it points at the decisive supporting fact, or, where no fact "
        "was missed, names the trial's cause (docs/diagnosis.md). The no-context logs are left out: their agents read no "
        "paragraphs, which the rules' grounding assumes.",
    )
    rows: list[list[str | Code]] = [
        [
            Code(log.source),
            f"{log.reflections} ({log.tasks})",
            f"{log.hits}/{log.reflections} ({log.hits / log.reflections:.0%})",
            _number(log.task_mean_hit),
            f"{log.cause_agrees}/{log.reflections}",
            f"{log.confabulated}/{log.reflections}",
            ", ".join(f"{category} {count}" for category, count in log.categories.items()),
        ]
        for log in report.diagnosis
    ]
    return [note, Table(DIAGNOSIS_HEADER, rows)]


def threshold_section(report: AuditReport) -> Section:
    """Per domain, how its frozen share moves with each threshold: the sensitivity the paper leaves unmeasured."""
    figure: list[Block] = [Figure("Frozen share per published log as each threshold moves", THRESHOLD_CURVES)]
    blocks: list[Block] = [
        Paragraph(
            f"The share of tasks whose memory is frozen as the similarity threshold moves (frozen at RRR >= "
            f"{FROZEN_THRESHOLD}) and as the frozen threshold moves (repeat at ratio >= {SIMILARITY_THRESHOLD}). "
            f"{CURVE_RULE}"
        ),
        *(figure if report.threshold_curves else []),
        *threshold_tables(report.threshold_curves, "domain: log"),
    ]
    return Section("Threshold curves", blocks)


def audit_document(report: AuditReport) -> Document:
    """The whole audit, as audit.md and the top of audit.html render it."""
    blocks: list[Block] = [
        Paragraph(
            "Logs: ",
            Code(report.logs_dir),
            f". {len(report.sources)} readable sources, {len(report.skipped)} skipped (listed at the end). Written by ",
            Code("reflexion-audit"),
            ".",
        ),
        *([paper_section(report)] if report.paper else []),
        Section("Conventions", [BulletList(CONVENTIONS)]),
        Section("Sources", [sources_table(report.sources)]),
        mention_section(report),
        *([identity_section(report)] if report.identity else []),
        threshold_section(report),
    ]
    if report.semantic is not None:
        blocks.append(semantic_section(report.semantic))
    blocks.append(Section("Skipped sources", [skipped_table(report)]))
    return Document(TITLE, blocks)


def audit_markdown(report: AuditReport) -> str:
    """The whole audit.md."""
    return render_markdown(audit_document(report))
