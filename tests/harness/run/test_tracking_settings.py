"""The `tracking` group: off by default, one setting to turn on, typos named with the closest key, only local
stores accepted, checked before a run starts, and free to change when a run is resumed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from harness.errors import ConfigError
from harness.cli.overrides import normalize_override
from harness.run.config_dirs import CONFIG_DIR
from harness.run.config import RunConfig
from harness.run.validation import validate_config
from harness.records.config_diff import shaping_changes
from harness.cli.config_keys import check_setting
from harness.run.preflight import check_tracking
from harness.run.tracking_settings import DEFAULT_TRACKING_URI, TrackingSettings, store_path


def composed(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate_config(compose(config_name="config", overrides=[normalize_override(o) for o in overrides]))


def test_off_by_default_and_one_setting_turns_it_on() -> None:
    assert composed().tracking == TrackingSettings(backend="none")
    on = composed("tracking=mlflow")
    assert (on.tracking.backend, on.tracking.tracking_uri) == ("mlflow", DEFAULT_TRACKING_URI)
    assert (on.tracking.experiment_name, on.tracking.run_name) == (None, None)
    named = composed("tracking=mlflow", "tracking.experiment_name=study", "tracking.tracking_uri=file:/tmp/mlruns")
    assert (named.tracking.experiment_name, named.tracking.tracking_uri) == ("study", "file:/tmp/mlruns")


def test_an_unknown_backend_names_the_options() -> None:
    with pytest.raises(ConfigError, match=r"^tracking=mlfow is not a known tracking; accepted: mlflow, none\.$"):
        normalize_override("tracking=mlfow")


def test_a_misspelled_key_is_named_with_the_closest() -> None:
    closest = r"^tracking\.trackng_uri is not a known setting; the closest is tracking\.tracking_uri "
    with pytest.raises(ConfigError, match=closest):
        check_setting("tracking.trackng_uri")


def test_a_misspelled_key_past_the_command_line_is_refused_by_the_model() -> None:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=["tracking=mlflow", "+tracking.run_nmae=x"])
    with pytest.raises(ConfigError) as caught:
        validate_config(cfg)
    message = str(caught.value)
    assert message.startswith("tracking.run_nmae = 'x' is invalid: ") and "(closest: run_name)" in message
    assert "\n" not in message and message.endswith(".")


@pytest.mark.parametrize(
    "uri", ["http://localhost:5000", "databricks", "file://somehost/mlruns", "sqlite:///", "postgresql://db/mlflow"]
)
def test_only_a_local_store_is_accepted(uri: str) -> None:
    with pytest.raises(ConfigError) as caught:
        composed("tracking=mlflow", f"tracking.tracking_uri={uri}")
    message = str(caught.value)
    assert message.startswith(f"tracking.tracking_uri = {uri!r} is invalid: ") and "never logs to a server" in message


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("sqlite:///results/mlflow.db", Path("results/mlflow.db")),
        ("sqlite:////tmp/x/mlflow.db", Path("/tmp/x/mlflow.db")),
        ("file:/tmp/mlruns", Path("/tmp/mlruns")),
        ("file:///tmp/my%20runs", Path("/tmp/my runs")),
        ("file:mlruns", Path("mlruns")),
    ],
)
def test_the_store_s_path(uri: str, path: Path) -> None:
    assert store_path(uri) == path


def test_a_store_path_of_the_wrong_kind_is_refused_before_the_run(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    refused = {
        f"sqlite:///{tmp_path}": "names a directory",
        f"file:{a_file}": "names a file",
        f"sqlite:///{a_file / 'mlflow.db'}": "cannot be written",
    }
    for uri, reason in refused.items():
        with pytest.raises(ConfigError, match=reason):
            check_tracking(TrackingSettings(backend="mlflow", tracking_uri=uri))
    check_tracking(TrackingSettings(backend="mlflow", tracking_uri=f"sqlite:///{tmp_path / 'new' / 'mlflow.db'}"))
    check_tracking(TrackingSettings(backend="none", tracking_uri=f"file:{a_file}"))


def test_mlflow_missing_is_one_sentence_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)
    with pytest.raises(ConfigError) as caught:
        check_tracking(TrackingSettings(backend="mlflow"))
    assert str(caught.value).startswith("tracking=mlflow ") and "pip install -e .[tracking]" in str(caught.value)


def test_a_resumed_run_may_turn_tracking_on() -> None:
    before = composed().model_dump(mode="json")
    after = composed("tracking=mlflow", "tracking.run_name=again").model_dump(mode="json")
    assert before["tracking"] != after["tracking"]
    assert shaping_changes(before, after) == {}
