"""report.md's tokens-and-cost section: read from the runs' records and priced by their manifests, never rerun."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.llm import Price, Usage
from harness.records import Manifest, RunPlan, TrialLog, TrialRecord, write_manifest
from harness.report import write_report
from harness.metrics.run import run_metrics, write_metrics
from tests.harness.factories import make_record

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
SALT = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"
CUP = "pick_and_place_simple-Cup-None-Shelf-1/trial_T3"
MINI = Price(prompt_usd_per_million=0.15, completion_usd_per_million=0.60, as_of="2026-11-30, openai.com/api/pricing")


def record(
    trial: int, condition: str, actor: Usage, reflector: Usage, calls: int, hits: int, task: str = MUG
) -> TrialRecord:
    return make_record(trial, None, task=task, condition=condition).model_copy(
        update={
            "usage": actor + reflector,
            "actor_usage": actor,
            "reflector_usage": reflector,
            "llm_calls": calls,
            "cache_hits": hits,
        }
    )


def model(name: str, price: Price | None) -> dict[str, Any]:
    return {"name": name, "price": price.model_dump() if price else None}


def write_run(run_dir: Path, records: list[TrialRecord], conditions: list[dict[str, Any]] | None) -> Path:
    log = TrialLog(run_dir)
    for r in records:
        log.append(r)
    if conditions is not None:
        config = {"conditions": conditions, "experiment": {"trials": 3}}
        started = datetime(2026, 11, 30, tzinfo=timezone.utc)
        write_manifest(
            run_dir,
            Manifest(config=config, package_versions={}, git_commit=None, data_hashes={}, started_at=started),
        )
    return run_dir


def cost_section(report: Path) -> str:
    return report.read_text().split("## Tokens and estimated cost", 1)[1].split("\n## ", 1)[0]


def priced_run(run_dir: Path, task: str = MUG) -> Path:
    """self_diagnosis on gpt-4o-mini in both roles, no_memory on the embedded model, on one task."""
    records = [
        record(0, "self_diagnosis", Usage(prompt_tokens=1_000_000), Usage(completion_tokens=100_000), 3, 1, task),
        record(1, "self_diagnosis", Usage(prompt_tokens=200_000), Usage(), 2, 2, task),
        record(0, "no_memory", Usage(prompt_tokens=500, completion_tokens=20), Usage(), 2, 0, task),
    ]
    mini, embedded = model("gpt-4o-mini", MINI), model("qwen2.5-coder-1.5b", None)
    conditions = [
        {"name": "self_diagnosis", "actor": mini, "reflector": mini},
        {"name": "no_memory", "actor": embedded, "reflector": embedded},
    ]
    return write_run(run_dir, records, conditions)


def test_the_report_prices_each_condition_from_its_records_and_manifest(tmp_path: Path) -> None:
    run = priced_run(tmp_path / "run")
    section = cost_section(write_report([run], run, plots=False))
    # 1.2M tokens in at 0.15 and 0.1M out at 0.60 per million: 0.18 + 0.06.
    assert "| self_diagnosis | 5 | 3 (60%) | 1,200,000 | 100,000 | 0.2400 |" in section
    assert "| no_memory | 2 | 0 (0%) | 500 | 20 | n/a (no price) |" in section
    assert "| total | 7 | 3 (43%) | 1,200,500 | 100,020 | 0.2400 + 520 unpriced tokens |" in section
    assert "without the cache" in section and "as of 2026-11-30, openai.com/api/pricing" in section


def test_pooled_runs_add_their_use_and_a_run_without_records_is_named(tmp_path: Path) -> None:
    # Runs of other tasks pool (runs of the same tasks are kept apart: harness/report/_combine.py).
    first, second = priced_run(tmp_path / "first"), priced_run(tmp_path / "second", task=SALT)
    metrics_only = tmp_path / "metrics_only"
    metrics_only.mkdir()
    plan = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=3)
    write_metrics(metrics_only, run_metrics([make_record(0, None, task=CUP)], plan, {CUP: "Cup"}))
    section = cost_section(write_report([first, second, metrics_only], tmp_path / "out", plots=False))
    assert "| self_diagnosis | 10 | 6 (60%) | 2,400,000 | 200,000 | 0.4800 |" in section
    assert "Not counted, for want of trial records (trials.jsonl): metrics_only." in section


def test_a_run_without_prices_in_its_manifest_is_counted_but_not_priced(tmp_path: Path) -> None:
    records = [record(0, "self_diagnosis", Usage(prompt_tokens=10, completion_tokens=2), Usage(), 1, 1)]
    run = write_run(tmp_path / "old", records, [{"name": "self_diagnosis"}])
    section = cost_section(write_report([run], run, plots=False))
    assert "| self_diagnosis | 1 | 1 (100%) | 10 | 2 | n/a (no price) |" in section
    assert "m: no price (embedded, or unknown)" in section
