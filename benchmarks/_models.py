"""A shipped model option as the benchmarks use it: composed by Hydra as a run composes `model=<name>`."""

from __future__ import annotations

from typing import Any

from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.run.config_dirs import CONFIG_DIR


def model_option(name: str) -> dict[str, Any]:
    """configs/model/<name>.yaml as the run's `model` section."""
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        composed = compose(config_name="config", overrides=[f"model={name}"])
    return OmegaConf.to_container(composed.model, resolve=True)  # type: ignore[return-value]
