"""memory.scope and the insights settings: trial by default, ExpeL's domains only, one sentence for bad input."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from harness.errors import ConfigError
from harness.run.config import RunConfig
from harness.run.validation import validate_config
from harness.run.config_dirs import CONFIG_DIR


def composed(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate_config(compose(config_name="config", overrides=list(overrides)))


def test_trial_scope_is_the_default_with_expels_settings() -> None:
    config = composed()
    assert config.memory.scope == "trial"
    insights = config.insights
    assert (insights.max_num_rules, insights.success_critique_num, insights.read_reflections) == (20, 8, False)
    assert (insights.folds, insights.fold_seed, insights.only_fold, insights.plant) == (2, 42, None, None)


def test_the_plant_experiment_composes() -> None:
    config = composed("experiment=hotpotqa_insights_plant")
    assert config.memory.scope == "insights"
    assert config.insights.plant is not None and config.insights.plant.task == "5ac097b05542996f0d89cc18"
    assert (config.insights.folds, config.insights.only_fold) == (3, 2)


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (("env=humaneval", "memory.scope=insights"), "exist for alfworld and hotpotqa only, not env=humaneval"),
        (("memory.scope=global",), "memory.scope"),
        (("+insights.plant.task=x", "+insights.plant.reflection=y"), "needs memory.scope=insights or both"),
        (("env=hotpotqa", "memory.scope=both", "insights.only_fold=2"), "folds are numbered 0 to 1"),
        (("insights.folds=1",), "insights.folds"),
    ],
)
def test_bad_insight_settings_are_one_sentence(overrides: tuple[str, ...], words: str) -> None:
    with pytest.raises(ConfigError) as error:
        composed(*overrides)
    message = str(error.value)
    assert words in message and message.count("\n") == 0, message


def test_retrieved_examples_are_for_alfworld_only() -> None:
    assert composed("memory.scope=insights", "insights.fewshots=task_similarity").insights.fewshots == "task_similarity"
    with pytest.raises(ConfigError, match=r"^insights.fewshots=task_similarity replaces ALFWorld's fixed examples; "
                                          r"env=hotpotqa keeps its own \(accepted here: insights.fewshots=fixed\).$"):
        composed("env=hotpotqa", "memory.scope=insights", "insights.fewshots=task_similarity")
