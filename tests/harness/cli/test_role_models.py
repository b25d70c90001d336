"""A role's model is composed by Hydra (configs/config.yaml's `model@actor_model`, a strategy file's
`/model@<condition>.actor_model`), so an option found only in the user's own config folder reaches `actor_model=`
and `strategy.<condition>.actor_model=` under every launcher: the composed config carries it whole, and the harness
reads no model option from a file (harness/run has no loader of its own: the YAML file is made unreadable here).

Each run is the small replay (one game, one trial, the committed cache) of a copy of the embedded model under a name
of the user's: its answers are the committed ones, as the cache key holds the model, not the option's name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.overrides import as_written, normalize_override
from harness.errors import ConfigError
from harness.records import read_trials
from tests.in_process import run_in_process
from tests.runner import REPLAY_CACHE, ROOT
from tests.small_run import GAME

ONE_TRIAL = ("progress=false", "llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}", "env.set=null")
SHIPPED = "qwen2.5-coder-1.5b"


def own_model(tmp_path: Path) -> Path:
    """A config folder of the user's holding `model/my-qwen.yaml`: the shipped embedded model under another name."""
    folder = tmp_path / "my configs"
    (folder / "model").mkdir(parents=True)
    shipped = (ROOT / "configs" / "model" / f"{SHIPPED}.yaml").read_text()
    (folder / "model" / "my-qwen.yaml").write_text(shipped.replace(f"name: {SHIPPED}", "name: my-qwen"))
    return folder


def added(spelling: str, folder: Path) -> list[str]:
    """The words that add `folder` to the config search path; Hydra's options come before the overrides."""
    return ["--config-dir", str(folder)] if spelling == "--config-dir" else [f"hydra.searchpath=[file://{folder}]"]


