"""Finished runs played once per test session, in this process, with no model reachable: the small replay, the
five-condition demo (with its gated condition, as the README plays it), the HotpotQA and HumanEval demos, the
held-out pair and a two-job sweep; the audit of every published log, with its page; and the semantic audit of the
published ALFWorld runs (the embedding model's only pass over them). A test that only reads a run takes the fixture; one that changes files in it takes
`copy_run(fixture)`, never the run itself.

Registered for the whole suite by tests/conftest.py (`pytest_plugins`). Under pytest-xdist the workers share one
folder: the first worker to need a run plays it while holding its lock, the others wait and read it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.in_process import run_in_process
from tests.runner import REPLAY_CACHE, ROOT
from tests.small_run import SMALL_RUN

FIXTURES = ROOT / "tests" / "fixtures"
LOGS = ROOT / "data" / "reflexion-logs"
FIVE_CONDITIONS_CACHE = FIXTURES / "five_conditions" / "llm_cache.jsonl"
HOTPOTQA_CACHE = FIXTURES / "hotpotqa" / "llm_cache.jsonl"
HUMANEVAL_CACHE = FIXTURES / "humaneval" / "llm_cache.jsonl"
HELD_OUT_CACHE = FIXTURES / "held_out" / "llm_cache.jsonl"

# The README's and docs' commands, word for word (tests/test_docs_commands.py runs them through these runs).
FIVE = (
    "python run.py experiment=five_conditions_demo "
    "'strategy=[self_diagnosis,no_memory,grounded_template,programmatic,model_swap,gated]' llm.cache.mode=replay "
    "llm.cache.path=tests/fixtures/five_conditions/llm_cache.jsonl hydra.run.dir=results/runs/five"
)
HOTPOTQA = (
    "python run.py experiment=hotpotqa_demo llm.cache.mode=replay "
    "llm.cache.path=tests/fixtures/hotpotqa/llm_cache.jsonl hydra.run.dir=results/runs/hotpotqa"
)
HUMANEVAL = (
    "python run.py experiment=humaneval_demo llm.cache.mode=replay "
    "llm.cache.path=tests/fixtures/humaneval/llm_cache.jsonl hydra.run.dir=results/runs/humaneval"
)
INSIGHTS_PLANT = (
    "python run.py experiment=hotpotqa_insights_plant llm.cache.mode=replay "
    "llm.cache.path=tests/fixtures/insights_plant/llm_cache.jsonl hydra.run.dir=results/runs/insights_plant"
)
HELD_OUT_SELECT = ("experiment=hotpotqa_held_out_select", "llm.cache.mode=replay", f"llm.cache.path={HELD_OUT_CACHE}")
HELD_OUT = ("experiment=hotpotqa_held_out", "llm.cache.mode=replay", f"llm.cache.path={HELD_OUT_CACHE}")
SWEEP_STRATEGIES = ("self_diagnosis", "no_memory")
SWEEP = (
    "experiment=default",
    "model=qwen2.5-coder-1.5b",
    "env.first_n=1",
    "experiment.trials=1",
    f"llm.cache.path={REPLAY_CACHE}",
    "llm.cache.mode=replay",
)


def documented_overrides(command: str) -> list[str]:
    """The overrides of a documented `python run.py ...` command, but its `hydra.run.dir`, which a test chooses."""
    words = shlex.split(command)
    assert words[:2] == ["python", "run.py"], command
    return [word for word in words[2:] if not word.startswith("hydra.run.dir=")]


def play(run_dir: Path, *overrides: str, multirun: bool = False) -> Path:
    """`python run.py <overrides>` into `run_dir` (in this process, no model reachable); fails unless it exits 0.
    Played once per test session, whichever worker asks first."""

    def make() -> None:
        no_models = run_dir.parent / f"{run_dir.name}-no-models"
        shutil.rmtree(no_models, ignore_errors=True)
        no_models.mkdir(parents=True)
        where = f"hydra.sweep.dir={run_dir}" if multirun else f"hydra.run.dir={run_dir}"
        flags = ["-m"] if multirun else []
        result = run_in_process(
            *flags, "progress=false", *overrides, where, env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)}
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert list(no_models.iterdir()) == [], "a replay assembled or loaded a model"

    return _once(run_dir, make)


def _once(target: Path, make: Callable[[], None]) -> Path:
    """`target`, made by `make` unless a worker of this session made it already."""
    with _held(target.with_name(f"{target.name}.lock")):
        made = target.with_name(f"{target.name}.made")
        if not made.exists():
            shutil.rmtree(target, ignore_errors=True)  # left by a worker that failed while making it
            make()
            made.touch()
    return target


@contextmanager
def _held(lock: Path) -> Iterator[None]:
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def finished_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the session's finished runs are played into: one for all xdist workers (their common basetemp)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return tmp_path_factory.mktemp("finished")
    shared = tmp_path_factory.getbasetemp().parent / "finished"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture(scope="session")
def small_run(finished_runs: Path) -> Path:
    """One ALFWorld game, two trials, replayed (tests/small_run.py)."""
    return play(finished_runs / "small", *SMALL_RUN)


@pytest.fixture(scope="session")
def five_conditions_run(finished_runs: Path) -> Path:
    """The README's five-condition demo with its gated condition: six conditions, three games, three trials."""
    return play(finished_runs / "five", *documented_overrides(FIVE))


