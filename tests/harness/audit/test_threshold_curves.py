"""The audit's threshold curves on the published ALFWorld log: each point is the frozen count of the metrics' own RRR
at that threshold over the tasks with RRR, the set point 16 of 31 (the paper's 16 of 50 divides by tasks with memory),
and audit.md shows figure and table."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from harness.audit.audit_model import AuditReport
from harness.audit.audit_report import write_audit
from harness.audit.paper import ALFWORLD_RUN
from harness.audit.sources import DEFAULT_ROOT, discover_sources, load_source
from harness.audit.task_rrr import task_rrrs
from harness.audit.threshold_curves import audit_curves
from harness.metrics.core import is_frozen, reflection_repetition_rate
from harness.report import THRESHOLD_CURVES


def alfworld_curves():
    (source,) = [s for s in discover_sources(DEFAULT_ROOT) if s.name == ALFWORLD_RUN]
    tasks = load_source(source)
    return tasks, audit_curves([(source.name, tasks, task_rrrs(tasks))])


def test_each_point_is_the_frozen_count_at_that_threshold() -> None:
    tasks, (curve,) = alfworld_curves()
    with_rrr = [t.reflections for t in tasks if len(t.reflections) >= 2]
    assert curve.tasks == len(with_rrr) == 31
    for point in [*curve.similarity, *curve.frozen]:
        rates = [reflection_repetition_rate(m, point.similarity_threshold) for m in with_rrr]
        assert point.frozen_tasks == sum(is_frozen(r, point.frozen_threshold) for r in rates)
    (at_set,) = [p for p in curve.similarity if p.similarity_threshold == 0.85]
    assert at_set.frozen_tasks == 16
    assert len({p.frozen_tasks for p in curve.similarity}) > 2


def test_audit_md_shows_the_curves(tmp_path: Path) -> None:
    _, curves = alfworld_curves()
    report = AuditReport(
        logs_dir="logs", env_to_game="map", sources=[], skipped=[], object_mention=[], threshold_curves=curves
    )
    _, md_path = write_audit(report, tmp_path)
    with Image.open(tmp_path / THRESHOLD_CURVES) as image:
        assert image.format == "PNG"
    section = md_path.read_text().split("## Threshold curves", 1)[1].split("\n## ", 1)[0]
    assert f"]({THRESHOLD_CURVES})" in section
    assert f"| ALFWorld: {ALFWORLD_RUN} | " in section and "0.52 (16/31)" in section
