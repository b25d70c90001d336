"""A config folder of the user's (`--config-dir`, `hydra.searchpath`) is honoured by the harness's own checks as
Hydra honours it: its model is chosen, by `model=` or by a role, and played over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.overrides import user_config_dirs
from harness.records import read_trials
from tests.in_process import run_in_process
from tests.runner import ROOT, run_cli
from tests.scripted_server import ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"


def own_models(tmp_path: Path, base_url: str = "http://127.0.0.1:8000/v1") -> Path:
    """A folder holding one model option of the user's, a model served at `base_url` under another name."""
    folder = tmp_path / "my configs"
    (folder / "model").mkdir(parents=True)
    shipped = (ROOT / "configs" / "model" / "openai-compatible.yaml").read_text()
    text = shipped.replace("name: openai-compatible", "name: my-server").replace("model: local-model", "model: mine-7b")
    text = text.replace("base_url: http://127.0.0.1:8000/v1", f"base_url: {base_url}")
    (folder / "model" / "my-server.yaml").write_text(text)
    return folder


def test_the_folders_a_command_line_adds_are_read_from_each_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c", "d"):
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path)
    # Two --config-dir options: Hydra's argparse keeps the last, and so do the harness's checks.
    search_path = f"hydra.searchpath=[file://{tmp_path / 'c'},pkg://hydra.conf,d]"
    arguments = ["-cd", "a", f"--config-dir={tmp_path / 'b'}", search_path, "x=1"]
    assert user_config_dirs(arguments) == [tmp_path / "b", tmp_path / "c", tmp_path / "d"]
    assert user_config_dirs(["--config-dir", "a"]) == [tmp_path / "a"]


def test_an_option_outside_the_folder_is_still_refused_without_it(tmp_path: Path) -> None:
    result = run_cli("model=my-server", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    assert result.stderr.startswith("error: model=my-server is not a known model; accepted: ")


@pytest.mark.slow
@pytest.mark.parametrize("spelling", ["--config-dir", "hydra.searchpath"])
def test_a_model_of_the_users_folder_is_played(spelling: str, tmp_path: Path) -> None:
    with ScriptedServer([" go to desk 1"] * 3) as server:
        folder = own_models(tmp_path, server.base_url)
        added = ["--config-dir", str(folder)] if spelling == "--config-dir" else [f"hydra.searchpath=[file://{folder}]"]
        # Hydra's options come before the overrides (argparse reads the overrides as one list).
        overrides = [
            *("actor_model=my-server", "reflector_model=my-server", "model=my-server"),
            *("llm.cache.mode=off", "env.set=null", f"env.games=[{GAME}]", "experiment.trials=1"),
            f"hydra.run.dir={tmp_path / 'run'}",
        ]
        # Hydra's options come before the overrides (argparse reads the overrides as one list).
        result = run_in_process(*added, "progress=false", *overrides, env={"OPENAI_API_KEY": "none"})
        assert result.returncode == 0, result.stderr[-2000:]
        assert {body["model"] for body in server.requests} == {"mine-7b"}
    [record] = read_trials(tmp_path / "run")
    assert "mine-7b" in record.actor_model
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["conditions"][0]["actor"]["model"] == "mine-7b"
