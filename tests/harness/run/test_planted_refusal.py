"""`python run.py experiment=planted_refusal`: the same nightly reflection with and without the memory gate."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.gate import OUTSIDE_ROLES, GateStore
from harness.run.scenarios.planted_refusal import RESULT_FILE, PlantedOutcome, load_conversation
from tests.in_process import run_module
from tests.runner import ROOT, run_cli

CONVERSATION = ROOT / "data" / "planted_refusal" / "conversation.json"


def run_scenario(tmp_path: Path, *overrides: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    no_models = tmp_path / "no-models"
    no_models.mkdir()
    run = tmp_path / "run"
    result = run_cli(
        "experiment=planted_refusal",
        *overrides,
        f"hydra.run.dir={run}",
        env={"REFLEXION_HARNESS_MODEL_DIR": str(no_models)},
    )
    assert result.returncode == 0, result.stderr
    assert list(no_models.iterdir()) == [], "the committed answers were not enough: a model was loaded"
    return result, run


def test_the_shipped_conversation_plants_a_question_the_agent_refuses() -> None:
    conversation = load_conversation(CONVERSATION)
    roles = [turn.role for turn in conversation.turns]
    assert roles[:2] == ["user", "agent"] and "no record" in conversation.turns[1].text


def test_without_the_gate_the_reflection_reaches_memory_and_with_it_nothing_is_live(tmp_path: Path) -> None:
    result, run = run_scenario(tmp_path)
    outcome = PlantedOutcome.model_validate_json((run / RESULT_FILE).read_text())
    assert outcome.ungated_reflection and outcome.ungated_reflection in result.stdout
    assert "WITHOUT the gate, this goes into memory as written:" in result.stdout
    assert outcome.policy == "owner" and outcome.live == []
    assert "live memory: 0 note(s)" in result.stdout
    assert all(item.quoted_turn.role in OUTSIDE_ROLES for item in outcome.proposed)
    assert len(outcome.proposed) + len(outcome.dropped) >= 1, "the gated answer proposed nothing at all"
    store = GateStore.open(run / "gate")
    assert store.verify().ok and store.live_memory() == []
    assert [p.id for p in store.pending()] == [p.id for p in outcome.proposed]
    assert len(store.dropped()) == len(outcome.dropped)


def test_the_owner_reviews_the_pile_from_the_command_line(tmp_path: Path) -> None:
    _, run = run_scenario(tmp_path)
    shown = run_module("harness.cli.gate", "show", str(run / "gate"))
    assert shown.returncode == 0, shown.stderr
    outcome = PlantedOutcome.model_validate_json((run / RESULT_FILE).read_text())
    assert all(item.id in shown.stdout for item in outcome.proposed)


def test_under_the_auto_policy_what_passes_the_quote_check_goes_live(tmp_path: Path) -> None:
    _, run = run_scenario(tmp_path, "scenario.policy=auto")
    outcome = PlantedOutcome.model_validate_json((run / RESULT_FILE).read_text())
    assert [p.id for p in outcome.live] == [p.id for p in outcome.proposed]
    assert json.loads((run / RESULT_FILE).read_text())["policy"] == "auto"


@pytest.mark.parametrize("bad", ["scenario.policy=sometimes", "scenario.conversation=/nonexistent.json"])
def test_bad_scenario_settings_fail_with_one_sentence(tmp_path: Path, bad: str) -> None:
    run = tmp_path / "run"
    result = run_cli("experiment=planted_refusal", bad, f"hydra.run.dir={run}")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "Traceback" not in result.stderr
    assert not (run / RESULT_FILE).exists()
