"""A role's model is composed by Hydra (configs/config.yaml's `model@actor_model`), so an option found only in the
user's own config folder reaches `actor_model=` under every launcher: the composed config carries it whole, and no
model option is read from a file by the harness (`load_model_config` fails the test if it is asked).

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
from harness.run import config
from tests.in_process import run_in_process
from tests.runner import REPLAY_CACHE, ROOT
from tests.small_run import GAME

ONE_TRIAL = ("progress=false", "llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}", "env.set=null")
SHIPPED = "qwen2.5-coder-1.5b"


@pytest.fixture(autouse=True)
def no_model_file_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> None:
        raise AssertionError(f"the model option {name} was read from its file, outside Hydra's composition")

    monkeypatch.setattr(config, "load_model_config", refuse)


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
    # One job, which joblib runs in this process: what shows that no worker needs the folders the launching process
    # was told of is the autouse fixture (no option read from a file: the job's config carries the model).
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
