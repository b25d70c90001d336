"""The folders a run's config is composed from: the project's configs/ first, then the user's own, named on the
command line with `--config-dir DIR` or `hydra.searchpath=[file://DIR,...]` (Hydra reads them too), so an option
of the user's (a model, a strategy) is found by the same checks as a shipped one.

A folder or package Hydra could not read is refused here, before Hydra composes: Hydra itself stops on a missing
`--config-dir` with its own two lines, and passes over a missing search-path entry with a warning only."""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from harness.errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
SEARCH_PATH_SCHEMES = ("file://", "pkg://", "structured://")
"""The entries Hydra reads (`structured://` is its schema store); an entry without a scheme is a `file://` one."""
_FOLDER_ADVICE = "name an existing folder of config groups laid out like configs/ (model/, strategy/, ...)"
_SEARCH_PATH_EXAMPLE = "hydra.searchpath=[file:///home/me/my-configs,pkg://my_package.configs]"

_EXTRA: list[Path] = []


def add_config_dirs(folders: list[Path]) -> None:
    """Search `folders` too, after configs/ (Hydra's order: the primary config folder first)."""
    _EXTRA.extend(folder for folder in folders if folder not in _EXTRA)


def config_dirs() -> list[Path]:
    return [CONFIG_DIR, *_EXTRA]


def option_files(group: str) -> dict[str, Path]:
    """Every option of a config group by name, the first folder's where two folders have one of the same name."""
    found: dict[str, Path] = {}
    for folder in reversed(config_dirs()):
        found.update({path.stem: path for path in (folder / group).glob("*.yaml")})
    return dict(sorted(found.items()))


def available_options(group: str) -> list[str]:
    """The option names of a Hydra config group, from its yaml files in every config folder."""
    return list(option_files(group))


def check_group_choice(group: str, choice: str, key: str | None = None) -> None:
    """Raise ConfigError unless `choice` names a yaml file of `group` (chosen by `key`, the group's name unless a
    package of it: actor_model)."""
    options = available_options(group)
    if choice not in options:
        raise ConfigError(f"{key or group}={choice} is not a known {group}; accepted: {', '.join(options)}.")


def search_path_entry(entry: str) -> Path | None:
    """The folder of a search-path entry: `file://DIR` or a plain path; None for a package's (`pkg://`)."""
    if entry.startswith(("pkg://", "structured://")):
        return None
    # As Hydra reads it: relative to the working directory, with no `~` expanded.
    return Path(os.path.abspath(entry.removeprefix("file://")))


def check_config_dir(value: str) -> Path:
    """The folder `--config-dir value` names, or ConfigError unless it is an existing directory."""
    folder = Path(os.path.abspath(value))
    if folder.is_dir():
        return folder
    if value == "~" or value.startswith("~/"):
        raise ConfigError(
            f"--config-dir={value} starts with '~', which the shell did not expand here; write the path out, e.g. "
            f"--config-dir=$HOME{value[1:]}."
        )
    what = "is not a directory" if folder.exists() else "does not exist"
    raise ConfigError(f"--config-dir={value} {what}; {_FOLDER_ADVICE}.")


def check_search_path(value: object, argument: str) -> list[Path]:
    """The folders of `hydra.searchpath`'s value (from `argument`), or ConfigError unless it is a list whose every
    `file://` (or plain) entry is an existing directory and every `pkg://` entry a package Hydra can read."""
    if not isinstance(value, Sequence) or isinstance(value, str) or not all(isinstance(e, str) for e in value):
        raise ConfigError(
            f"{argument} is not a list of folders and packages; write a list in brackets, e.g. {_SEARCH_PATH_EXAMPLE}."
        )
    folders = []
    for entry in value:
        if "://" in entry and not entry.startswith(SEARCH_PATH_SCHEMES):
            raise ConfigError(
                f"hydra.searchpath entry {entry} has a scheme Hydra cannot read; write file://<folder> or "
                f"pkg://<package>, e.g. {_SEARCH_PATH_EXAMPLE}."
            )
        if entry.startswith("pkg://"):
            _check_package(entry)
        folder = search_path_entry(entry)
        if folder is not None and not folder.is_dir():
            what = "is not a directory" if folder.exists() else "does not exist"
            raise ConfigError(f"hydra.searchpath entry {entry} {what}; {_FOLDER_ADVICE}.")
        if folder is not None:
            folders.append(folder)
    return folders


def _check_package(entry: str) -> None:
    """ConfigError unless Hydra can read the `pkg://` entry: a regular package (one with an __init__.py)."""
    name = entry.removeprefix("pkg://")
    try:
        files = resources.files(name)
        readable = any(f.name == "__init__.py" and f.is_file() for f in files.iterdir())
    except (ImportError, ValueError, TypeError, OSError):
        readable = False
    if not readable:
        raise ConfigError(
            f"hydra.searchpath entry {entry} is not an importable package (no package {name!r} with an __init__.py "
            "is on the Python path); install the package that holds the configs, or name a folder with file://<folder>."
        )
