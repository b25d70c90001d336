"""`python run.py` checks its input once: one validation, one domain build and one HTTP probe per run (per job in a
sweep, under the basic launcher and under joblib's, whose jobs run in other processes), whether the Hydra callback or
the task asks.

The run is the real command in a subprocess; the two functions are counted where they are defined, in every process
of the run (a `sitecustomize` on the path counts them in joblib's workers too), and the probes by the real server
(tests/scripted_server.py, the real openai client over HTTP).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.runner import ROOT, quiet
from tests.scripted_server import ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"

# Imported by every Python process of the run, before its own code: counts the two functions in that process.
COUNTING = """
import json, os
from harness.domains import registry
from harness.run import validation

def counted(name, function):
    def call(*args, **kwargs):
        with open(os.environ["HARNESS_COUNTS"], "a") as counts:
            counts.write(json.dumps([name, os.getpid()]) + "\\n")
        return function(*args, **kwargs)
    return call

validation.validate_config = counted("validate_config", validation.validate_config)
registry.build_domain = counted("build_domain", registry.build_domain)
"""

pytestmark = pytest.mark.slow


def counted_run(
    tmp_path: Path, server: ScriptedServer, *overrides: str, sweep: bool = False
) -> tuple[Counter[str], dict[str, set[int]]]:
    """The run's validations, domain builds and probes; and the processes that validated and built."""
    (tmp_path / "counting").mkdir()
    (tmp_path / "counting" / "sitecustomize.py").write_text(COUNTING)
    counts = tmp_path / "counts.jsonl"
    command = [
        *(sys.executable, str(ROOT / "run.py"), *(["-m"] if sweep else [])),
        *quiet("model=openai-compatible", "model.model=served-a", f"model.base_url={server.base_url}"),
        *("llm.cache.mode=off", "env.set=null", f"env.games=[{GAME}]", "experiment.trials=1", *overrides),
    ]
    path = os.pathsep.join([str(tmp_path / "counting"), str(ROOT)])
    env = {**os.environ, "OPENAI_API_KEY": "none", "HARNESS_COUNTS": str(counts), "PYTHONPATH": path}
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    calls = [json.loads(line) for line in counts.read_text().splitlines()]
    processes = {name: {pid for n, pid in calls if n == name} for name, _ in calls}
    return Counter(name for name, _ in calls) + Counter({"probes": len(server.gets)}), processes


def test_a_run_validates_builds_and_probes_once(tmp_path: Path) -> None:
    with ScriptedServer([" go to desk 1"] * 3) as server:
        counts, _ = counted_run(tmp_path, server, "strategy=self_diagnosis", f"hydra.run.dir={tmp_path / 'run'}")
        assert server.gets == ["/v1/models"]
    assert counts == {"validate_config": 1, "build_domain": 1, "probes": 1}
    assert (tmp_path / "run" / "trials.jsonl").exists()


def test_each_job_of_a_sweep_validates_builds_and_probes_once(tmp_path: Path) -> None:
    with ScriptedServer([" go to desk 1"] * 6) as server:
        counts, processes = counted_run(
            tmp_path, server, "strategy=self_diagnosis,no_memory", f"hydra.sweep.dir={tmp_path / 'sweep'}", sweep=True
        )
    assert counts == {"validate_config": 2, "build_domain": 2, "probes": 2}
    assert processes["validate_config"] == processes["build_domain"], "the basic launcher runs jobs in its process"
    assert sorted(p.name for p in (tmp_path / "sweep").iterdir() if p.is_dir()) == ["0", "1"]


def test_each_job_under_joblib_is_validated_before_the_sweep_and_builds_and_probes_once_in_its_worker(
    tmp_path: Path,
) -> None:
    sweep_dir = tmp_path / "sweep"
    with ScriptedServer([" go to desk 1"] * 6) as server:
        counts, processes = counted_run(
            tmp_path, server, "strategy=self_diagnosis,no_memory", "hydra/launcher=joblib", "hydra.launcher.n_jobs=2",
            f"hydra.sweep.dir={sweep_dir}", sweep=True,
        )  # fmt: skip
    # Validated in the launching process before the first job starts; each domain built in a worker.
    assert counts == {"validate_config": 2, "build_domain": 2, "probes": 2}
    assert len(processes["validate_config"]) == 1 and not processes["validate_config"] & processes["build_domain"]
    for job in ("0", "1"):
        log = (sweep_dir / job / "run.log").read_text()
        assert log.count("this job built its domain and probed its models once, in its own process") == 1
        assert (sweep_dir / job / "trials.jsonl").exists()