def assert_actor_is_the_users(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    [condition] = manifest["config"]["conditions"]
    assert (manifest["config"]["actor"]["name"], condition["actor"]["name"]) == ("my-qwen", "my-qwen")
    assert (manifest["config"]["reflector"]["name"], condition["reflector"]["name"]) == (SHIPPED, SHIPPED)
    [record] = read_trials(run_dir)
    assert (record.actor_model, record.reflector_model) == (f"my-qwen ({SHIPPED})", SHIPPED)


@pytest.mark.parametrize("spelling", ["--config-dir", "hydra.searchpath"])
def test_a_role_model_of_the_users_folder_is_played_under_the_basic_launcher(spelling: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    overrides = (*ONE_TRIAL, f"env.games=[{GAME}]", "experiment.trials=1", "actor_model=my-qwen")
    result = run_in_process(*added(spelling, own_model(tmp_path)), *overrides, f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert_actor_is_the_users(run_dir)


def test_a_role_model_of_the_users_folder_is_played_under_joblib(tmp_path: Path) -> None:
    # One job, which joblib runs in this process: the job's config carries the model whole (Hydra composed it).
    sweep_dir = tmp_path / "sweep"
    overrides = (*ONE_TRIAL, f"env.games=[{GAME}]", "experiment.trials=1", "actor_model=my-qwen")
    joblib = ("hydra/launcher=joblib", "hydra.launcher.n_jobs=1", f"hydra.sweep.dir={sweep_dir}")
    result = run_in_process("-m", *added("hydra.searchpath", own_model(tmp_path)), *overrides, *joblib)
    assert result.returncode == 0, result.stderr[-2000:]
    assert_actor_is_the_users(sweep_dir / "0")


def test_a_role_model_written_as_a_name_in_a_users_experiment_is_refused_in_one_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "my configs"
    (folder / "experiment").mkdir(parents=True)
    (folder / "experiment" / "mine.yaml").write_text("# @package _global_\nactor_model: smollm2-135m\n")
    result = run_in_process("--config-dir", str(folder), "experiment=mine", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    assert result.stderr == (
        "error: actor_model = 'smollm2-135m' names a model as a value, which Hydra does not compose; choose the "
        "option with actor_model=smollm2-135m on the command line, or `- override /model@actor_model: smollm2-135m` "
        "in a defaults list.\n"
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("argument", "spelled"),
    [
        ("actor_model=smollm2-135m", "model@actor_model=smollm2-135m"),
        ("reflector_model=smollm2-135m,gpt-4o-mini", "model@reflector_model=smollm2-135m,gpt-4o-mini"),
        ("actor_model=null", "~model@actor_model"),
        ("reflector_model=", "~model@reflector_model"),
    ],
)
def test_a_role_override_is_spelled_as_the_option_hydra_composes_under_the_role(argument: str, spelled: str) -> None:
    assert normalize_override(argument) == spelled
    if "=" in spelled:  # a sweep's report names each job's value as the user wrote it
        assert as_written(spelled) == argument


@pytest.mark.parametrize(
    ("argument", "needle"),
    [
        ("actor_model=no-such-model", "actor_model=no-such-model is not a known model; accepted: gpt-3.5-turbo, "),
        ("actor_model=smollm2-135m,null", "actor_model=smollm2-135m,null sweeps over null, which is no model option"),
        ("actor_model=[smollm2-135m]", "actor_model=[smollm2-135m] names a list; a role takes one model option"),
    ],
)
def test_a_role_override_hydra_could_not_compose_is_refused_in_one_sentence(argument: str, needle: str) -> None:
    with pytest.raises(ConfigError) as refused:
        normalize_override(argument)
    assert str(refused.value).startswith(needle) and str(refused.value).endswith(".")


def test_a_conditions_model_is_composed_by_hydra_from_the_users_folder(tmp_path: Path) -> None:
    """`strategy.model_swap.actor_model=<option>` replaces the option the strategy file composes; null gives the role
    back to the run's model; the composed config carries the option whole (no file is read after Hydra)."""
    run_dir = tmp_path / "run"
    overrides = (
        *ONE_TRIAL, f"env.games=[{GAME}]", "experiment.trials=1", "strategy=model_swap",
        "strategy.model_swap.actor_model=my-qwen", "strategy.model_swap.reflector_model=null",
    )
    folder = own_model(tmp_path)
    result = run_in_process("--config-dir", str(folder), *overrides, f"hydra.run.dir={run_dir}", "--cfg", "job")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "name: my-qwen" in result.stdout and "smollm2-135m" not in result.stdout


@pytest.mark.parametrize(
    ("argument", "spelled"),
    [
        ("strategy.model_swap.actor_model=gpt-4o-mini", "model@strategy.model_swap.actor_model=gpt-4o-mini"),
        ("strategy.model_swap.reflector_model=null", "~model@strategy.model_swap.reflector_model"),
        ("strategy.self_diagnosis.actor_model=smollm2-135m", "+model@strategy.self_diagnosis.actor_model=smollm2-135m"),
        ("strategy.self_diagnosis.actor_model=null", "++strategy.self_diagnosis.actor_model=null"),
    ],
)
def test_a_conditions_role_override_is_spelled_as_hydra_composes_it(argument: str, spelled: str) -> None:
    """Replaced where the strategy file composes the role's model, added where it composes none."""
    assert normalize_override(argument) == spelled
    if "=" in spelled and "model@" in spelled:  # a sweep's report names each job's value as the user wrote it
        assert as_written(spelled) == argument


def test_a_conditions_model_written_as_a_name_is_refused_in_one_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "my configs"
    (folder / "strategy").mkdir(parents=True)
    (folder / "strategy" / "mine.yaml").write_text("mine:\n  source: model_swap\n  actor_model: smollm2-135m\n")
    result = run_in_process("--config-dir", str(folder), "strategy=mine", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error: strategy.mine.actor_model = 'smollm2-135m' is invalid: it names a model as a value, which Hydra does "
        "not compose"
    ), result.stderr
    assert not (tmp_path / "run").exists()
