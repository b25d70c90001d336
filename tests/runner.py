"""Run the real entry point: in this process (`run_cli`), or in a new one where only a process shows the behaviour
(`run_process`, `replay_side_by_side`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from tests.in_process import Outcome, run_in_process

ROOT = Path(__file__).resolve().parents[1]
REPLAY_CACHE = ROOT / "tests" / "fixtures" / "replay" / "llm_cache.jsonl"


def as_from_a_terminal() -> None:
    """A child's preexec_fn: Ctrl-C and a hang-up as a terminal delivers them, though a shell started the suite in
    the background or under nohup and handed SIGINT or SIGHUP down ignored, which the run keeps by design."""
    for stop_signal in (signal.SIGINT, signal.SIGHUP):
        signal.signal(stop_signal, signal.SIG_DFL)


def reflector_stop_override(model: str) -> str:
    """`+model.reflector_stop=[...]` with the stop list of embedded `model`, for a run that asks an
    OpenAI-compatible server what that model answered (Hydra keeps a raw newline inside quotes as it is)."""
    stops = yaml.safe_load((ROOT / "configs" / "model" / f"{model}.yaml").read_text())["reflector_stop"]
    return "+model.reflector_stop=[" + ",".join(f'"{stop}"' for stop in stops) + "]"


def quiet(*overrides: str) -> list[str]:
    """`overrides` after progress lines off and, unless they set it, a report without PNG plots: most tests read a
    run's records and files, not its pictures (a test of the plots passes report.plots=true)."""
    plots = [] if any(o.startswith(("report.plots=", "report=")) for o in overrides) else ["report.plots=false"]
    return ["progress=false", *plots, *overrides]


def run_process(
    *overrides: str, env: dict[str, str] | None = None, multirun: bool = False, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """`python run.py [-m] <overrides>` in a new process from the repository root, `quiet`: for what only a process
    shows (exit by signal, a launcher's worker processes, an installed plugin's entry points)."""
    flags = ["-m"] if multirun else []
    return subprocess.run(
        [sys.executable, str(ROOT / "run.py"), *flags, *quiet(*overrides)],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_cli(*overrides: str, env: dict[str, str] | None = None, multirun: bool = False) -> Outcome:
    """`python run.py [-m] <overrides>` run in this process (tests/in_process.py), `quiet`."""
    flags = ["-m"] if multirun else []
    return run_in_process(*flags, *quiet(*overrides), env=env)


def replay_side_by_side(
    experiment: str, cache: Path, root: Path, copies: int = 2, overrides: tuple[str, ...] = ()
) -> list[Path]:
    """Replay `experiment=<experiment> <overrides>` from `cache` `copies` times at once (one core each), with
    no model reachable; returns the run directories. Fails on a non-zero exit or if any model was touched."""
    no_models = root / "no-models"
    no_models.mkdir()
    runs = [root / f"run{index}" for index in range(copies)]
    command = [sys.executable, str(ROOT / "run.py"), f"experiment={experiment}", *overrides, "llm.cache.mode=replay"]
    processes = [
        subprocess.Popen(
            [*command, *quiet(f"llm.cache.path={cache}", f"hydra.run.dir={run}")],
            cwd=ROOT,
            env={**os.environ, "REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for run in runs
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=1800)
        assert process.returncode == 0, stderr
    assert list(no_models.iterdir()) == [], "a replay assembled or loaded a model"
    return runs


def one_error_line(stderr: str) -> str:
    """The one line a refused command prints: `error: <sentence>`, nothing else."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]
