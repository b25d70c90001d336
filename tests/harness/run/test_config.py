"""Hydra composition validated into RunConfig: groups, role splitting, experiments."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from harness.cli.overrides import ROLE_MODEL_KEYS, normalize_override
from harness.run.config_dirs import CONFIG_DIR
from harness.run.config import RunConfig
from harness.run.validation import validate_config
from harness.errors import ConfigError


def composed(*overrides: str) -> RunConfig:
    """The config `python run.py <overrides>` runs, validated here (not refused before Hydra composes): a role's
    model spelled as the command line hands it to Hydra (`actor_model=x` -> `model@actor_model=x`, and a condition's,
    `strategy.<name>.actor_model=x` -> `model@strategy.<name>.actor_model=x`)."""
    spelled = [
        normalize_override(o) if o.split("=")[0].split(".")[-1] in ROLE_MODEL_KEYS else o for o in overrides
    ]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate_config(compose(config_name="config", overrides=spelled))


def test_default_is_the_embedded_demo() -> None:
    config = composed()
    assert config.actor.name == config.reflector.name == "qwen2.5-coder-1.5b"
    assert config.actor.backend == "llamacpp"
    [condition] = config.conditions
    assert (condition.name, condition.source, condition.memory_window) == ("self_diagnosis", "self_diagnosis", 3)
    assert condition.actor == config.actor and condition.reflector == config.reflector
    assert (config.env.set, config.env.max_steps, config.experiment.trials) == ("demo", 30, 2)
    assert config.llm.cache.mode == "auto"


def test_model_sets_both_roles_and_role_overrides_split_them() -> None:
    both = composed("model=smollm2-135m")
    assert both.actor.name == both.reflector.name == "smollm2-135m"
    split = composed("actor_model=smollm2-135m")
    assert (split.actor.name, split.reflector.name) == ("smollm2-135m", "qwen2.5-coder-1.5b")
    swapped = composed("model=smollm2-135m", "reflector_model=gpt-4o-mini")
    assert (swapped.actor.name, swapped.reflector.name) == ("smollm2-135m", "gpt-4o-mini")
    assert swapped.reflector.backend == "openai"


def test_thread_count_reaches_every_embedded_role() -> None:
    config = composed("llm.n_threads=1", "reflector_model=smollm2-135m")
    assert config.actor.n_threads == config.reflector.n_threads == 1


def test_reflexion_experiment_is_the_published_protocol() -> None:
    config = composed("experiment=reflexion")
    assert (config.env.set, config.env.max_steps, config.experiment.trials) == (None, 49, 10)
    # The study's roles: a chat actor, and a completion model standing in for the retired text-davinci-003.
    assert (config.actor.name, config.actor.api) == ("gpt-3.5-turbo", "chat")
    assert (config.reflector.name, config.reflector.api) == ("gpt-3.5-turbo-instruct", "completion")
    assert config.actor.reflector_stop == config.reflector.reflector_stop == [], "Reflexion's reflector had no stop"
    embedded = composed("experiment=reflexion", "actor_model=null", "reflector_model=null")
    assert embedded.actor.name == embedded.reflector.name == "qwen2.5-coder-1.5b"


def test_cache_settings_come_from_llm_cache() -> None:
    config = composed("llm.cache.mode=replay", "llm.cache.path=/tmp/elsewhere.jsonl")
    assert (config.llm.cache.mode, config.llm.cache.path) == ("replay", "/tmp/elsewhere.jsonl")


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("experiment.max_concurrency=0", "experiment.max_concurrency = 0"),
        ("llm.cache.mode=sometimes", "llm.cache.mode = 'sometimes'"),
        ("env.max_steps=-5", "env.max_steps = -5"),
        ("strategy.self_diagnosis.source=oracle", "strategy.self_diagnosis.source = 'oracle' is not a reflection"),
        ("strategy.self_diagnosis.memory_window=-1", "strategy.self_diagnosis.memory_window = -1 is invalid"),
        ("+strategy.self_diagnosis.options.depth=3", "strategy.self_diagnosis.options.depth = 3 is invalid"),
        # Hydra keeps a typed \n as two characters: a stop that never matches is refused, not sent.
        ('model.reflector_stop=["\\n> "]', "holds a backslash and n where a newline is meant"),
    ],
)
def test_invalid_values_get_one_sentence(override: str, needle: str) -> None:
    with pytest.raises(ConfigError) as caught:
        composed(override)
    message = str(caught.value)
    assert needle in message and message.endswith(".") and "\n" not in message


def test_five_conditions_runs_every_condition_on_the_published_frozen_set_in_the_paper_s_roles() -> None:
    config = composed("experiment=five_conditions")
    names = [c.name for c in config.conditions]
    assert names == ["self_diagnosis", "no_memory", "grounded_template", "programmatic", "model_swap_up"]
    assert (config.env.set, config.env.max_steps, config.experiment.trials) == ("frozen_published", 49, 10)
    # The study's roles: a chat actor, the completion stand-in for text-davinci-003 as reflector, a swap up.
    assert (config.actor.name, config.actor.api, config.reflector.name, config.reflector.api) == (
        "gpt-3.5-turbo", "chat", "gpt-3.5-turbo-instruct", "completion"
    )
    assert all((c.actor, c.reflector) == (config.actor, config.reflector) for c in config.conditions[:-1])
    swap = config.conditions[-1]
    assert (swap.source, swap.actor.name, swap.reflector.name) == ("model_swap", "gpt-4o-mini", "gpt-4o-mini")
    assert {c.actor.backend for c in config.conditions} == {"openai"}


def test_the_embedded_demo_swaps_down_to_the_smaller_model() -> None:
    config = composed("experiment=five_conditions_demo")
    assert [c.name for c in config.conditions][-1] == "model_swap"
    assert all(c.actor.name == c.reflector.name == "qwen2.5-coder-1.5b" for c in config.conditions[:-1])
    swap = config.conditions[-1]
    assert (swap.actor.name, swap.reflector.name) == ("smollm2-135m", "smollm2-135m")


def test_five_conditions_refuses_a_swap_up_onto_the_run_s_own_model() -> None:
    with pytest.raises(ConfigError, match="strategy.model_swap_up .* swaps no model"):
        composed("experiment=five_conditions", "actor_model=gpt-4o-mini", "reflector_model=gpt-4o-mini")


def test_a_list_of_conditions_keeps_its_order_and_one_condition_replaces_the_list() -> None:
    assert [c.name for c in composed("strategy=[programmatic,no_memory]").conditions] == ["programmatic", "no_memory"]
    assert [c.name for c in composed("experiment=five_conditions", "strategy=no_memory").conditions] == ["no_memory"]


def test_either_role_alone_can_be_swapped() -> None:
    config = composed(
        "strategy=model_swap", "strategy.model_swap.actor_model=null", "strategy.model_swap.reflector_model=gpt-4o-mini"
    )
    [swap] = config.conditions
    assert (swap.actor.name, swap.reflector.name) == ("qwen2.5-coder-1.5b", "gpt-4o-mini")


def test_a_model_swap_that_swaps_nothing_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"strategy.model_swap \(source model_swap\) swaps no model"):
        composed("strategy=model_swap", "model=smollm2-135m")


def test_source_options_are_checked_by_the_source() -> None:
    [condition] = composed(
        "strategy=grounded_template", "strategy.grounded_template.options.on_malformed=keep_raw"
    ).conditions
    assert condition.options == {"on_malformed": "keep_raw"}
    with pytest.raises(ConfigError, match="strategy.grounded_template.options.on_malformed = 'ignore' is invalid"):
        composed("strategy=grounded_template", "strategy.grounded_template.options.on_malformed=ignore")


def test_a_sixth_condition_is_a_yaml_file(tmp_path: Path) -> None:
    configs = tmp_path / "configs"
    shutil.copytree(CONFIG_DIR, configs)
    (configs / "strategy" / "gpt_reflector.yaml").write_text(
        "defaults:\n  - /model@gpt_reflector.reflector_model: gpt-4o-mini\n  - _self_\n"
        "gpt_reflector:\n  source: self_diagnosis\n"
    )
    six = "strategy=[self_diagnosis,no_memory,grounded_template,programmatic,model_swap,gpt_reflector]"
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        config = validate_config(compose(config_name="config", overrides=["experiment=five_conditions_demo", six]))
    assert len(config.conditions) == 6
    sixth = config.conditions[-1]
    assert (sixth.name, sixth.source, sixth.actor.name, sixth.reflector.name) == (
        "gpt_reflector",
        "self_diagnosis",
        "qwen2.5-coder-1.5b",
        "gpt-4o-mini",
    )


def test_humaneval_is_an_env_option_with_its_own_fields() -> None:
    config = composed("env=humaneval", "env.first_n=5", "strategy=[self_diagnosis,programmatic]")
    env = config.env
    assert (env.name, env.first_n, env.max_tests, env.test_timeout_s, env.check_timeout_s) == ("humaneval", 5, 1, 5, 10)
    assert (env.test_filter, env.feedback, env.code_extraction) == ("reflexion", "reflexion", "reflexion")
    assert [c.memory_window for c in config.conditions] == [1, 1], "Reflexion's programming loop reads one reflection"
    assert config.experiment.trials == 2
    with pytest.raises(ConfigError, match="env.set = 'demo' is invalid: Extra inputs are not permitted"):
        composed("env=humaneval", "+env.set=demo")
