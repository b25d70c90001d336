"""`python run.py` checks its input once: one validation, one domain build and one HTTP probe per run (per job in a
sweep), whether the Hydra callback or the task asks.

The run is the real command in a subprocess, with the two functions counted where they are defined, and the
probes counted by the real server (tests/scripted_server.py, the real openai client over HTTP).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner import ROOT
from tests.scripted_server import ScriptedServer

GAME = "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896"

COUNTING_RUN = """
import atexit, json, runpy, sys
from harness.domains import registry
from harness.run import config

counts = {"validate_config": 0, "build_domain": 0}

def counted(name, function):
    def call(*args, **kwargs):
        counts[name] += 1
        return function(*args, **kwargs)
    return call

config.validate_config = counted("validate_config", config.validate_config)
registry.build_domain = counted("build_domain", registry.build_domain)
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(counts)))
sys.argv.pop(0)
runpy.run_path(sys.argv[0], run_name="__main__")
"""

pytestmark = pytest.mark.slow


def counted_run(tmp_path: Path, server: ScriptedServer, *overrides: str, sweep: bool = False) -> dict[str, int]:
    wrapper = tmp_path / "counting_run.py"
    wrapper.write_text(COUNTING_RUN)
    counts = tmp_path / "counts.json"
    command = [
        *(sys.executable, str(wrapper), str(counts), str(ROOT / "run.py"), *(["-m"] if sweep else []), "progress=false", "model=openai-compatible"),
        *("model.model=served-a", f"model.base_url={server.base_url}", "llm.cache.mode=off", "env.set=null"),
        *(f"env.games=[{GAME}]", "experiment.trials=1", *overrides),
    ]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": "none"}
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return {**json.loads(counts.read_text()), "probes": len(server.gets)}


def test_a_run_validates_builds_and_probes_once(tmp_path: Path) -> None:
    with ScriptedServer([" go to desk 1"] * 3) as server:
        counts = counted_run(tmp_path, server, "strategy=self_diagnosis", f"hydra.run.dir={tmp_path / 'run'}")
        assert server.gets == ["/v1/models"]
    assert counts == {"validate_config": 1, "build_domain": 1, "probes": 1}
    assert (tmp_path / "run" / "trials.jsonl").exists()


def test_each_job_of_a_sweep_validates_builds_and_probes_once(tmp_path: Path) -> None:
    with ScriptedServer([" go to desk 1"] * 6) as server:
        counts = counted_run(
            tmp_path, server, "strategy=self_diagnosis,no_memory", f"hydra.sweep.dir={tmp_path / 'sweep'}", sweep=True
        )
    assert counts == {"validate_config": 2, "build_domain": 2, "probes": 2}
    assert sorted(p.name for p in (tmp_path / "sweep").iterdir() if p.is_dir()) == ["0", "1"]
