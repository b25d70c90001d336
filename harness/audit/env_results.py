"""Importer for Reflexion's `env_results_trial_N.json` logs (ALFWorld and WebShop runs).

Each file is the state of every environment after trial N: `{name, memory, is_success, skip}`.
The last trial's file holds each environment's whole memory; the first file in which an
environment is a success gives the trial it was solved in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.audit.published import PublishedTask

_TRIAL_FILE_RE = re.compile(r"env_results_trial_(\d+)\.json")


def trial_files(run_dir: Path) -> list[Path]:
    """The run's `env_results_trial_N.json` files ordered by N (numerically: 10 after 9)."""
    numbered = [(int(m.group(1)), p) for p in run_dir.iterdir() if (m := _TRIAL_FILE_RE.fullmatch(p.name))]
    if not numbered:
        raise FileNotFoundError(f"{run_dir} holds no env_results_trial_N.json file.")
    numbers = sorted(n for n, _ in numbered)
    if numbers != list(range(len(numbers))):
        raise ValueError(f"{run_dir}: trial files are not numbered 0..N without gaps: {numbers}.")
    return [p for _, p in sorted(numbered)]


def _read_trial(path: Path) -> dict[str, dict]:
    try:
        entries = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        # json's own message gives a line and column but not the file, and a run has one file per trial.
        raise ValueError(f"{path} is not complete JSON (truncated or corrupt?): {error}.") from error
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "name" in e for e in entries):
        raise ValueError(f"{path} is not a list of {{name, memory, is_success}} objects.")
    return {entry["name"]: entry for entry in entries}


def load_env_results_run(run_dir: Path, domain: str, source: str | None = None) -> list[PublishedTask]:
    """Every environment of one run folder, in the order of its last trial file."""
    files = trial_files(run_dir)
    trials = [_read_trial(path) for path in files]
    tasks = []
    for name, final in trials[-1].items():
        won_in = [n for n, trial in enumerate(trials) if trial.get(name, {}).get("is_success")]
        tasks.append(
            PublishedTask(
                domain=domain,
                source=source or run_dir.name,
                task_id=name,
                reflections=[str(r) for r in final.get("memory", [])],
                solved=bool(won_in),
                trial_solved=won_in[0] if won_in else None,
                trials=(won_in[0] + 1) if won_in else len(trials),
            )
        )
    return tasks
