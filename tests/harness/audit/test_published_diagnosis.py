"""Reflexion's own HotpotQA reflections diagnosed, in the audit's "paper against its logs": the figure is the spec's
rules on every failed trial of the log, and it moves with what the reflections say."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.audit.audit_markdown import audit_markdown
from harness.audit.audit_model import AuditReport
from harness.audit.hotpotqa_runs import published_records
from harness.audit.paper import paper_checks
from harness.audit.paper_claims import LogsEvidence
from harness.audit.published_diagnosis import DiagnosedLog
from harness.audit.sources import DEFAULT_ROOT
from harness.domains.diagnosis_hit import names_the_loss
from harness.domains.registry import domain_spec

NAME = "hotpotqa_runs/root/CoT/context/last_trial_and_reflexion/100_questions_5_trials.txt"


@pytest.fixture(scope="module")
def diagnosed(published_audit: Path) -> DiagnosedLog:
    """The log as the session's audit diagnosed it (audit.json's `diagnosis`): the main commit's run comes first."""
    report = AuditReport.model_validate_json((published_audit / "audit.json").read_text(encoding="utf-8"))
    assert [log.source for log in report.diagnosis][:1] == [NAME]
    assert all("/CoT/context/" in log.source for log in report.diagnosis)
    return report.diagnosis[0]


def test_the_figure_is_the_specs_rules_on_every_failed_trial(diagnosed: DiagnosedLog) -> None:
    spec = domain_spec("hotpotqa")
    assert spec.truth is not None and spec.claims is not None
    truth, claims = spec.truth.load(), spec.claims.load()
    failed = [r for r in published_records(DEFAULT_ROOT / NAME) if not r.success and r.reflection]
    hits = 0
    for record in failed:
        found = truth(record)
        hits += bool(names_the_loss(found, claims(record, found)))
    assert (diagnosed.reflections, diagnosed.hits) == (len(failed), hits)
    assert sum(diagnosed.categories.values()) == diagnosed.reflections
    assert diagnosed.tasks == len({r.task_id for r in failed})
    # A figure that can move both ways: some reflections name the loss, some do not.
    assert 0 < diagnosed.hits < diagnosed.reflections


def _evidence(logs: list[DiagnosedLog]) -> LogsEvidence:
    return LogsEvidence(rows={}, tasks={}, rated={}, env_to_game={}, env_to_game_name="map", diagnosis=logs)


def test_the_paper_check_reports_it(diagnosed: DiagnosedLog) -> None:
    checks = {check.claim.id: check for check in paper_checks(_evidence([diagnosed]))}
    check = checks["diagnosis_assumption"]
    assert check.verdict == "cannot be checked" and "ALFWorld and HumanEval" in check.reason
    assert f"{diagnosed.hits}/{diagnosed.reflections}" in check.logs and NAME in check.logs
    fewer = diagnosed.model_copy(update={"hits": diagnosed.hits - 1})
    moved = {c.claim.id: c for c in paper_checks(_evidence([fewer]))}["diagnosis_assumption"]
    assert f"{diagnosed.hits - 1}/{diagnosed.reflections}" in moved.logs
    none = {c.claim.id: c for c in paper_checks(_evidence([]))}["diagnosis_assumption"]
    assert none.verdict == "cannot be checked" and none.logs.startswith("no HotpotQA log")


def test_audit_md_shows_each_log(diagnosed: DiagnosedLog, tmp_path: Path) -> None:
    report = AuditReport(logs_dir="logs", env_to_game="map", sources=[], skipped=[], object_mention=[],
                         paper=paper_checks(_evidence([diagnosed])), diagnosis=[diagnosed])  # fmt: skip
    text = audit_markdown(report)
    assert "name the loss" in text and NAME in text
    assert f"{diagnosed.hits}/{diagnosed.reflections}" in text
