"""Sweeps through Hydra's launchers replay the committed cache: one run directory per job under the sweep
directory, the same records as plain runs, and one combined report beside them (harness/report/sweep.py).

Ray runs on a head this test starts on 127.0.0.1 and stops (its process group) afterwards; SLURM cannot run
here, so submitit is tested through its local executor, which pickles and starts jobs the same way.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from shutil import rmtree
from typing import Any

import pytest

from harness.records import read_manifest, read_trials, records_without_timing
from tests.runner import REPLAY_CACHE, run_cli, run_process

LAUNCHER_PLUGINS = ("hydra_plugins.hydra_joblib_launcher", "hydra_plugins.hydra_ray_launcher", "ray", "submitit")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not all(importlib.util.find_spec(name) for name in LAUNCHER_PLUGINS),
        reason="needs the optional extra 'sweeps' (pip install -e '.[sweeps]'), which is not installed",
    ),
]

# One game, one trial of the recorded run: every answer is in the committed cache, under either strategy.
SETTINGS = (
    "experiment=default",
    "model=qwen2.5-coder-1.5b",
    "env.first_n=1",
    "experiment.trials=1",
    f"llm.cache.path={REPLAY_CACHE}",
    "llm.cache.mode=replay",
)
# The combined report's plots are drawn and checked in one sweep (the basic launcher's); the others draw none.
PLOTS = "report.plots=true"
STRATEGIES = ("self_diagnosis", "no_memory")
SWEEP = f"strategy={','.join(STRATEGIES)}"
# Ray otherwise registers the node under the machine's outward address; this keeps the cluster on loopback.
LOOPBACK_RAY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


@pytest.fixture(scope="module")
def no_models(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An empty model directory: a replay that tried to assemble or load a model would leave files in it."""
    path = tmp_path_factory.mktemp("no-models")
    yield path
    assert list(path.iterdir()) == [], "a replay assembled or loaded a model"


@pytest.fixture(scope="module")
def sequential(tmp_path_factory: pytest.TempPathFactory, no_models: Path) -> dict[str, list[dict[str, Any]]]:
    """Each strategy replayed by a plain `python run.py`, one after the other: what every job must reproduce."""
    root = tmp_path_factory.mktemp("sequential")
    records = {}
    for strategy in STRATEGIES:
        result = run_cli(
            *SETTINGS,
            f"strategy={strategy}",
            f"hydra.run.dir={root / strategy}",
            env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
        )
        assert result.returncode == 0, result.stderr
        records[strategy] = records_without_timing(read_trials(root / strategy))
        assert records[strategy]
    return records


