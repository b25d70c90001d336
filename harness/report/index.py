"""The index across runs (`reflexion-report FOLDER --index`): every run directory, sweep and audit under a
folder, found at any depth, as one sortable, filterable table in index.html.

A run directory holds manifest.json or trials.jsonl (a run that has not recorded its first trial yet is listed
too), a sweep multirun.yaml, an audit audit.md or audit.html, a plant-and-trace study (`experiment=propagation`)
propagation.json and no trials (it is listed once its builds are done and the file is written). Folders whose names start with a dot (Hydra's
.hydra) are not searched, symbolic links to folders are not followed. Each row links to its page (report.html,
audit.html) only when that file exists.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.records import MANIFEST_FILE, TRIALS_FILE
from harness.report._document import relative_path
from harness.report._index_audit import AUDIT_FILES, audit_row
from harness.report._index_propagation import propagation_row
from harness.report._index_run import run_row
from harness.report._index_sweep import MULTIRUN_FILE, sweep_row
from harness.report._propagation_report import is_propagation_run
from harness.report._runs import ReportInputError
from harness.report.html import HTML_FILE, IndexRow, Kind, write_index

AUDIT_PAGE = "audit.html"
NOTE = (
    "Every run directory (manifest.json or trials.jsonl), sweep (multirun.yaml), audit (audit.md or audit.html) and "
    "plant-and-trace study (propagation.json, once written) under this folder. trials: those of the run's plan recorded / at most how many it holds (every trial of a "
    "chain not yet won; a finished run holds what it recorded; ? when the manifest lists no tasks). Figures are "
    "each run's metrics.json, as the run last wrote it; an audit's time is when it was written. Click a column's "
    "heading to sort by it."
)


class Found(BaseModel):
    """A folder the index lists, and as what."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    path: Path


def kind_of(folder: Path, files: set[str]) -> Kind | None:
    """What a folder holding `files` is, if anything the index lists; a sweep first, as its folder holds the
    combined report of its jobs."""
    if MULTIRUN_FILE in files:
        return "sweep"
    if MANIFEST_FILE in files or TRIALS_FILE in files:
        return "run"
    if any(name in files for name in AUDIT_FILES):
        return "audit"
    if is_propagation_run(folder):
        return "propagation"
    return None


def find(folder: Path) -> list[Found]:
    """Every run, sweep and audit folder under `folder` (itself included), by path."""
    found = []
    for top, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        kind = kind_of(Path(top), set(files))
        if kind is not None:
            found.append(Found(kind=kind, path=Path(top)))
    return found


def shown_path(path: Path, folder: Path) -> str:
    """The path relative to the folder indexed; the folder itself by its own name, never '.'."""
    relative = Path(os.path.relpath(path, folder)).as_posix()
    return Path(folder).resolve().name if relative == "." else relative


def page_link(folder: Path, name: str, out_dir: Path) -> str | None:
    """The page `name` in `folder`, relative to the index in `out_dir`; None when there is no such file."""
    page = folder / name
    return relative_path(page, out_dir) if page.is_file() else None


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)


def index_rows(folder: Path, out_dir: Path) -> list[IndexRow]:
    """The rows of every folder found, by path: runs first read, then each sweep over the runs inside it."""
    found = find(folder)
    runs = {
        entry.path: run_row(entry.path, shown_path(entry.path, folder), page_link(entry.path, HTML_FILE, out_dir))
        for entry in found
        if entry.kind == "run"
    }
    rows = []
    for entry in found:
        shown = shown_path(entry.path, folder)
        if entry.kind == "run":
            rows.append(runs[entry.path])
        elif entry.kind == "sweep":
            jobs = [row for path, row in runs.items() if _inside(path, entry.path)]
            rows.append(sweep_row(entry.path, shown, jobs, page_link(entry.path, HTML_FILE, out_dir)))
        elif entry.kind == "propagation":
            rows.append(propagation_row(entry.path, shown, page_link(entry.path, HTML_FILE, out_dir)))
        else:
            rows.append(audit_row(entry.path, shown, page_link(entry.path, AUDIT_PAGE, out_dir)))
    return rows


def check_folder(folder: Path) -> None:
    """ReportInputError naming `folder` unless it is a folder."""
    if not folder.exists():
        raise ReportInputError(f"{folder} does not exist; give the folder that holds the runs, e.g. results/.")
    if not folder.is_dir():
        raise ReportInputError(f"{folder} is a file, not a folder; give the folder that holds the runs, e.g. results/.")


def write_index_page(folder: Path, out_dir: Path | None = None) -> Path:
    """index.html in `out_dir` (default: `folder`) listing everything under `folder`; ReportInputError when the
    folder is missing or holds nothing to list."""
    folder = Path(folder)
    check_folder(folder)
    out = Path(out_dir) if out_dir is not None else folder
    rows = index_rows(folder, out)
    if not rows:
        raise ReportInputError(
            f"{folder} holds no run directory ({MANIFEST_FILE} or {TRIALS_FILE}), sweep ({MULTIRUN_FILE}), audit "
            f"({' or '.join(AUDIT_FILES)}) or propagation study at any depth; give the folder the runs were written "
            "to, e.g. results/."
        )
    out.mkdir(parents=True, exist_ok=True)
    return write_index(f"Index: {shown_path(folder, folder)}", NOTE, rows, out)

