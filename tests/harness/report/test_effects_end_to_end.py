"""The effects table end to end: `python run.py -m` on HotpotQA against the simulated server (tests/simulated_server.py,
a test instrument) over real HTTP, each job one simulated study of self_diagnosis against no_memory on the same
questions; every job's effects.json must find a planted effect, and most studies of a null must not.

Planted: an actor prompt holding reflections (self_diagnosis from its second trial) is answered right with
probability 0.95, any other with 0.1; over 2 trials self_diagnosis then solves a question with probability 0.955 and
no_memory with 0.19. Null: 0.5 everywhere (both solve with probability 0.75). 12 questions, 3 studies each: a
handful, to show the harness's own run, report and effects.json carry the statistics; the power and
false-positive figures over hundreds of studies are tests/harness/metrics/test_paired_simulation.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.metrics.effects import EFFECTS_FILE, Effects
from harness.report import REPORT_FILE
from harness.report._document import PLOTS_OFF
from tests.runner import run_cli
from tests.simulated_server import SimulatedServer

QUESTIONS = 12
STUDIES = 3
PLANTED = (0.95, 0.1)
NULL = (0.5, 0.5)

pytestmark = pytest.mark.slow


def studies(sweep_dir: Path, probabilities: tuple[float, float], seed: int) -> list[Effects]:
    """STUDIES jobs of one sweep against one simulated server: each job's effects against self_diagnosis."""
    with SimulatedServer(*probabilities, seed=seed) as server:
        result = run_cli(
            "env=hotpotqa",
            f"env.first_n={QUESTIONS}",
            "strategy=[self_diagnosis,no_memory]",
            "experiment.trials=2",
            "experiment.max_concurrency=1",
            f"experiment.seed={','.join(str(s) for s in range(STUDIES))}",
            "model=openai-compatible",
            f"model.base_url={server.base_url}",
            "llm.cache.mode=off",
            "report.plots=false",  # the statistics are under test here, not the pictures
            f"hydra.sweep.dir={sweep_dir}",
            env={"OPENAI_API_KEY": "none"},
            multirun=True,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = sorted(path.parent for path in sweep_dir.glob(f"*/{EFFECTS_FILE}"))
    assert len(jobs) == STUDIES
    return [Effects.model_validate_json((job / EFFECTS_FILE).read_text()) for job in jobs]


def solved_row(effects: Effects):
    (row,) = [row for row in effects.rows if row.measure == "solved"]
    assert (row.condition, row.n, row.dropped, row.test) == ("no_memory", QUESTIONS, 0, "mcnemar_exact")
    return row


def test_a_planted_effect_is_found_in_every_study_and_in_the_sweep_report(tmp_path: Path) -> None:
    results = [solved_row(effects) for effects in studies(tmp_path / "planted", PLANTED, seed=1)]
    print("\nplanted:", [(round(r.difference, 2), r.discordant, f"{r.p_holm:.2g}") for r in results])
    assert all(r.significant and r.difference < 0 and r.ci_high is not None and r.ci_high < 0 for r in results)
    sweep_report = (tmp_path / "planted" / REPORT_FILE).read_text()
    # The jobs play the same questions, so the sweep keeps them apart (no task counted twice) and pairs nothing
    # across them: each job's own report (above) holds its effects.
    assert "self_diagnosis is kept apart over runs (runs of the same tasks" in sweep_report
    # Every job's report was written without plots, so the combined one is too.
    assert PLOTS_OFF in sweep_report and list((tmp_path / "planted").rglob("*.png")) == []


def test_a_null_is_not_significant_in_most_studies(tmp_path: Path) -> None:
    results = [solved_row(effects) for effects in studies(tmp_path / "null", NULL, seed=2)]
    print("\nnull:", [(round(r.difference, 2), r.discordant, f"{r.p_holm:.2g}") for r in results])
    assert sum(r.significant for r in results) <= 1
