"""The whole audit: every published source through its importer and the same metrics, as audit.json and audit.md."""

from __future__ import annotations

from pathlib import Path

from harness.audit.alfworld_mention import (
    MAPPED_DOMAINS,
    DEFAULT_ENV_TO_GAME,
    alfworld_mention,
    env_targets,
    read_env_to_game,
)
from harness.audit.audit_markdown import audit_markdown
from harness.audit.audit_model import AuditReport, SkippedSource
from harness.audit.errors import LogsDirError
from harness.audit.paper import paper_checks
from harness.audit.paper_claims import LogsEvidence
from harness.audit.published import PublishedTask
from harness.audit.published_diagnosis import diagnose_published
from harness.audit.semantic_audit import semantic_audit
from harness.audit.source_audit import source_audit
from harness.audit.sources import DEFAULT_ROOT, PublishedSource, discover_sources, load_source
from harness.audit.task_identity import source_identity
from harness.audit.task_rrr import task_rrrs
from harness.audit.threshold_curves import audit_curves
from harness.records.identity import ReflectionIdentity
from harness.records.whole_file import write_whole
from harness.metrics.semantic import SEMANTIC_THRESHOLD, EmbeddingCache
from harness.report import THRESHOLD_CURVES, plot_threshold_curves

PROJECT_ROOT = DEFAULT_ROOT.parents[1]
DEFAULT_OUT = PROJECT_ROOT / "results" / "audit"
AUDIT_JSON = "audit.json"
AUDIT_MD = "audit.md"


def _shown(path: Path) -> str:
    """Relative to the project when inside it, so the report does not carry this machine's paths."""
    resolved = Path(path).resolve()
    return resolved.relative_to(PROJECT_ROOT).as_posix() if resolved.is_relative_to(PROJECT_ROOT) else str(resolved)


def _skipped(source: PublishedSource, reason: str) -> SkippedSource:
    return SkippedSource(source=source.name, domain=source.domain, format=source.format, reason=reason)


def run_audit(
    logs_dir: Path = DEFAULT_ROOT,
    env_to_game: Path = DEFAULT_ENV_TO_GAME,
    embeddings: EmbeddingCache | None = None,
    semantic_threshold: float = SEMANTIC_THRESHOLD,
) -> AuditReport:
    """Import every source under `logs_dir`, measure it, and measure object mention on its ALFWorld runs.

    With `embeddings`, every source is also measured by semantic RRR at `semantic_threshold`.
    """
    if not Path(logs_dir).is_dir():
        raise LogsDirError(f"--logs {logs_dir} is not a folder; give the folder that holds the Reflexion logs.")
    mapping, mapping_name = read_env_to_game(env_to_game), _shown(env_to_game)
    loaded: list[tuple[PublishedSource, list[PublishedTask]]] = []
    skipped = []
    for source in discover_sources(logs_dir):
        if source.skip_reason:
            skipped.append(_skipped(source, source.skip_reason))
            continue
        try:
            loaded.append((source, load_source(source)))
        except ValueError as error:
            # A file discovery took for readable but whose rows break the importer: reported, not fatal.
            skipped.append(_skipped(source, f"import failed: {error}"))
    # Loading is fast and measuring is not: check the mapping first.
    targets = {s.name: env_targets(tasks, mapping, mapping_name) for s, tasks in loaded if s.domain in MAPPED_DOMAINS}
    rows, mentions, measured, identities = [], [], [], []
    known_rrr: dict[tuple[str, ...], float | None] = {}
    known_labels: dict[tuple[str, str, str], ReflectionIdentity] = {}
    for source, tasks in loaded:
        rated = task_rrrs(tasks, known_rrr)
        rows.append(source_audit(source.domain, source.name, rated))
        measured.append((source, tasks, rated))
        if source.name in targets:
            mentions.append(alfworld_mention(tasks, rated, mapping, targets[source.name]))
        if (identity := source_identity(source.name, source.domain, tasks, rated, known_labels)) is not None:
            identities.append(identity)
    evidence = LogsEvidence(
        rows={row.source: row for row in rows},
        tasks={source.name: tasks for source, tasks, _ in measured},
        rated={source.name: list(rated) for source, _, rated in measured},
        env_to_game=mapping,
        env_to_game_name=mapping_name,
        identity={identity.source: identity for identity in identities},
        diagnosis=diagnose_published(logs_dir),
    )
    return AuditReport(
        logs_dir=_shown(logs_dir),
        env_to_game=mapping_name,
        sources=sorted(rows, key=lambda row: (row.domain, row.source)),
        skipped=skipped,
        object_mention=mentions,
        identity=sorted(identities, key=lambda identity: (identity.domain, identity.source)),
        semantic=None if embeddings is None else semantic_audit(measured, embeddings, semantic_threshold),
        paper=paper_checks(evidence),
        diagnosis=evidence.diagnosis,
        threshold_curves=audit_curves([(source.name, tasks, rated) for source, tasks, rated in measured]),
    )


def write_audit(report: AuditReport, out_dir: Path) -> tuple[Path, Path]:
    """Write audit.json and audit.md (and the threshold-curve plot it shows) into `out_dir` (created if needed);
    return the two paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if report.threshold_curves:
        plot_threshold_curves(report.threshold_curves, out_dir / THRESHOLD_CURVES, "Frozen share per published log")
    json_path, md_path = out_dir / AUDIT_JSON, out_dir / AUDIT_MD
    write_whole(json_path, report.model_dump_json(indent=2) + "\n")
    write_whole(md_path, audit_markdown(report))
    return json_path, md_path
