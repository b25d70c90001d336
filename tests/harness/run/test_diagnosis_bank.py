"""The re-reflection bank: every source on every stored trajectory (exact pairs), resumed without asking twice, ground
truths reused only for the same steps; on the HotpotQA demo run, its self_diagnosis sends the run's own request byte
for byte (the same cache key) and its third-party framing differs from it in the instruction alone.

Its reflector is a stand-in (tests/diagnosis_walks.py, no LLM): the committed bank recorded with the embedded model
is replayed in tests/harness/run/test_diagnosis_bank_recorded.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.llm import (
    CacheConfig,
    CachedLLM,
    CacheStore,
    LLMRequest,
    LLMResponse,
    ModelConfig,
    Usage,
)
from harness.records.diagnosis_bank import REFLECTIONS_FILE, TRUTH_FILE, truth_log
from harness.records.diagnosis_log import read_diagnosis
from harness.reflection import get_source
from harness.run.config_dirs import option_files
from harness.run.diagnosis_bank_config import DiagnosisBankConfig
from harness.run.scenarios.diagnosis_bank import (
    BankDomains,
    collect,
    reflect,
    run_diagnosis_bank,
)
from tests.diagnosis_walks import (
    CLOSER,
    WRONG,
    StandInReflector,
    register_walks_bank,
    walk_record,
    write_walk_run,
)

QWEN = ModelConfig.model_validate(OmegaConf.to_container(OmegaConf.load(option_files("model")["qwen2.5-coder-1.5b"])))
SOURCES = ["self_diagnosis", "programmatic", "grounded_template", "third_party"]


@pytest.fixture(scope="module")
def source_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    register_walks_bank()
    walk = [("north", CLOSER), ("east", WRONG), ("east", WRONG)]
    records = [
        walk_record("w/1", walk, "step 2"),
        walk_record("w/1", walk, "step 3", condition="programmatic"),  # the same steps: one trajectory
        walk_record("w/1", walk[:2], None, trial=1),  # another trajectory of w/1: per_task keeps the first
        walk_record("w/2", walk[1:], None),
        walk_record("w/3", walk, None, success=True),
    ]
    return write_walk_run(tmp_path_factory.mktemp("walks") / "run", records)


def _bank(source_run: Path, run_dir: Path, reflector: StandInReflector, truths: Path | None = None) -> list:
    config = DiagnosisBankConfig(runs=[str(source_run)], sources=SOURCES, truths=str(truths) if truths else None,
                                 cache=CacheConfig(mode="off", path=str(run_dir.parent / "cache.jsonl")))
    llm = CachedLLM(reflector, CacheStore(run_dir.parent / "cache.jsonl"), "off")  # type: ignore[arg-type]
    return run_diagnosis_bank(config, QWEN, run_dir, llm)


def test_every_source_diagnoses_every_trajectory_and_a_resume_asks_nothing_twice(source_run: Path,
                                                                                  tmp_path: Path) -> None:
    reflector = StandInReflector()
    found = _bank(source_run, tmp_path / "bank", reflector)
    pairs = sorted((d.task_id, d.condition) for d in found)
    assert pairs == sorted((task, source) for task in ("w/1", "w/2") for source in SOURCES)
    assert len(reflector.prompts) == 8
    w1 = {d.condition: d for d in found if d.task_id == "w/1"}
    assert {d.trajectory_sha256 for d in w1.values()} == {w1["self_diagnosis"].trajectory_sha256}
    assert w1["self_diagnosis"].claims.claimed_steps == [3]  # type: ignore[union-attr]
    bank = tmp_path / "bank" / REFLECTIONS_FILE
    lines = bank.read_bytes().splitlines(keepends=True)
    bank.write_bytes(b"".join(lines[:-1]))  # stopped before the last reflection was written
    (tmp_path / "bank" / "diagnosis.jsonl").unlink()
    again = StandInReflector()
    assert len(_bank(source_run, tmp_path / "bank", again)) == 8 and len(again.prompts) == 1


def test_a_stored_truth_is_reused_only_for_the_same_steps(source_run: Path, tmp_path: Path) -> None:
    _bank(source_run, tmp_path / "first", StandInReflector())
    stored = truth_log(tmp_path / "first" / TRUTH_FILE).read()
    planted = [t.model_copy(update={"truth": t.truth.model_copy(update={"rule": "earlier/0"})}) for t in stored]
    planted[1] = planted[1].model_copy(update={"trajectory_sha256": "0" * 64})
    earlier = tmp_path / "earlier.jsonl"
    truth_log(earlier).append(planted)
    found = _bank(source_run, tmp_path / "second", StandInReflector(), truths=earlier)
    assert sorted(d.truth.rule for d in found) == ["earlier/0"] * 4 + ["walks-truth/1"] * 4
    assert read_diagnosis(tmp_path / "second") is not None


class KeyOnly:
    """A stand-in backend (no LLM) under the recorded backend's identity, so the bank's cache keys are comparable."""

    def __init__(self, identity: str) -> None:
        self.identity = identity

    def generate(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse(text=" I should read the question again.", usage=Usage(), latency_s=0.0)


def test_self_diagnosis_sends_the_runs_own_request_and_the_framing_changes_only_the_instruction(
    hotpotqa_demo_run: Path, tmp_path: Path
) -> None:
    config = DiagnosisBankConfig(runs=[str(hotpotqa_demo_run)], cache=CacheConfig(mode="off", path="unused"))
    domains = BankDomains()
    items = [i for i in collect(config, domains) if i.record.reflection is not None
             and i.record.condition == "self_diagnosis"]
    assert items, "the demo's self_diagnosis failed trials with a reflection"
    recorded = [c for c in items[0].record.calls if c.role == "reflector"]
    llm = CachedLLM(KeyOnly(recorded[0].backend), CacheStore(tmp_path / "c.jsonl"), "off")  # type: ignore[arg-type]
    domain = domains.get(items[0].env)
    own = reflect(items[0], get_source("self_diagnosis")(memory_window=1), domain, llm, QWEN)
    framed = reflect(items[0], get_source("third_party")(memory_window=1), domain, llm, QWEN)
    assert [c.key for c in own.record.calls] == [c.key for c in recorded]
    assert framed.record.calls[0].key != recorded[0].key
    assert own.record.condition == "self_diagnosis" and framed.record.condition == "third_party"
