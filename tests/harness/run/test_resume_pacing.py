"""Resuming under other rate limits, prices, timeouts or retry budgets: they pace, bound and price calls but change
no finished trial."""

from __future__ import annotations

from typing import Any

from harness.records.config_diff import shaping_changes


def config(**model_fields: Any) -> dict[str, Any]:
    model = {"name": "gpt-4o-mini", "model": "gpt-4o-mini", **model_fields}
    return {
        "actor": model,
        "reflector": model,
        "conditions": [{"name": "self_diagnosis", "actor": model, "reflector": model}],
        "experiment": {"seed": 0},
    }


def test_rate_limits_and_prices_may_change_or_appear_on_resume() -> None:
    before_they_existed = config()
    now = config(
        requests_per_minute=500,
        tokens_per_minute=200_000,
        price={"prompt_usd_per_million": 0.15, "completion_usd_per_million": 0.6, "as_of": "2026-11-30"},
    )
    assert shaping_changes(before_they_existed, now) == {}
    assert shaping_changes(now, config(requests_per_minute=60)) == {}


def test_a_change_of_model_is_still_refused() -> None:
    changes = shaping_changes(config(requests_per_minute=500), config(requests_per_minute=500, model="gpt-4o"))
    assert set(changes) == {
        "actor.model",
        "reflector.model",
        "conditions.self_diagnosis.actor.model",
        "conditions.self_diagnosis.reflector.model",
    }


def test_a_longer_timeout_or_more_retries_may_resume_a_run() -> None:
    stopped = config(timeout_s=120.0, max_retries=6, retry_max_wait_s=60.0)
    assert shaping_changes(stopped, config(timeout_s=600.0, max_retries=20, retry_max_wait_s=120.0)) == {}


def test_only_llm_n_threads_changed_may_resume() -> None:
    """'resuming with only llm.n_threads changed is refused although llm is resumable': its copies in every role
    are resumable too."""
    before = {**config(n_threads=2), "llm": {"n_threads": 2}}
    after = {**config(n_threads=1), "llm": {"n_threads": 1}}
    assert shaping_changes(before, after) == {}


def test_thresholds_and_more_repeats_may_change_on_resume_but_sampling_may_not() -> None:
    before = {**config(), "metrics": {"frozen_threshold": 0.5}, "experiment": {"seed": 0, "repeats": 1}}
    assert shaping_changes(before, {**before, "metrics": {"frozen_threshold": 0.3}}) == {}
    assert shaping_changes(before, {**before, "experiment": {"seed": 0, "repeats": 3}}) == {}
    greedy = {"temperature": None, "top_p": None}
    hotter = {**before, "sampling": {"actor": {"temperature": 0.7, "top_p": None}, "reflector": greedy}}
    assert set(shaping_changes(before, hotter)) == {"sampling.actor.temperature"}


def test_a_run_from_before_sampling_settings_resumes_under_the_default_sampling() -> None:
    from harness.run.config import SamplingSettings

    now = {**config(), "sampling": SamplingSettings().model_dump(mode="json")}
    assert shaping_changes(config(), now) == {}