def sweep(
    sweep_dir: Path, no_models: Path, *overrides: str, env: dict[str, str] | None = None, process: bool = False
) -> str:
    """`python run.py -m` over the two strategies (in a new process with `process`: a launcher that starts workers
    of its own leaves them, and its client's state, in the process that launched it); returns its stdout, failing on
    a non-zero exit."""
    result = (run_process if process else run_cli)(
        *SETTINGS,
        SWEEP,
        *overrides,
        f"hydra.sweep.dir={sweep_dir}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models), **(env or {})},
        multirun=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_jobs_replayed(sweep_dir: Path, sequential: dict[str, list[dict[str, Any]]], plots: bool = False) -> None:
    """Job N ran strategy N to the end, with the records of the plain run, and the sweep's report holds both (with
    its plots where the sweep drew them)."""
    for num, strategy in enumerate(STRATEGIES):
        job = sweep_dir / str(num)
        manifest = read_manifest(job)
        assert manifest is not None and manifest.status == "finished", job
        assert (job / "trials.jsonl").read_bytes().endswith(b"\n"), "a torn last line"
        records = read_trials(job)
        assert all(r.llm_calls == r.cache_hits and r.llm_calls > 0 for r in records)
        assert records_without_timing(records) == sequential[strategy]
    report = (sweep_dir / "report.md").read_text()
    runs, conditions = report.split("## Runs", 1)[1].split("## Conditions", 1)
    assert "| 0 | [0](0) | finished |" in runs and "| 1 | [1](1) | finished |" in runs
    assert all(f"| {strategy} |" in conditions for strategy in STRATEGIES)
    jobs = report.split("## Sweep jobs", 1)[1]
    for num, strategy in enumerate(STRATEGIES):
        assert f"| {num} | strategy={strategy} | [{num}]({num}) | finished | yes |" in jobs
    assert "All 2 jobs finished." in jobs
    assert (sweep_dir / "solved_and_mention.png").is_file() == plots


def _files(folder: Path) -> dict[Path, bytes]:
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_refused_sweep_rerun_changes_nothing_and_relabels_no_job(
    tmp_path: Path, no_models: Path, sequential: dict[str, list[dict[str, Any]]]
) -> None:
    """Issue 26, severe 5: "A refused sweep rerun relabels the sweep": the same sweep with its list reversed plans
    job 0 as no_memory in the directory of the self_diagnosis run. It is refused before any job starts, so
    multirun.yaml, the report and every job's files stay as the first sweep left them."""
    sweep_dir = tmp_path / "sweep"
    sweep(sweep_dir, no_models, PLOTS)
    before = _files(sweep_dir)
    result = run_cli(
        *SETTINGS,
        PLOTS,
        f"strategy={','.join(reversed(STRATEGIES))}",
        f"hydra.sweep.dir={sweep_dir}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
        multirun=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"error: sweep job 0 (strategy={STRATEGIES[1]}): this run directory was started with conditions."
    ), result.stderr
    assert result.stderr.count("\n") == 1 and "sweep report:" not in result.stdout
    assert _files(sweep_dir) == before
    assert_jobs_replayed(sweep_dir, sequential, plots=True)


def test_joblib_runs_the_jobs_side_by_side(
    tmp_path: Path, no_models: Path, sequential: dict[str, list[dict[str, Any]]]
) -> None:
    out = sweep(tmp_path / "sweep", no_models, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2", process=True)
    assert f"sweep report: {tmp_path / 'sweep' / 'report.md'} (2 of 2 jobs)" in out
    assert_jobs_replayed(tmp_path / "sweep", sequential)


def test_submitit_local_runs_the_jobs(
    tmp_path: Path, no_models: Path, sequential: dict[str, list[dict[str, Any]]]
) -> None:
    sweep(tmp_path / "sweep", no_models, "hydra/launcher=submitit_local", process=True)
    assert_jobs_replayed(tmp_path / "sweep", sequential)


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free on 127.0.0.1 (held open together, so none is handed out twice)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def stop_process_group(pgid: int, grace: float = 3) -> None:
    """SIGTERM the group, then SIGKILL whatever is left after `grace` seconds. Ray's GCS outlives SIGTERM for more
    than 20 s; nothing of the test's cluster needs a clean shutdown, so it gets a short grace and then the kill."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.5)
    raise AssertionError(f"the Ray head's process group {pgid} outlived SIGKILL")


@pytest.fixture
def ray_head(no_models: Path) -> Iterator[str]:
    """A one-node Ray cluster on 127.0.0.1 with two CPUs; yields its address, stops it even on failure.

    Workers take their environment from `ray start`, not from the driver: the empty model directory goes here.
    """
    temp_dir = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # short: Ray's socket paths live under it
    flags = ("--port", "--ray-client-server-port", "--dashboard-port", "--dashboard-agent-listen-port")
    ports = dict(zip(flags, free_ports(len(flags))))
    head = subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--node-ip-address=127.0.0.1"]
        + [f"{flag}={value}" for flag, value in ports.items()]
        + ["--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp_dir}"],
        env={**os.environ, **LOOPBACK_RAY, "REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
        cwd=temp_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Its own process group: the daemons it leaves behind are stopped by group id, no one else's Ray.
        start_new_session=True,
    )
    try:
        _, stderr = head.communicate(timeout=300)
        assert head.returncode == 0, stderr
        yield f"127.0.0.1:{ports['--port']}"
    finally:
        stop_process_group(head.pid)
        rmtree(temp_dir, ignore_errors=True)


def test_ray_runs_the_jobs_on_a_cluster(
    tmp_path: Path, no_models: Path, sequential: dict[str, list[dict[str, Any]]], ray_head: str
) -> None:
    sweep(
        tmp_path / "sweep",
        no_models,
        "hydra/launcher=ray_cluster",
        f"hydra.launcher.ray.init.address={ray_head}",
        env=LOOPBACK_RAY,
        process=True,
    )
    assert_jobs_replayed(tmp_path / "sweep", sequential)


def test_a_failed_job_is_named_and_the_finished_ones_still_combined(
    tmp_path: Path, no_models: Path, sequential: dict[str, list[dict[str, Any]]]
) -> None:
    # Seed 12345 is not in the cache: job 1 stops at its first model call with a replay miss.
    sweep_dir = tmp_path / "sweep"
    # Its report is written at the process's exit (the basic launcher ends it through the job's sys.exit): a process.
    result = run_process(
        *SETTINGS,
        "strategy=no_memory",
        "experiment.seed=0,12345",
        f"hydra.sweep.dir={sweep_dir}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
        multirun=True,
    )
    assert result.returncode == 2 and "replay miss" in result.stderr
    assert records_without_timing(read_trials(sweep_dir / "0")) == sequential["no_memory"]
    assert f"sweep report: {sweep_dir / 'report.md'} (1 of 2 jobs; job 1 failed)" in result.stdout
    report = (sweep_dir / "report.md").read_text()
    runs = report.split("## Runs", 1)[1].split("## Conditions", 1)[0]
    assert "| 0 | [0](0) | finished |" in runs and "[1](1)" not in runs
    jobs = report.split("## Sweep jobs", 1)[1]
    assert "| 0 | experiment.seed=0 | [0](0) | finished | yes |" in jobs
    assert "| 1 | experiment.seed=12345 | [1](1) | failed | **no** |" in jobs
    assert "Missing: job 1 (experiment.seed=12345: failed)." in jobs
