"""The folders a run's config is composed from: the project's configs/ first, then the user's own, named on the
command line with `--config-dir DIR` or `hydra.searchpath=[file://DIR,...]` (Hydra reads them too), so an option
of the user's (a model, a strategy) is found by the same checks as a shipped one."""

from __future__ import annotations

from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"

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


def search_path_entry(entry: str) -> Path | None:
    """The folder of a search-path entry: `file://DIR` or a plain path; None for a package's (`pkg://`)."""
    if entry.startswith("pkg://"):
        return None
    return Path(entry.removeprefix("file://")).expanduser().resolve()