@pytest.fixture(scope="session")
def hotpotqa_demo_run(finished_runs: Path) -> Path:
    return play(finished_runs / "hotpotqa", *documented_overrides(HOTPOTQA))


@pytest.fixture(scope="session")
def insights_plant_run(finished_runs: Path) -> Path:
    """docs/insights.md's run: HotpotQA under memory.scope=insights with a reflection planted in one training task."""
    return play(finished_runs / "insights_plant", *documented_overrides(INSIGHTS_PLANT))


@pytest.fixture(scope="session")
def humaneval_demo_run(finished_runs: Path) -> Path:
    return play(finished_runs / "humaneval", *documented_overrides(HUMANEVAL))


@pytest.fixture(scope="session")
def held_out_runs(finished_runs: Path) -> tuple[Path, Path]:
    """docs/held-out-and-repeats.md's two commands: the selection run, then the comparison on its frozen questions."""
    select = play(finished_runs / "held_out_select", *HELD_OUT_SELECT)
    return select, play(finished_runs / "held_out", *HELD_OUT, f"env.frozen_in={select}")


@pytest.fixture(scope="session")
def sweep_run(finished_runs: Path) -> Path:
    """`python run.py -m` over two strategies of the small default job (basic launcher): job 0 and job 1."""
    return play(finished_runs / "sweep", *SWEEP, f"strategy={','.join(SWEEP_STRATEGIES)}", multirun=True)


@pytest.fixture(scope="session")
def semantic_alfworld_audit(finished_runs: Path) -> Path:
    """`reflexion-audit --semantic` over the two published ALFWorld runs, with the real embedding model:
    its folder holds the audit (`out/`) and the embedding cache it filled (`embeddings.npz`, every reflection)."""
    from harness.cli.audit import main as audit_main

    folder = finished_runs / "semantic_audit"

    def make() -> None:
        logs = folder / "logs"
        shutil.copytree(LOGS / "alfworld_runs", logs / "alfworld_runs")
        arguments = ["--semantic", "--logs", str(logs), "--embedding-cache", str(folder / "embeddings.npz")]
        audit_main([*arguments, "--out", str(folder / "out")])

    return _once(folder, make)


@pytest.fixture(scope="session")
def published_audit(finished_runs: Path) -> Path:
    """`reflexion-audit --html` over every shipped source: the folder holding audit.json, audit.md and
    audit.html (the audit's tables and its page read the same run)."""
    from harness.cli.audit import main as audit_main

    folder = finished_runs / "published_audit"
    return _once(folder, lambda: audit_main(["--out", str(folder), "--html"]))


@pytest.fixture
def copy_run(tmp_path: Path) -> Callable[[Path], Path]:
    """`copy_run(run)`: a copy of a finished run in this test's folder (`run` beside its `run-<n>` copies), to
    change at will."""

    def copy(run: Path) -> Path:
        target = tmp_path / "run"
        number = 1
        while target.exists():
            number += 1
            target = tmp_path / f"run-{number}"
        return Path(shutil.copytree(run, target, symlinks=True))

    return copy
