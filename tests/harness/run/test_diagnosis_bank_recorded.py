"""The re-reflection bank as recorded once with the embedded model (data/diagnosis_bank/), replayed with no model:
every source on every stored trajectory, the table the run prints equal to the committed one, and the stored ground
truths still what the domains' rules compute (a HotpotQA and a HumanEval trajectory recomputed; ALFWorld's replay
costs seconds and is the domain's own test's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records.diagnosis_bank import ITEMS_FILE, TABLE_FILE, TRUTH_FILE, items_log, reflections_log, truth_log
from harness.records.diagnosis_log import read_diagnosis
from harness.run.diagnosis_stage import diagnosis_rules
from harness.run.scenarios.diagnosis_bank import BankDomains
from tests.in_process import run_in_process
from tests.runner import ROOT

BANK = ROOT / "data" / "diagnosis_bank"
SOURCES = ("self_diagnosis", "grounded_template", "programmatic", "third_party")
# The recorded bank's trajectories per domain; issue 49 asks for at least 30, 20 and 15.
RECORDED = {"alfworld": 31, "hotpotqa": 21, "humaneval": 24}


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("bank")
    no_models = root / "no-models"
    no_models.mkdir()
    result = run_in_process("experiment=diagnosis_bank", f"hydra.run.dir={root / 'run'}",
                            env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert list(no_models.iterdir()) == [], "the replay assembled or loaded a model"
    return root / "run", result.stdout


def test_every_source_diagnosed_every_stored_trajectory(replayed: tuple[Path, str]) -> None:
    run_dir, _ = replayed
    items = items_log(run_dir / ITEMS_FILE).read()
    per_domain = {domain: sum(i.domain == domain for i in items) for domain in RECORDED}
    assert per_domain == RECORDED
    written = {(r.trajectory, r.record.condition) for r in reflections_log(run_dir).read()}
    assert written == {(i.id, s) for i in items for s in SOURCES}
    assert len(read_diagnosis(run_dir) or []) == len(written)


def test_the_printed_table_is_the_committed_one(replayed: tuple[Path, str]) -> None:
    run_dir, stdout = replayed
    committed = (BANK / TABLE_FILE).read_text()
    assert stdout == committed
    assert (run_dir / TABLE_FILE).read_text() == committed


def test_the_stored_ground_truths_are_the_rules_own(replayed: tuple[Path, str]) -> None:
    items = {i.id: i for i in items_log(BANK / ITEMS_FILE).read()}
    stored = truth_log(BANK / TRUTH_FILE).read()
    domains = BankDomains()
    try:
        for domain in ("hotpotqa", "humaneval"):
            found = next(t for t in stored if items[t.trajectory].domain == domain)
            item = items[found.trajectory]
            rules = diagnosis_rules(domain, domains.get(item.env).reflection, item.max_steps)
            assert rules.truth(item.record) == found.truth
    finally:
        domains.close()


def test_a_bank_stopped_part_way_resumes_from_its_items_without_asking_twice(tmp_path: Path) -> None:
    """A bank writes no manifest: its bank_items.jsonl, written first, makes the folder its own, so the same command
    on a bank stopped after a few reflections finishes it, each reflection once, as an unstopped bank does."""
    lines = (BANK / ITEMS_FILE).read_text().splitlines(keepends=True)
    domains = ('"domain":"hotpotqa"', '"domain":"humaneval"')
    (tmp_path / "items.jsonl").write_text("".join(next(line for line in lines if d in line) for d in domains))
    settings = ("experiment=diagnosis_bank", f"scenario.items={tmp_path / 'items.jsonl'}")
    whole = run_in_process(*settings, f"hydra.run.dir={tmp_path / 'whole'}")
    assert whole.returncode == 0, whole.stderr[-3000:]
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    (stopped / ITEMS_FILE).write_bytes((tmp_path / "whole" / ITEMS_FILE).read_bytes())
    written = (tmp_path / "whole" / "bank.jsonl").read_text().splitlines(keepends=True)
    (stopped / "bank.jsonl").write_text("".join(written[:3]))
    resumed = run_in_process(*settings, f"hydra.run.dir={stopped}")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    again = (stopped / "bank.jsonl").read_text().splitlines(keepends=True)
    assert again[:3] == written[:3]  # kept as they were, then the rest once each (timings aside)
    assert [_written(line) for line in again] == [_written(line) for line in written]
    assert resumed.stdout == whole.stdout


def _written(line: str) -> tuple[str, str, str | None]:
    record = json.loads(line)
    return record["trajectory"], record["record"]["condition"], record["record"]["reflection"]
