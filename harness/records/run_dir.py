"""The run directory (or any output directory) before anything is written into it: refused when it cannot be one,
and, when a run is refused later, removed only as far as this invocation created it.

Hydra creates `hydra.run.dir` (with its parents) before the run's code starts, so these checks run from a
Hydra callback (`harness.cli.guard`), while the directory does not exist yet.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from harness.errors import ConfigError
from harness.records import MANIFEST_FILE, TRIALS_FILE, read_manifest
from harness.records.diagnosis_bank import ITEMS_FILE as BANK_ITEMS_FILE
from harness.records.propagation import ENTRY_FILE, REACH_FILE
from harness.records.propagation import RESULT_FILE as PROPAGATION_FILE
from harness.records.whole_file import temporary_of

# What a run directory may hold before its first manifest: the lock, the log, the records (kept or refused by the
# resume checks); and a manifest write cut short, as any whole-file write's temporary (see check_run_dir_contents).
BEFORE_MANIFEST = ("run.lock", "run.log", TRIALS_FILE)


def _exists(path: Path) -> bool:
    """Whether `path` exists; a name too long for the filesystem, or one below a file, does not."""
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def symlink_loop(path: Path) -> Path | None:
    """The first part of `path`, from the root down, that is a loop of symbolic links (ELOOP), or None.

    Path.resolve() raises RuntimeError on one and os.stat an OSError that reads as "missing" to a check for
    existence, so a loop is named before any such check sees it.
    """
    absolute = Path(os.path.abspath(path))
    for part in reversed([absolute, *absolute.parents]):
        try:
            os.stat(part)
        except OSError as error:
            return part if error.errno == errno.ELOOP else None
    return None


def refuse_symlink_loop(path: Path, label: str) -> None:
    """ConfigError naming the loop of symbolic links `path` goes through, if it goes through one."""
    loop = symlink_loop(path)
    if loop is not None:
        through = "is" if loop == Path(os.path.abspath(path)) else f"goes through {loop}, which is"
        raise ConfigError(f"{label} {through} a loop of symbolic links that never reaches a directory; name another.")


def _existing_ancestor(path: Path) -> Path:
    while not _exists(path) and path != path.parent:
        path = path.parent
    return path


def check_output_dir(value: str, key: str) -> Path:
    """The directory `value` names (absolute), or ConfigError saying why nothing can be written there.

    `key` is the setting or option that named it (hydra.run.dir, --out), for the sentence.
    """
    if not value.strip():
        raise ConfigError(f"{key} is empty; name a directory, e.g. {key}=results/my-run.")
    if value.startswith("~"):
        raise ConfigError(
            f"{key}={value} starts with '~', which the shell did not expand here; write the path out, e.g. "
            f"{key}=$HOME{value[1:]}."
        )
    path = Path(os.path.abspath(value))
    refuse_symlink_loop(path, f"{key}={value}")
    if os.path.islink(path) and not _exists(path):
        raise ConfigError(
            f"{key}={value} is a symbolic link to {os.readlink(path)}, which does not exist; create its target or "
            "name another directory."
        )
    existing = _existing_ancestor(path)
    if not existing.is_dir():
        what = "is a file" if existing == path else f"is inside {existing}, which is a file"
        raise ConfigError(f"{key}={value} {what}, not a directory; name a directory.")
    longest = os.pathconf(existing, "PC_NAME_MAX")
    for part in path.relative_to(existing).parts:
        if len(os.fsencode(part)) > longest:
            raise ConfigError(
                f"{key}={value} has a folder name of {len(os.fsencode(part))} bytes, more than the {longest} its "
                "filesystem allows; choose a shorter name."
            )
    if len(os.fsencode(str(path))) >= os.pathconf(existing, "PC_PATH_MAX"):
        raise ConfigError(f"{key}={value} is longer than its filesystem allows for a path; choose a shorter one.")
    where = "the directory" if existing == path else f"{existing}, where it would be created,"
    if not os.access(existing, os.W_OK | os.X_OK) or not _can_create_in(existing):
        raise ConfigError(
            f"{key}={value} cannot be written: {where} is read-only or not writable by this user; choose "
            "another directory."
        )
    return path


def run_holding(path: Path) -> tuple[Path, str] | None:
    """The directory at or above `path` (real: a symbolic link into a run is inside it too) that holds a run, with
    the file that says so (its manifest or its records); None when none does."""
    real = Path(os.path.realpath(path))
    for directory in (real, *real.parents):
        if _holds_manifest(directory):
            return directory, MANIFEST_FILE
        if _exists(directory / TRIALS_FILE):
            return directory, TRIALS_FILE
    return None


def check_in_no_run(path: Path, label: str, consequence: str) -> None:
    """ConfigError when `path` is, or is inside, a run's directory: what a command writes there would land among
    that run's files. `consequence` ends the sentence: what would happen, and what to give instead."""
    found = run_holding(path)
    if found is not None:
        directory, held = found
        where = "" if directory == Path(os.path.realpath(path)) else f"inside {directory}, "
        raise ConfigError(f"{label} {path} is {where}a run's directory (it holds {held}), {consequence}.")


