"""The command line's overrides checked before Hydra composes: a typo costs one sentence and exit code 2."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import yaml
from hydra._internal.utils import get_args_parser
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType
from hydra.errors import OverrideParseException

from harness.cli.config_keys import check_setting
from harness.errors import ConfigError, HarnessError, fail
from harness.run.config import CONFIG_GROUPS
from harness.run.config_dirs import (
    CONFIG_DIR,
    add_config_dirs,
    available_options,
    check_config_dir,
    check_group_choice,
    check_search_path,
    option_files,
)

ROLE_MODEL_KEYS = ("actor_model", "reflector_model")
COMPOSED_MODEL_KEYS = (*ROLE_MODEL_KEYS, "insights.critic_model")
"""Settings whose value is a model option Hydra composes whole (configs/config.yaml's defaults)."""
STRATEGY = "strategy"
# Hydra's options that take a value: the word after one is that value, not an override.
VALUE_OPTIONS = (
    *("--cfg", "-c", "--info", "-i", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn"),
    *("--config-dir", "-cd", "--experimental-rerun", "--shell-completion", "-sc"),
)


def _parse(argument: str) -> Override:
    try:
        [override] = OverridesParser.create().parse_overrides([argument])
    except OverrideParseException as error:
        reason = next((line for line in str(error).splitlines() if not line.startswith("Error parsing")), "")
        raise ConfigError(
            f"{argument!r} is not an override Hydra can read ({reason.strip().rstrip('.')}); write key=value, "
            "with a list as [a,b] and a value holding spaces, commas or non-ASCII letters in quotes ('key=\"value\"')."
        ) from None
    return override


def _check_choices(override: Override, argument: str) -> None:
    """`strategy=a,b` sweeps, `strategy=[a,b]` selects several at once: either way, each name must exist."""
    key = override.key_or_group
    value = argument.split("=", 1)[1]
    if "${" in value or "(" in value:
        return
    if not value.strip("[] "):
        raise ConfigError(f"{key}={value} chooses no {key}; choose one, e.g. {key}={available_options(key)[0]}.")
    for choice in value.strip("[]").split(","):
        check_group_choice(key, choice)


def _model_choices(key: str, argument: str) -> None:
    """A role's model option(s) checked: one option, or a sweep over options; never a list or null in a sweep."""
    value = argument.split("=", 1)[1]
    if "${" in value or "(" in value:
        return
    if value.startswith("["):
        raise ConfigError(f"{argument} names a list; a role takes one model option, e.g. {key}=smollm2-135m.")
    choices = value.split(",")
    if "null" in choices or "" in choices:
        raise ConfigError(
            f"{argument} sweeps over null, which is no model option; sweep over options only, and run the role "
            "unsplit (null) as a job of its own."
        )
    for choice in choices:
        check_group_choice("model", choice, key)


def _role_model(key: str, argument: str) -> str:
    """`actor_model=<option>` as Hydra composes it: the model option packaged under the role
    (`model@actor_model=<option>`, configs/config.yaml's defaults), so every config folder Hydra searches reaches it;
    `actor_model=null` removes the role's option (`~model@actor_model`), leaving the role to `model`."""
    value = argument.split("=", 1)[1]
    if value in ("", "null"):
        return f"~model@{key}"
    _model_choices(key, argument)
    return f"model@{key}={value}"


def _declares(condition: str, role: str) -> bool:
    """Whether the strategy file of `condition` composes a model under the role in its defaults list."""
    path = option_files(STRATEGY).get(condition)
    if path is None:
        return False
    defaults = (yaml.safe_load(path.read_text()) or {}).get("defaults") or []
    entries = {key.lstrip("/") for entry in defaults if isinstance(entry, dict) for key in entry}
    return f"model@{condition}.{role}" in entries


def _condition_role_model(condition: str, role: str, argument: str, chosen: frozenset[str] | None) -> str:
    """`strategy.<condition>.actor_model=<option>` as Hydra composes it, as the run's roles are: the model option
    packaged under the condition's role (replacing the one its strategy file composes there, else added); null
    removes it, leaving the role to the run's model. `chosen`: the conditions the command line chooses, where known."""
    key = f"{STRATEGY}.{condition}.{role}"
    if chosen is not None and condition not in chosen:
        raise ConfigError(
            f"{key} is set, but {condition} is not among the chosen conditions; choose it too, e.g. "
            f"strategy=[self_diagnosis,{condition}]."
        )
    value = argument.split("=", 1)[1]
    declared = _declares(condition, role)
    if value in ("", "null"):
        return f"~model@{key}" if declared else f"++{key}=null"
    _model_choices(key, argument)
    return f"{'' if declared else '+'}model@{key}={value}"


def _condition_role(key: str) -> tuple[str, str] | None:
    """(condition, role) of `strategy.<condition>.<role>_model`, else None."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == STRATEGY and parts[2] in ROLE_MODEL_KEYS:
        return parts[1], parts[2]
    return None


def chosen_conditions(arguments: Sequence[str]) -> frozenset[str] | None:
    """The conditions a command line chooses, as Hydra will compose them: its `strategy=` (every value of a sweep),
    else the chosen experiment's `override /strategy`, else configs/config.yaml's default; None where that cannot be
    told before composing (an interpolation, an experiment file that cannot be read)."""
    def names(value: object) -> frozenset[str] | None:
        if isinstance(value, str) and "${" not in value and "(" not in value:
            return frozenset(v.strip() for v in value.strip("[]").split(",") if v.strip())
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return frozenset(value)
        return None

    def declared(group: str, option: str) -> object:
        path = option_files(group).get(option) if group != "" else CONFIG_DIR / "config.yaml"
        try:
            defaults = (yaml.safe_load(path.read_text()) or {}).get("defaults") or [] if path else []
        except (OSError, yaml.YAMLError):
            return None
        for entry in defaults:
            for key, value in (entry.items() if isinstance(entry, dict) else ()):
                if key.removeprefix("override ").lstrip("/") == STRATEGY:
                    return value
        return None

    experiment = "default"
    for argument in arguments:
        key, _, value = argument.lstrip("+").partition("=")
        if key == STRATEGY:
            return names(value)
        if key == "experiment":
            experiment = value
    from_experiment = declared("experiment", experiment)
    return names(from_experiment if from_experiment is not None else declared("", "config"))


def normalize_override(argument: str, chosen: frozenset[str] | None = None) -> str:
    """One command-line override checked, and spelled as Hydra must read it.

    A setting is returned as `++key=value` (set it, whether or not the YAML names it), since the pydantic models
    decide which settings exist; Hydra's own keys and groups pass through unchanged, and a role's model
    (`actor_model=<option>`) becomes the model option Hydra composes under that role.
    """
    override = _parse(argument)
    key = override.key_or_group
    if override.package is not None or "/" in key or key == "hydra" or key.startswith("hydra."):
        return argument
    if override.type == OverrideType.CHANGE and key in COMPOSED_MODEL_KEYS:
        return _role_model(key, argument)
    condition_role = _condition_role(key)
    if override.type == OverrideType.CHANGE and condition_role is not None:
        return _condition_role_model(*condition_role, argument, chosen)
    if override.type == OverrideType.CHANGE and key in CONFIG_GROUPS:
        _check_choices(override, argument)
        return argument
    if not key:
        raise ConfigError(f"{argument!r} names no setting; write key=value, e.g. experiment.trials=3.")
    check_setting(key)
    if override.type == OverrideType.DEL:
        return argument
    return f"++{key}={argument.split('=', 1)[1]}"


def as_written(override: str) -> str:
    """A job's override as the user wrote it: `++key=value` as `key=value`, `model@actor_model=x` as `actor_model=x`
    (and `model@strategy.<condition>.actor_model=x` as `strategy.<condition>.actor_model=x`)."""
    text = override.lstrip("+")
    if not text.startswith("model@"):
        return text
    key = text.removeprefix("model@").split("=", 1)[0]
    return text.removeprefix("model@") if key in COMPOSED_MODEL_KEYS or _condition_role(key) else text


def hydra_arguments(arguments: list[str]) -> argparse.Namespace:
    """The command line as Hydra's argparse reads it, or ConfigError in one sentence where argparse would print its
    usage block: Hydra parses the same words with the same parser a moment later."""
    parser = get_args_parser()

    def refuse(message: str) -> NoReturn:
        if message.startswith("unrecognized arguments"):
            # argparse reads the overrides as one list: an option after one leaves the rest unread.
            raise ConfigError(
                f"the command line cannot be read ({message}); put Hydra's options (--config-dir DIR, -m, --cfg job, "
                "...) before the overrides, e.g. python run.py --config-dir DIR experiment.trials=3."
            )
        raise ConfigError(f"the command line cannot be read ({message}); python run.py --hydra-help lists the options.")

    parser.error = refuse
    return parser.parse_args(arguments)


def user_config_dirs(arguments: list[str]) -> list[Path]:
    """The config folders the command line adds, each checked to exist: `--config-dir DIR` (`-cd DIR`,
    `--config-dir=DIR`; the last one, as Hydra reads it) and the `file://` (or plain) entries of
    `hydra.searchpath=[...]`, whose `pkg://` entries must be packages Hydra can read."""
    parsed = hydra_arguments(arguments)
    folders = [] if parsed.config_dir is None else [check_config_dir(parsed.config_dir)]
    for argument in parsed.overrides:
        if argument.lstrip("+").startswith("hydra.searchpath="):
            folders += check_search_path(_parse(argument).value(), argument)
    return folders


def preflight(arguments: list[str]) -> list[str]:
    """The command line with every override checked and normalized, before Hydra composes: a typo costs one
    sentence and exit code 2, not a traceback, and a setting missing from the YAML files needs no `+`. The config
    folders it names are searched for options as Hydra will."""
    try:
        add_config_dirs(user_config_dirs(arguments))
    except HarnessError as error:
        fail(error)
    checked = []
    chosen = chosen_conditions([a for a in arguments if not a.startswith("-")])
    for index, argument in enumerate(arguments):
        after_option = index > 0 and arguments[index - 1] in VALUE_OPTIONS and "=" not in argument
        if argument.startswith("-") or after_option:
            checked.append(argument)
            continue
        try:
            checked.append(normalize_override(argument, chosen))
        except HarnessError as error:
            fail(error)
    return checked
