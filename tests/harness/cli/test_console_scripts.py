"""The console scripts of [project.scripts] work as installed, from any directory: each command's entry point is
the one `python run.py` and `python -m ...` call."""

from __future__ import annotations

import subprocess
import sysconfig
from pathlib import Path

import pytest

from harness.records import read_trials
from tests.in_process import run_module
from tests.runner import REPLAY_CACHE, quiet, run_cli

# script -> the module whose `python -m` it stands for
SCRIPTS = {
    "reflexion-report": "harness.cli.report",
    "reflexion-audit": "harness.cli.audit",
    "reflexion-gate": "harness.cli.gate",
    "reflexion-identity": "harness.cli.identity",
    "reflexion-diagnosis": "harness.cli.diagnosis_command",
    "reflexion-trace": "harness.cli.trace",
    "reflexion-track": "harness.cli.track",
    "reflexion-hotpotqa-runs": "harness.cli.hotpotqa_runs",
    "reflexion-sandbox": "envs.sandbox",
}


def script(name: str) -> Path:
    path = Path(sysconfig.get_path("scripts")) / name
    assert path.exists(), f"{path} is missing: install the project (pip install -e .) so its scripts exist"
    return path


def run_script(name: str, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(script(name)), *arguments], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_every_script_answers_help_as_its_command_does(name: str, tmp_path: Path) -> None:
    result = run_script(name, "--help", cwd=tmp_path)
    command = run_module(SCRIPTS[name], "--help")  # in this process: the script is the process under test
    assert result.returncode == command.returncode == 0, result.stderr
    assert result.stdout == command.stdout  # each usage names its `python -m` form either way
    assert result.stdout.strip()


def test_reflexion_run_refuses_a_typo_with_one_sentence(tmp_path: Path) -> None:
    result = run_script("reflexion-run", "strategy=self_diagnosys", f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: strategy=self_diagnosys is not a known strategy")
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_reflexion_run_replays_the_main_job_from_another_directory(tmp_path: Path) -> None:
    result = run_script(
        "reflexion-run",
        *quiet("llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}", "llm.n_threads=1"),
        "hydra.run.dir=run",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    same = run_cli("llm.cache.mode=replay", f"llm.cache.path={REPLAY_CACHE}", "llm.n_threads=1", f"hydra.run.dir={tmp_path / 'same'}")
    assert same.returncode == 0, same.stderr[-2000:]
    strip = {"timing"}  # wall-clock figures differ between two runs
    ours, theirs = (
        [r.model_dump(exclude=strip) for r in sorted(read_trials(d), key=lambda r: (r.task_id, r.trial))]
        for d in (tmp_path / "run", tmp_path / "same")
    )
    assert ours == theirs and ours
