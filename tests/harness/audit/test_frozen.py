"""Frozen tasks: the shipped published set is what the code computes, and frozen_in reads an earlier run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.alfworld import list_games, read_set, select_games
from harness.errors import GameNotFoundError
from harness.audit.frozen import PUBLISHED_SET, published_frozen_games, published_set_text
from harness.run.held_out import frozen_in_run
from harness.metrics.frozen import frozen_ids
from harness.metrics.core import reflection_repetition_rate
from harness.records import TrialLog
from tests.harness.factories import make_record

LOGS = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs"


def test_the_shipped_set_is_exactly_what_the_code_computes_from_the_logs() -> None:
    assert PUBLISHED_SET.read_text() == published_set_text()


def test_the_published_run_froze_sixteen_environments_all_of_them_real_games() -> None:
    frozen = published_frozen_games()
    assert len(frozen) == 16
    assert frozen[0] == ("env_4", "pick_clean_then_place_in_recep-Cloth-None-Cabinet-424/trial_T20190908_022436_073995")
    games = select_games(list_games(), set_name="frozen_published")
    assert sorted(g.game_id for g in games) == sorted(read_set("frozen_published")) == sorted(g for _, g in frozen)


def test_each_frozen_environment_has_rrr_of_at_least_one_half_in_the_last_trial_file() -> None:
    final = json.loads((LOGS / "alfworld_runs/root/reflexion_run_logs/env_results_trial_14.json").read_text())
    memories = {entry["name"]: entry["memory"] for entry in final}
    frozen = {env for env, _ in published_frozen_games()}
    for env, memory in memories.items():
        rrr = reflection_repetition_rate(memory)
        assert (env in frozen) == (rrr is not None and rrr >= 0.5), env


def test_another_mapping_can_be_tried(tmp_path: Path) -> None:
    mapping = json.loads((LOGS / "alfworld_env_to_game.json").read_text())
    mapping["env_4"] = mapping["env_0"]
    other = tmp_path / "mapping.json"
    other.write_text(json.dumps(mapping))
    assert published_frozen_games(env_to_game=other)[0] == ("env_4", mapping["env_0"])
    del mapping["env_4"]
    other.write_text(json.dumps(mapping))
    with pytest.raises(GameNotFoundError, match="maps no game for env_4"):
        published_frozen_games(env_to_game=other)


def test_frozen_ids_keep_only_memories_with_rrr_of_at_least_one_half() -> None:
    memories = {"a": ["x" * 40, "x" * 40], "b": ["x" * 40], "c": ["x" * 40, "y" * 40, "x" * 40], "d": []}
    assert frozen_ids(memories) == ["a", "c"]


def test_frozen_in_run_reads_the_named_condition_of_an_earlier_run(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    same = "I will go to cabinet 1 and take the saltshaker."
    for trial in range(3):
        log.append(make_record(trial, same, task="frozen-task"))
        log.append(make_record(trial, f"plan number {trial} " + "z" * trial * 30, task="moving-task"))
        log.append(make_record(trial, same, task="frozen-task", condition="no_memory"))
    assert frozen_in_run(tmp_path) == ["frozen-task"]
    with pytest.raises(GameNotFoundError, match="holds no trial of condition 'programmatic'"):
        frozen_in_run(tmp_path, "programmatic")
    with pytest.raises(GameNotFoundError, match="is not a run directory"):
        frozen_in_run(tmp_path / "nowhere")
