"""Held-out selection: the requests a run shares with its selection run are counted, and env.frozen_in selects the
frozen tasks of an earlier run of the same domain in every domain, refusing anything else in one sentence."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from harness.run.held_out import frozen_tasks, read_selection
from harness.domains.hotpotqa.config import HotpotQAEnvConfig
from harness.domains.hotpotqa.questions import load_questions, select_questions
from harness.domains.humaneval.config import HumanEvalEnvConfig
from harness.domains.humaneval.domain import build as build_humaneval
from harness.errors import GameNotFoundError
from harness.records import Manifest, TrialLog, TrialRecord, read_manifest, write_manifest
from harness.records.calls import ModelCall
from harness.run.held_out import compare_with_selection, selection_run, shared_answers
from tests.harness.factories import make_record
from tests.runner import run_cli
from tests.scripted_server import ScriptedServer

STARTED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def call(key: str) -> ModelCall:
    return ModelCall(role="actor", key=key, cached=False, backend="openai/completion:m", temperature=0.7)


def with_calls(record: TrialRecord, *keys: str, repeat: int = 0) -> TrialRecord:
    return record.model_copy(update={"calls": [call(k) for k in keys], "repeat": repeat})


def run_dir(
    root: Path, name: str, records: list[TrialRecord], env: str = "alfworld", seed: int = 0, status: str = "finished"
) -> Path:
    """A run directory as the harness leaves one: its manifest and its trial records."""
    path = root / name
    path.mkdir()
    config = {"env": {"name": env}, "experiment": {"seed": seed}}
    manifest = Manifest(
        config=config, package_versions={}, git_commit="abc123", data_hashes={}, started_at=STARTED, status=status
    )
    write_manifest(path, manifest)
    log = TrialLog(path)
    for record in records:
        log.append(record)
    return path


def frozen_chain(task: str, condition: str = "self_diagnosis") -> list[TrialRecord]:
    """Three failed trials that wrote the same reflection: RRR 1, frozen."""
    return [make_record(t, "I should look in the drawer.", task=task, condition=condition) for t in range(3)]


def test_shared_requests_are_counted_by_cache_key() -> None:
    selection = [with_calls(make_record(0, "r"), "k1", "k2"), with_calls(make_record(1, "r"), "k3")]
    fresh = [with_calls(make_record(0, "r"), "n1", "n2"), with_calls(make_record(1, "r"), "n3")]
    replayed = [with_calls(make_record(0, "r"), "k1", "n2"), with_calls(make_record(1, "r"), "k3")]
    assert shared_answers(fresh, 1, selection, 0).model_dump() == {"basis": "calls", "compared": 3, "shared": 0}
    assert shared_answers(replayed, 1, selection, 0).model_dump() == {"basis": "calls", "compared": 3, "shared": 2}


def test_without_calls_trials_count_as_shared_by_task_trial_repeat_and_seed() -> None:
    selection = frozen_chain("a/b")
    # Trial 0 asks the same question in every condition; later trials are shared only within the same condition.
    control = [make_record(t, "x", condition="self_diagnosis") for t in range(3)]
    other = [make_record(t, "x", condition="no_memory") for t in range(3)]
    assert shared_answers(control, 0, selection, 0).model_dump() == {"basis": "trials", "compared": 3, "shared": 3}
    assert shared_answers(other, 0, selection, 0).shared == 1
    assert shared_answers(control, 1, selection, 0).shared == 0
    assert shared_answers([with_calls(r, repeat=1) for r in control], 0, selection, 0).shared == 0


def test_the_manifest_names_the_selection_run_and_a_shared_control_is_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    selection_dir = run_dir(tmp_path, "select", [with_calls(r, f"k{r.trial}") for r in frozen_chain("a/b")])
    reading = read_selection(selection_dir)
    named = selection_run(reading)
    assert (named.path, named.started_at, named.git_commit, named.shared) == (str(selection_dir), STARTED, "abc123", None)
    fresh = [with_calls(r, f"n{r.trial}") for r in frozen_chain("a/b")]
    with caplog.at_level(logging.WARNING):
        counted = compare_with_selection(named, fresh, run_seed=1, reading=reading)
    assert (counted.basis, counted.compared, counted.shared) == ("calls", 3, 0) and not caplog.records
    replayed = [with_calls(r, f"k{r.trial}") for r in frozen_chain("a/b")]
    with caplog.at_level(logging.WARNING):
        counted = compare_with_selection(named, replayed, run_seed=0, reading=reading)
    assert counted.shared == 3
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "shares 3 of its 3 request(s)" in warning and str(selection_dir) in warning
    assert read_manifest(selection_dir) is not None


def kept(env: Any) -> frozenset[str]:
    """The held-out tasks a run on `env` hands its domain's builder (harness/run/held_out.py's held_out_tasks)."""
    return frozenset(frozen_tasks(
        env.frozen_in, env.frozen_condition, env.name, env.frozen_similarity_threshold, env.frozen_rrr_threshold
    ))


def test_frozen_in_selects_the_frozen_tasks_of_a_run_of_the_same_domain(tmp_path: Path) -> None:
    plans = ["Sort the list first.", "Handle the empty input before looping.", "Return a tuple, not a list."]
    records = frozen_chain("HumanEval/2") + [make_record(t, plans[t], task="HumanEval/3") for t in range(3)]
    selection = run_dir(tmp_path, "code", records, env="humaneval")
    assert frozen_tasks(str(selection), "self_diagnosis", "humaneval") == {"HumanEval/2"}
    env = HumanEvalEnvConfig(name="humaneval", first_n=5, frozen_in=str(selection))
    assert build_humaneval(env, kept(env)).task_ids() == ["HumanEval/2"]


def test_frozen_in_selects_at_the_env_thresholds_not_the_metrics_settings(tmp_path: Path) -> None:
    """Three reflections, the last two alike: RRR 0.5, frozen at the study's 0.5; not at 0.6."""
    plans = ["Sort the list first.", "Handle the empty input before looping.", "Handle the empty input before looping."]
    records = [make_record(t, plans[t], task="HumanEval/4") for t in range(3)]
    selection = run_dir(tmp_path, "code", records, env="humaneval")
    config = HumanEvalEnvConfig(name="humaneval", first_n=5, frozen_in=str(selection))
    assert build_humaneval(config, kept(config)).task_ids() == ["HumanEval/4"]
    stricter = config.model_copy(update={"frozen_rrr_threshold": 0.6})
    with pytest.raises(GameNotFoundError, match="select no"):
        build_humaneval(stricter, kept(stricter))
    assert frozen_tasks(str(selection), "self_diagnosis", "humaneval", 0.85, 0.6) == set()


