"""Resume checks: made under the run directory's lock, records without a manifest refused, refusals short."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from harness.run.preparation import prepare_run
from harness.errors import RecordCorruptError, RecordsWithoutManifestError, ResumeMismatchError, RunDirBusyError
from harness.records import TRIALS_FILE, Manifest, TrialLog, write_manifest
from harness.run import resume
from harness.run.config_dirs import CONFIG_DIR
from harness.run.config import RunConfig
from harness.run.validation import validate_config
from harness.run.experiment import Experiment
from harness.run.lock import RunLock
from harness.run.resume import ADOPT_OVERRIDE, adopt_unmanifested, check_resumable, resume_config
from tests.harness.factories import make_record
from tests.runner import REPLAY_CACHE


def compose_config(*overrides: str) -> DictConfig:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def composed(*overrides: str) -> RunConfig:
    return validate_config(compose_config(*overrides))


def resolved(*overrides: str) -> dict[str, Any]:
    return composed(*overrides).model_dump(mode="json")


def test_the_manifest_is_read_with_the_run_directory_locked(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second process that starts while this one checks the manifest must find the directory taken; else it could
    write its own manifest and records between this check and this run's first write."""
    seen: list[str] = []
    read = resume.read_manifest

    def competing_process_tries(path: Path) -> Any:
        try:
            RunLock.acquire(path).release()
            seen.append("the other process got the run directory")
        except RunDirBusyError:
            seen.append("refused")
        return read(path)

    monkeypatch.setattr(resume, "read_manifest", competing_process_tries)
    run_dir.mkdir()
    prepared = prepare_run(compose_config("llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}"))
    assert prepared.domain is not None
    experiment = Experiment(prepared.config, prepared.domain, prepared.selection, run_dir)
    experiment.close()
    assert seen == ["refused"]


def test_records_without_a_manifest_are_refused_and_adopted_only_when_asked(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    for trial in range(2):
        log.append(make_record(trial, "look elsewhere"))
    current = resolved()
    with pytest.raises(RecordsWithoutManifestError) as refused:
        resume_config(tmp_path, current, 2)
    assert str(refused.value).startswith(f"{tmp_path} holds 2 trial record(s) but no manifest.json, so ")
    assert ADOPT_OVERRIDE in str(refused.value)
    previous, adopted = resume_config(tmp_path, resolved("+resume.adopt_records=true"), 2)
    assert previous is None
    assert adopted["resume"]["adopted"]["records"] == 2 and adopted["resume"]["adopted"]["gate"] is False
    # A later resumption keeps the record of the adoption, as it keeps earlier changes.
    assert check_resumable(adopted, current)["resume"]["adopted"] == adopted["resume"]["adopted"]
    assert adopt_unmanifested(tmp_path / "empty", 0, current) is current


def test_a_gate_store_without_a_manifest_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "gate" / "gated").mkdir(parents=True)
    (tmp_path / "gate" / "gated" / "decisions.jsonl").write_text("")
    with pytest.raises(RecordsWithoutManifestError, match="holds 0 trial record\\(s\\) and a gate store but no"):
        adopt_unmanifested(tmp_path, 0, resolved())


def refusal(previous: dict[str, Any], current: dict[str, Any]) -> str:
    with pytest.raises(ResumeMismatchError) as refused:
        check_resumable(previous, current)
    return str(refused.value)


def test_a_refusal_names_the_settings_that_differ_not_the_whole_config() -> None:
    added = refusal(resolved(), resolved("strategy=[self_diagnosis,no_memory]"))
    assert added.startswith("this run directory was started with conditions.no_memory=unset, not {'name': 'no_memory'")
    assert len(added) < 300, added
    model = refusal(resolved(), resolved("model=smollm2-135m"))
    assert "actor.model='qwen2.5-coder-1.5b', not 'smollm2-135m'" in model and len(model) < 600, model
    for key in ("reflector.model", "conditions.self_diagnosis.reflector.name", "conditions.self_diagnosis.actor.name"):
        assert key in model
    steps = refusal(resolved(), resolved("env.max_steps=12", "env.set=smoke"))
    assert steps.startswith("this run directory was started with env.max_steps=30, not 12; env.set='demo', not 'smoke'; ")


def test_sampling_shapes_trials_but_repeats_only_add_chains_and_older_manifests_read_as_the_defaults() -> None:
    changed = refusal(resolved(), resolved("sampling.actor.temperature=0.7"))
    assert changed.startswith("this run directory was started with sampling.actor.temperature=None, not 0.7")
    assert check_resumable(resolved(), resolved("experiment.repeats=3"))["experiment"]["repeats"] == 3
    before = resolved()
    before.pop("sampling")
    before["experiment"] = {k: v for k, v in before["experiment"].items() if k not in ("repeats", "held_out")}
    assert check_resumable(before, resolved())["resume"] == {"allow_config_change": False, "adopt_records": False}


def test_the_conditions_are_compared_by_name_not_by_position() -> None:
    previous = resolved("strategy=[self_diagnosis,no_memory]")
    assert check_resumable(previous, resolved("strategy=[no_memory,self_diagnosis]"))["resume"] == {
        "allow_config_change": False,
        "adopt_records": False,
    }


def test_fewer_records_than_the_manifest_saw_are_refused(tmp_path: Path) -> None:
    """Lines removed from a finished run's trials.jsonl would otherwise be played again without a word."""
    log = TrialLog(tmp_path)
    for trial in range(2):
        log.append(make_record(trial, "look elsewhere"))
    config = resolved()
    started = datetime(2026, 1, 1, tzinfo=timezone.utc)
    manifest = Manifest(config=config, package_versions={}, git_commit=None, data_hashes={}, started_at=started)
    write_manifest(tmp_path, manifest.model_copy(update={"status": "finished", "records": 2}))
    assert resume_config(tmp_path, config, 2)[0] is not None
    path = tmp_path / TRIALS_FILE
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])
    missing = r"holds 1 trial record\(s\), but its manifest.json saw 2, so 1 went missing; "
    with pytest.raises(RecordCorruptError, match=missing):
        resume_config(tmp_path, config, len(TrialLog(tmp_path, repair=False).records))


def test_an_unreadable_trial_log_is_named(tmp_path: Path) -> None:
    (tmp_path / TRIALS_FILE).mkdir()
    with pytest.raises(RecordCorruptError, match=f"^{tmp_path / TRIALS_FILE} is not a regular file \\(a directory"):
        TrialLog(tmp_path, repair=False)
