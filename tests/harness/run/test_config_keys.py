"""Every setting the README and docs/ name works as they say, without `+`; a misspelled one is named with the closest
key; a number setting refuses a boolean."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from pydantic import BaseModel, ValidationError

from harness.errors import ConfigError
from harness.cli.overrides import normalize_override
from harness.run.config_dirs import CONFIG_DIR
from harness.run.config import ConditionConfig
from harness.run.validation import validate_config
from harness.cli.config_keys import TOP_LEVEL, models_of, check_setting
from harness.reflection import available_sources, get_source
from tests.doc_pages import text

DOCS = text()
SECTIONS = tuple(TOP_LEVEL)


def doc_keys() -> list[str]:
    """Dotted settings the README and docs/ name in backticks (`model.timeout_s`), not files or modules."""
    named = re.findall(r"`([a-z_]+(?:\.[a-z_0-9<>]+)+)(?:=[^`]*)?`", DOCS)
    files = (".json", ".jsonl", ".md", ".html", ".png", ".yaml", ".py")
    return sorted(
        {key for key in named if key.split(".")[0] in SECTIONS and "<" not in key and not key.endswith(files)}
    )


def doc_commands() -> list[list[str]]:
    """The overrides of every single-run `python run.py ...` command in the code blocks of the README and docs/."""
    blocks = re.findall(r"```bash\n(.*?)```", DOCS, re.S)
    lines = " ".join(blocks).replace("\\\n", " ").splitlines()
    commands = []
    for line in lines:
        if "python run.py" not in line or " -m " in line:
            continue
        words = shlex.split(line.split("python run.py", 1)[1].split("#", 1)[0])
        # Placeholders (`...`, `$VAR`, HEAD_HOST) are the reader's to fill in.
        commands.append([w for w in words if "=" in w and "..." not in w and "$" not in w and "HOST" not in w])
    return commands


def test_the_docs_name_settings_and_commands() -> None:
    assert {"model.timeout_s", "model.max_retries", "model.retry_max_wait_s", "env.set"} <= set(doc_keys())
    assert len(doc_commands()) >= 20


@pytest.mark.parametrize("key", doc_keys())
def test_every_setting_the_docs_name_is_a_setting(key: str) -> None:
    check_setting(key)


@pytest.mark.parametrize("command", doc_commands(), ids=lambda c: " ".join(c)[:80] or "defaults")
def test_every_documented_command_composes_and_validates_without_plus(command: list[str]) -> None:
    overrides = [normalize_override(argument) for argument in command]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        config = validate_config(compose(config_name="config", overrides=overrides))
    for argument in command:
        key, value = argument.split("=", 1)
        if key in ("model.timeout_s", "model.max_retries", "model.retry_max_wait_s"):
            assert str(getattr(config.actor, key.split(".")[1])).rstrip("0").rstrip(".") == value


def test_settings_left_out_of_the_yaml_work_without_plus() -> None:
    overrides = [normalize_override(a) for a in ("model=gpt-4o-mini", "model.timeout_s=2", "model.max_retries=1")]
    overrides += [normalize_override("model.retry_max_wait_s=5"), normalize_override("+resume.allow_config_change=true")]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        config = validate_config(compose(config_name="config", overrides=overrides))
    assert (config.actor.timeout_s, config.actor.max_retries, config.actor.retry_max_wait_s) == (2, 1, 5)
    assert config.resume.allow_config_change


@pytest.mark.parametrize(
    ("key", "closest"),
    [
        ("experiment.tirals", "experiment.trials"),
        ("experiemnt.trials", "experiment.trials"),
        ("model.timout_s", "model.timeout_s"),
        ("llm.cache.mdoe", "llm.cache.mode"),
        ("strategy.self_diagnosis.memroy_window", "strategy.self_diagnosis.memory_window"),
        ("strategy.gated.options.polcy", "strategy.gated.options.policy"),
        ("env.max_step", "env.max_steps"),
    ],
)
def test_a_misspelled_key_is_named_with_the_closest(key: str, closest: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{re.escape(key)} is not a known setting; the closest is {closest} "):
        check_setting(key)


def test_a_key_below_a_value_is_refused() -> None:
    with pytest.raises(ConfigError, match="env.max_steps is one value"):
        check_setting("env.max_steps.x")


def _config_models() -> list[type[BaseModel]]:
    """Every model a setting belongs to, reached from the top level."""
    found: list[type[BaseModel]] = [ConditionConfig, *(get_source(s).Options for s in available_sources())]
    pending = [model for models in TOP_LEVEL.values() for model in models]
    while pending:
        model = pending.pop()
        if model in found:
            continue
        found.append(model)
        pending += [m for field in model.model_fields.values() for m in models_of(field.annotation)]
    return found


def _numbers(model: type[BaseModel]) -> list[str]:
    def numeric(annotation: Any) -> bool:
        return annotation in (int, float) or any(numeric(a) for a in getattr(annotation, "__args__", ()))

    return [name for name, field in model.model_fields.items() if numeric(field.annotation)]


@pytest.mark.parametrize("model", _config_models(), ids=lambda m: m.__name__)
def test_no_number_setting_takes_a_boolean(model: type[BaseModel]) -> None:
    for name in _numbers(model):
        with pytest.raises(ValidationError) as caught:
            model.model_validate({name: True})
        assert any(error["loc"] == (name,) for error in caught.value.errors()), f"{model.__name__}.{name} took True"


def test_the_walk_reaches_the_number_settings() -> None:
    numbers = {f"{m.__name__}.{n}" for m in _config_models() for n in _numbers(m)}
    assert {"ExperimentConfig.trials", "AlfworldEnvConfig.first_n", "ModelConfig.timeout_s", "Price.as_of"} - numbers == {
        "Price.as_of"
    }
