"""Scenarios: runs that are not trials of a task set (the planted-question reflection, the propagation studies,
the re-reflection bank).

`run_scenario` plays the one a run's config names; a new scenario is its config model in harness/run/config.py's
`scenario` union and one branch here.
"""

from __future__ import annotations

from pathlib import Path

from harness.run.config import EntryConfig, PropagationConfig, ReachConfig, RunConfig
from harness.run.diagnosis_bank_config import DiagnosisBankConfig


def run_scenario(config: RunConfig, run_dir: Path) -> None:
    """Play the scenario `config.scenario` into `run_dir`, printing what it found."""
    scenario = config.scenario
    if scenario is None:
        raise ValueError("run_scenario needs a config with a scenario")
    if isinstance(scenario, PropagationConfig):
        _propagation(scenario, config, run_dir)
    elif isinstance(scenario, EntryConfig):
        _entry(scenario, config, run_dir)
    elif isinstance(scenario, ReachConfig):
        _reach(scenario, config, run_dir)
    elif isinstance(scenario, DiagnosisBankConfig):
        from harness.run.scenarios.diagnosis_bank import bank_study

        print(bank_study(scenario, config.reflector, run_dir), end="")
    else:
        from harness.run.scenarios.planted_refusal import describe, run_planted_refusal

        print(describe(run_planted_refusal(scenario, config.reflector, config.experiment.seed, run_dir)))


def _propagation(scenario: PropagationConfig, config: RunConfig, run_dir: Path) -> None:
    """The plant-and-trace study on the published ALFWorld log, its table printed and its report written."""
    from harness.audit.published_experience import (
        READS, SOURCE, evaluation_games, published_reflections, published_study_tasks,
    )
    from harness.reflection.insights.trace import markdown
    from harness.report import write_propagation_report
    from harness.run.scenarios.propagation import run_propagation

    study = run_propagation(scenario, config.reflector, published_study_tasks(), evaluation_games(),
                            published_reflections(), READS, SOURCE, run_dir)
    print(markdown(study))
    write_propagation_report(run_dir, run_dir, study)  # report.md and report.html, as every run ends


def _entry(scenario: EntryConfig, config: RunConfig, run_dir: Path) -> None:
    """The entry study: each published ALFWorld reflection shown to an empty library."""
    from harness.audit.published_experience import READS, SOURCE, published_entry_tasks
    from harness.reflection.insights.entry_trace import entry_markdown
    from harness.run.scenarios.entry import run_entry

    tasks = published_entry_tasks(scenario.envs)
    print(entry_markdown(run_entry(scenario, config.reflector, tasks, READS, SOURCE, run_dir)))


def _reach(scenario: ReachConfig, config: RunConfig, run_dir: Path) -> None:
    """Behavioural reach: a carried rule's evaluation games played by the run's actor with and without it."""
    from harness.llm import CachedLLM, CacheStore, create_backend
    from harness.reflection.insights.reach_trace import reach_markdown
    from harness.run.scenarios.reach import read_build, run_reach

    build = read_build(scenario)
    llm = CachedLLM(create_backend(config.actor), CacheStore(Path(scenario.cache.path)), scenario.cache.mode)
    print(reach_markdown(run_reach(scenario, config.actor.name, llm, build, run_dir)))