def check_not_inside_run(path: Path, label: str) -> None:
    """Refuse `path` when a directory above it holds a run (its manifest or records): a run written inside another
    run's directory would mix its files into that run's, and be copied, moved or deleted with it.

    A sweep's jobs are not refused: the sweep directory above them holds multirun.yaml, not a run's files.
    """
    found = run_holding(Path(os.path.realpath(path)).parent)
    if found is not None:
        parent, held = found
        raise ConfigError(
            f"{label} is inside the run directory {parent} (it holds {held}), and a run would write its files "
            "among that run's; choose a directory outside it, e.g. beside it."
        )


def _holds_manifest(directory: Path) -> bool:
    """Whether `directory` holds a run's manifest.json: a web app or a package may keep a manifest.json of its own in
    a folder above every run, which must not refuse them all."""
    try:
        return read_manifest(directory) is not None
    except (OSError, ValueError):  # unreadable, or no run's manifest (a ValidationError is a ValueError)
        return False


def _can_create_in(directory: Path) -> bool:
    """Whether a directory can really be made in `directory`: os.access says yes to root on /proc and /sys."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".harness-probe-", dir=directory))
    except OSError:
        return False
    return True


def run_marker(scenario: object) -> str:
    """The file that makes a directory a run's: a plant-and-trace study's propagation.json, an entry study's
    entry.json, a reach study's reach.json (they write no manifest, and the same command runs them again, their
    cache answering what was asked), a re-reflection bank's bank_items.jsonl (its first file: a bank stopped at any
    point resumes from it), else the manifest. `scenario`: the config's `scenario.name`, if any."""
    markers = {"propagation": PROPAGATION_FILE, "propagation_entry": ENTRY_FILE, "propagation_reach": REACH_FILE,
               "diagnosis_bank": BANK_ITEMS_FILE}  # fmt: skip
    return markers.get(str(scenario), MANIFEST_FILE)


def check_run_dir_contents(
    path: Path, label: str, marker: str = MANIFEST_FILE, expected: tuple[str, ...] = BEFORE_MANIFEST
) -> None:
    """Refuse an existing directory that holds what no run wrote and not its `marker` (a run's manifest, a sweep's
    multirun.yaml): a run would write its files among the user's, over a summary.md or report.md of that name.

    `label` names the directory in the sentence ("hydra.run.dir=...").
    """
    if not path.is_dir() or (path / marker).exists():
        return
    # A whole-file write killed before its rename (the first manifest's, say) leaves a temporary the run removes.
    foreign = sorted(e.name for e in path.iterdir() if e.name not in expected and temporary_of(e.name) is None)
    if not foreign:
        return
    shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
    if TRIALS_FILE in expected and (path / TRIALS_FILE).exists():
        # Records without a manifest may be adopted, but nothing tells whose the other files are: a run (adopting
        # or not) would write its summary.md or report.md over a file of that name the user keeps there.
        raise ConfigError(
            f"{label} holds {TRIALS_FILE} with no {marker}, and beside it {shown}, which a run would overwrite; "
            f"move {'them' if len(foreign) > 1 else 'it'} elsewhere, then run again (adopting the records needs "
            "+resume.adopt_records=true)."
        )
    raise ConfigError(
        f"{label} holds {shown} and no {marker}, so it is not this harness's; a run would write its files among "
        "them, so choose a new or empty directory."
    )


def first_missing(path: Path) -> Path | None:
    """The outermost directory that creating `path` (with its parents) adds, or None when it exists."""
    missing = None
    while not _exists(path) and path != path.parent:
        missing, path = path, path.parent
    return missing


def remove_created(run_dir: Path, created: Path | None) -> None:
    """Remove `run_dir` and its parents up to `created`, each only while it is empty: what this invocation made.

    `created` None means the directory was there before: nothing is removed, so an empty directory a user
    made, or a mount point, stays.
    """
    if created is None:
        return
    run_dir, created = Path(run_dir).absolute(), Path(created).absolute()
    if run_dir != created and created not in run_dir.parents:
        return
    for directory in (run_dir, *run_dir.parents):
        try:
            directory.rmdir()
        except OSError:  # not empty, or not ours to remove after all
            return
        if directory == created:
            return
