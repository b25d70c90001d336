"""A held-out run on the tasks frozen in its selection run (`env.frozen_in`) resumes on the tasks it started on: the
selection run is read once, checked finished, its state kept in the manifest, and a resumption that would select
other tasks is refused naming them; the path is recorded absolute, so the run resumes from any directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.records import read_manifest
from tests.finished_runs import HELD_OUT_CACHE
from tests.in_process import run_in_process
from tests.runner import run_cli

# The held-out comparison cut to its no_memory condition for one trial: five replayed requests on the frozen set.
SMALL_HELD_OUT = (
    "experiment=hotpotqa_held_out",
    "strategy=no_memory",
    "experiment.trials=1",
    "llm.cache.mode=replay",
    f"llm.cache.path={HELD_OUT_CACHE}",
)


def _without_task(run: Path, task: str) -> None:
    """The selection run hand-edited: every record of `task` removed."""
    trials = run / "trials.jsonl"
    lines = trials.read_bytes().splitlines(keepends=True)
    trials.write_bytes(b"".join(line for line in lines if f'"task_id":"{task}"'.encode() not in line))


def test_a_held_out_rerun_after_its_selection_run_changed_is_refused_naming_the_dropped_task(
    held_out_runs: tuple[Path, Path], copy_run: Callable[[Path], Path], tmp_path: Path
) -> None:
    selection = copy_run(held_out_runs[0])
    held_out = tmp_path / "held_out"
    first = run_cli(*SMALL_HELD_OUT, f"env.frozen_in={selection}", f"hydra.run.dir={held_out}")
    assert first.returncode == 0, first.stderr
    manifest = read_manifest(held_out)
    assert manifest is not None and manifest.selection is not None and manifest.tasks
    assert manifest.selection.records == len((selection / "trials.jsonl").read_bytes().splitlines())
    # A plain rerun selects the same tasks and resumes, playing nothing.
    again = run_cli(*SMALL_HELD_OUT, f"env.frozen_in={selection}", f"hydra.run.dir={held_out}")
    assert again.returncode == 0, again.stderr
    dropped = manifest.tasks[0]
    _without_task(selection, dropped)
    kept = {name: (held_out / name).read_bytes() for name in ("trials.jsonl", "manifest.json", "metrics.json")}
    refused = run_cli(*SMALL_HELD_OUT, f"env.frozen_in={selection}", f"hydra.run.dir={held_out}")
    assert refused.returncode == 2, refused.stderr
    error = refused.stderr.strip().splitlines()[-1]
    assert error.startswith(f"error: env.frozen_in={selection} selects other tasks than this run started on (")
    assert f"{len(manifest.tasks)} task(s) then, {len(manifest.tasks) - 1} now; dropped: {dropped};" in error
    assert "+resume.allow_config_change=true" in error
    assert {name: (held_out / name).read_bytes() for name in kept} == kept


def test_a_relative_frozen_in_is_recorded_absolute_so_the_run_resumes_from_another_directory(
    held_out_runs: tuple[Path, Path], copy_run: Callable[[Path], Path], tmp_path: Path
) -> None:
    selection = copy_run(held_out_runs[0])
    assert selection.parent == tmp_path
    held_out, elsewhere = tmp_path / "held_out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    command = ("progress=false", *SMALL_HELD_OUT, f"hydra.run.dir={held_out}")
    first = run_in_process(*command, f"env.frozen_in={selection.name}", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    manifest = read_manifest(held_out)
    assert manifest is not None and manifest.selection is not None
    assert manifest.config["env"]["frozen_in"] == manifest.selection.path == str(selection)
    resumed = run_in_process(*command, f"env.frozen_in=../{selection.name}", cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr


def test_an_empty_frozen_in_is_refused_as_empty_not_quoted_back_as_the_current_directory(tmp_path: Path) -> None:
    result = run_cli(*SMALL_HELD_OUT, "env.frozen_in=", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: env.frozen_in = '' is invalid: it is empty: name the selection run's directory, or leave "
        "env.frozen_in unset (null)."
    )
    assert not (tmp_path / "run").exists()


def test_the_hotpotqa_held_out_refusal_advises_the_hotpotqa_first_stage(tmp_path: Path) -> None:
    result = run_cli("experiment=hotpotqa_held_out", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 2
    assert "(step 1: python run.py experiment=hotpotqa_held_out_select)." in result.stderr
    alfworld = run_cli("experiment=held_out", f"hydra.run.dir={tmp_path / 'run'}")
    assert "(step 1: python run.py experiment=held_out_select)." in alfworld.stderr
