"""Bad input at the command line: one clear sentence, exit code 2, nothing written or lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runner import run_cli


def assert_one_sentence_error(stderr: str, *needles: str) -> None:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("override", "needles"),
    [
        ("strategy=self_reflect", ("strategy=self_reflect", "no_memory", "self_diagnosis")),
        ("experiment.trials=-1", ("experiment.trials", "-1", "greater than or equal to 1")),
        ("env.games=[pick_and_place_simple-Unicorn-None-Desk-308]", ("Unicorn",)),
        ("model=no-such-model", ("model=no-such-model", "qwen2.5-coder-1.5b")),
        ("actor_model=no-such-model", ("model=no-such-model", "smollm2-135m")),
        ("strategy=[self_diagnosis,oracle]", ("strategy=oracle", "grounded_template", "programmatic")),
        ("env.frozen_in=/nonexistent/run", ("env.frozen_in=/nonexistent/run", "not a run directory")),
        ("experiment=held_out", ("experiment.held_out=true", "env.frozen_in=", "experiment=held_out_select")),
        ("sampling.actor.temperature=3", ("sampling.actor.temperature", "less than or equal to 2")),
        ("strategy.self_diagnosis.memory_window=-2", ("strategy.self_diagnosis.memory_window = -2",)),
    ],
)
def test_bad_input_fails_before_any_work(run_dir: Path, override: str, needles: tuple[str, ...]) -> None:
    result = run_cli(override, f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    assert_one_sentence_error(result.stderr, *needles)
    assert not run_dir.exists()


def test_a_model_swap_onto_the_run_s_own_model_is_refused(run_dir: Path) -> None:
    result = run_cli("experiment=five_conditions_demo", "model=smollm2-135m", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    assert_one_sentence_error(result.stderr, "strategy.model_swap", "swaps no model")
    assert not run_dir.exists()


def test_missing_api_key_is_named(run_dir: Path) -> None:
    result = run_cli(
        "model=gpt-4o-mini", "model.api_key_env=HARNESS_TEST_ABSENT_KEY", f"hydra.run.dir={run_dir}"
    )
    assert result.returncode == 2
    assert_one_sentence_error(result.stderr, "HARNESS_TEST_ABSENT_KEY")
    assert not run_dir.exists()


def test_bad_input_on_an_existing_run_keeps_its_records(run_dir: Path) -> None:
    run_dir.mkdir()
    trials = run_dir / "trials.jsonl"
    trials.write_text('{"kept": "as it was"}\n')
    before = sorted(p.name for p in run_dir.iterdir())
    result = run_cli("experiment.trials=-3", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    assert_one_sentence_error(result.stderr, "-3")
    assert trials.read_text() == '{"kept": "as it was"}\n'
    assert sorted(p.name for p in run_dir.iterdir()) == before
