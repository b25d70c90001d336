"""The study's settings refused in one sentence about the study (not about another scenario's model), repeats
counted once, and more training tasks than the published log holds refused before anything is asked (issue 47
items 17 and 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from harness.audit.published_experience import (
    READS, SOURCE, evaluation_games, published_reflections, published_study_tasks,
)
from harness.errors import ConfigError
from harness.llm import ModelConfig
from harness.run.config import PropagationConfig, RunConfig
from harness.run.validation import validate_config
from harness.run.config_dirs import CONFIG_DIR
from harness.run.scenarios.propagation import run_propagation


def _config(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate_config(compose(config_name="config", overrides=["experiment=propagation", *overrides]))


@pytest.mark.parametrize(("override", "says"), [
    ("scenario.seeds=[]", "scenario.seeds = [] is invalid: List should have at least 1 item"),
    ("scenario.plants=[bogus]", "scenario.plants.0 = 'bogus' is invalid: Input should be 'none', 'correct',"),
    ("scenario.training_tasks=1", "scenario.training_tasks = 1 is invalid: Input should be greater than or equal to 2"),
    ("scenario.max_tokens=0", "scenario.max_tokens = 0 is invalid: Input should be greater than or equal to 1"),
    ("scenario.plant_steps=[6]", "scenario.plant_steps = [6] is invalid: 6 is outside the order of 6 training tasks; "
                                 "accepted: 0 to 5, or -1 to -6 counted from the last."),
])
def test_a_bad_setting_is_one_sentence_about_the_study(override: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        _config(override)
    assert str(raised.value).startswith(says) and "PlantedRefusal" not in str(raised.value)


def test_repeated_seeds_gates_plants_and_steps_are_one_design_cell_each() -> None:
    scenario = _config("scenario.seeds=[0,0,1]", "scenario.gates=[true,true]", "scenario.plants=[none,none]",
                       "scenario.plant_steps=[0,0]").scenario
    assert isinstance(scenario, PropagationConfig)
    assert (scenario.seeds, scenario.gates, scenario.plants, scenario.plant_steps) == ([0, 1], [True], ["none"], [0])


def test_more_training_tasks_than_the_log_holds_is_refused_before_any_call(tmp_path: Path) -> None:
    scenario = _config("scenario.training_tasks=20", f"scenario.cache.path={tmp_path / 'cache.jsonl'}").scenario
    assert isinstance(scenario, PropagationConfig)
    model = ModelConfig(name="never", backend="openai", model="never", api="chat", base_url="http://127.0.0.1:9/v1",
                        api_key_env="OPENAI_API_KEY")
    with pytest.raises(ConfigError, match=r"scenario.training_tasks = 20 is invalid: the published log has 19 "):
        run_propagation(scenario, model, published_study_tasks(), evaluation_games(), published_reflections(),
                        READS, SOURCE, tmp_path)
    assert list(tmp_path.iterdir()) == []
