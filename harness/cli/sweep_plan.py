"""Which jobs a sweep launches, planned before the first starts: each job's number, swept values, directory and
composed config, the way the basic sweeper and its launchers make them."""

from __future__ import annotations

import copy
from pathlib import Path

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from harness.cli.overrides import as_written
from harness.errors import HarnessError
from harness.records.sweep_job import SweepJob

BASIC_SWEEPER = f"{BasicSweeper.__module__}.{BasicSweeper.__name__}"


class UnknownSweeperError(HarnessError):
    """The sweep's jobs cannot be listed before they run: another sweeper than the basic one plans them."""


def task_config(config: DictConfig) -> DictConfig:
    """The config the run's code sees: without the `hydra` node (as Hydra's run_job hands it over)."""
    task = copy.deepcopy(config)
    with read_write(task), open_dict(task):
        del task["hydra"]
    return task


def planned_job_configs(config: DictConfig) -> list[tuple[SweepJob, DictConfig]]:
    """The jobs the basic sweeper launches for `config`, in job-number order, each with its composed config.

    Each job's config is composed the way the launchers do, so any `hydra.sweep.subdir` pattern resolves as it
    will in the job. The split is the basic sweeper's own (hydra-core is pinned).
    """
    target = config.hydra.sweeper.get("_target_")
    if target != BASIC_SWEEPER:
        raise UnknownSweeperError(f"the sweep report knows the jobs of {BASIC_SWEEPER} only, not of {target}.")
    # Resolved first, its ${now:...} is cached in `config`, where the sweeper finds it and every job config copies it.
    sweep_dir = Path(str(config.hydra.sweep.dir))
    loader = GlobalHydra.instance().config_loader()
    params = [f"{key}={value}" for key, value in (config.hydra.sweeper.get("params") or {}).items()]
    task = OmegaConf.to_container(config.hydra.overrides.task, resolve=False)
    overrides = OverridesParser.create(config_loader=loader).parse_overrides([*params, *task])
    swept = {o.get_key_element() for o in overrides if o.is_sweep_override()}
    # max_batch_size only cuts the job list into batches; job numbers run on across them.
    (all_jobs,) = BasicSweeper.split_arguments(overrides, None)
    jobs = []
    for num, job_overrides in enumerate(all_jobs):
        job_config = loader.load_sweep_config(config, job_overrides)
        with open_dict(job_config):
            job_config.hydra.job.num = num
        job = SweepJob(
            num=num,
            # The command line spells every setting `++key=value` and a role's model `model@actor_model=x`
            # (harness.cli.overrides); the table shows them as written.
            overrides=[as_written(o) for o in job_overrides if o.split("=", 1)[0] in swept],
            directory=sweep_dir / str(job_config.hydra.sweep.subdir),
        )
        jobs.append((job, job_config))
    return jobs