def test_frozen_in_on_hotpotqa(tmp_path: Path) -> None:
    first, second = (q.id for q in load_questions()[:2])
    records = frozen_chain(second) + [make_record(0, "one plan", task=first)]
    selection = run_dir(tmp_path, "qa", records, env="hotpotqa")
    env = HotpotQAEnvConfig(name="hotpotqa", first_n=2, frozen_in=str(selection))
    assert [q.id for q in select_questions(env, only=kept(env))] == [second]
    with pytest.raises(GameNotFoundError, match="together select no question"):
        alone = HotpotQAEnvConfig(name="hotpotqa", questions=[first], frozen_in=str(selection))
        select_questions(alone, only=kept(alone))


@pytest.mark.parametrize("domain", ["humaneval", "hotpotqa", "alfworld"])
def test_frozen_in_refusals_are_one_sentence(tmp_path: Path, domain: str) -> None:
    other = "alfworld" if domain != "alfworld" else "humaneval"
    elsewhere = run_dir(tmp_path, "elsewhere", frozen_chain("t"), env=other)
    with pytest.raises(GameNotFoundError, match=f"is a run of {other}, not of {domain}"):
        frozen_tasks(str(elsewhere), "self_diagnosis", domain)
    with pytest.raises(GameNotFoundError, match="is not a run directory"):
        frozen_tasks(str(tmp_path / "nothing"), "self_diagnosis", domain)
    mine = run_dir(tmp_path, "mine", frozen_chain("t"), env=domain)
    with pytest.raises(GameNotFoundError, match="holds no trial of condition 'no_memory'"):
        frozen_tasks(str(mine), "no_memory", domain)


@pytest.mark.parametrize("status", ["running", "interrupted", "failed"])
def test_held_out_selection_refuses_a_selection_run_that_has_not_finished(tmp_path: Path, status: str) -> None:
    selection = run_dir(tmp_path, "select", frozen_chain("HumanEval/2"), env="humaneval", status=status)
    with pytest.raises(GameNotFoundError, match=f"has not finished \\(its manifest.json says {status}\\)"):
        frozen_tasks(str(selection), "self_diagnosis", "humaneval")
    (selection / "manifest.json").unlink()
    with pytest.raises(GameNotFoundError, match="has no readable manifest.json"):
        frozen_tasks(str(selection), "self_diagnosis", "humaneval")


@pytest.mark.slow
def test_a_held_out_run_names_its_selection_run_and_warns_when_it_replays_it(tmp_path: Path) -> None:
    """End to end over real HTTP (the scripted server, a test instrument): every answer is the same action, so
    each episode ends after two steps and every reflection repeats, and the game freezes in the selection run."""
    game = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"
    common = ("model=openai-compatible", "llm.cache.mode=off", "env.set=null", f"env.games=[{game}]")
    common += ("experiment.max_concurrency=1", "experiment.trials=3")

    def run(name: str, *overrides: str) -> tuple[str, Path]:
        with ScriptedServer([" go to desk 1"] * 40) as server:
            result = run_cli(
                *common,
                f"model.base_url={server.base_url}",
                *overrides,
                f"hydra.run.dir={tmp_path / name}",
                env={"OPENAI_API_KEY": "none"},
            )
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stderr, tmp_path / name

    _, selection = run("select", "strategy=[self_diagnosis]", "experiment.seed=0")
    same_seed, replaying = run("replaying", "strategy=[self_diagnosis]", "experiment.seed=0", f"env.frozen_in={selection}")
    manifest = read_manifest(replaying)
    assert manifest is not None and manifest.selection is not None
    assert manifest.selection.path == str(selection) and manifest.selection.shared == manifest.selection.compared > 0
    assert manifest.selection.started_at == read_manifest(selection).started_at  # type: ignore[union-attr]
    assert f"with its selection run {selection}" in same_seed
    assert f"with its selection run {selection}" in (replaying / "run.log").read_text()
    assert "sampling.actor.temperature and sampling.reflector.temperature are 0 or unset" in same_seed

    hot = ("sampling.actor.temperature=0.7", "sampling.reflector.temperature=0.7")
    fresh_log, fresh = run("fresh", "strategy=[self_diagnosis,no_memory]", "experiment.seed=1", *hot, f"env.frozen_in={selection}")
    manifest = read_manifest(fresh)
    assert manifest is not None and manifest.selection is not None
    assert manifest.selection.shared == 0 and manifest.selection.compared > 0
    assert "selection run" not in fresh_log and "0 or unset" not in fresh_log
