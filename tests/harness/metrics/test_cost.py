"""Token and cost accounting: each role priced at its own model's rate, cache hits included, and the table."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.metrics.cost import (
    ConditionPrices,
    RolePrice,
    UsageTotals,
    condition_prices,
    condition_usage,
    record_totals,
    run_usage,
    usage_cost,
    with_unpriced,
)
from harness.report.cost_table import usage_table
from tests.harness.report.commonmark import blocks_markdown
from harness.llm import Price, Usage
from harness.records import TrialRecord
from tests.harness.factories import make_record

MINI = Price(prompt_usd_per_million=0.15, completion_usd_per_million=0.60, as_of="2026-11-30, openai.com/api/pricing")
INSTRUCT = Price(prompt_usd_per_million=1.50, completion_usd_per_million=2.00, as_of="2026-11-30, openai.com/api/pricing")
SPLIT = ConditionPrices(
    actor=RolePrice(model="gpt-3.5-turbo-instruct", price=INSTRUCT), reflector=RolePrice(model="gpt-4o-mini", price=MINI)
)
EMBEDDED = ConditionPrices(
    actor=RolePrice(model="qwen2.5-coder-1.5b", price=None), reflector=RolePrice(model="qwen2.5-coder-1.5b", price=None)
)


def used(actor: Usage, reflector: Usage, calls: int = 3, cache_hits: int = 0, **kwargs: object) -> TrialRecord:
    return make_record(0, None, **kwargs).model_copy(  # type: ignore[arg-type]
        update={
            "usage": actor + reflector,
            "actor_usage": actor,
            "reflector_usage": reflector,
            "llm_calls": calls,
            "cache_hits": cache_hits,
        }
    )


def test_a_million_tokens_cost_the_list_price() -> None:
    assert usage_cost(Usage(prompt_tokens=1_000_000, completion_tokens=2_000_000), MINI) == pytest.approx(0.15 + 1.20)


def test_each_role_is_priced_at_its_own_model() -> None:
    record = used(Usage(prompt_tokens=2000, completion_tokens=300), Usage(prompt_tokens=1000, completion_tokens=100))
    totals = record_totals(record, SPLIT)
    # actor: 2000 * 1.50 + 300 * 2.00; reflector: 1000 * 0.15 + 100 * 0.60; per million tokens.
    assert totals.cost_usd == pytest.approx((3000 + 600 + 150 + 60) / 1_000_000)
    assert (totals.prompt_tokens, totals.completion_tokens, totals.calls, totals.unpriced_tokens) == (3000, 400, 3, 0)


def test_calls_answered_from_the_cache_are_priced_too() -> None:
    fresh = used(Usage(prompt_tokens=500, completion_tokens=50), Usage(), cache_hits=0)
    replayed = used(Usage(prompt_tokens=500, completion_tokens=50), Usage(), cache_hits=3)
    assert record_totals(replayed, SPLIT).cost_usd == record_totals(fresh, SPLIT).cost_usd > 0
    assert record_totals(replayed, SPLIT).cache_hits == 3


def test_tokens_of_models_without_a_price_are_counted_apart() -> None:
    record = used(Usage(prompt_tokens=40, completion_tokens=2), Usage(prompt_tokens=10, completion_tokens=1))
    assert record_totals(record, EMBEDDED) == UsageTotals(
        calls=3, prompt_tokens=50, completion_tokens=3, cost_usd=0.0, unpriced_tokens=53
    )
    half = ConditionPrices(actor=SPLIT.actor, reflector=EMBEDDED.reflector)
    totals = record_totals(record, half)
    assert totals.unpriced_tokens == 11 and totals.cost_usd == pytest.approx((40 * 1.5 + 2 * 2.0) / 1_000_000)


def test_totals_add_up_over_records_and_conditions() -> None:
    records = [
        used(Usage(prompt_tokens=100, completion_tokens=10), Usage(prompt_tokens=20, completion_tokens=5), cache_hits=1),
        used(Usage(prompt_tokens=200, completion_tokens=20), Usage(), calls=2, cache_hits=2),
        used(Usage(prompt_tokens=7, completion_tokens=1), Usage(), calls=1, condition="no_memory"),
        used(Usage(prompt_tokens=9, completion_tokens=1), Usage(), calls=1, condition="not_configured"),
    ]
    self_diagnosis = condition_usage(records[:2], SPLIT)
    assert (self_diagnosis.calls, self_diagnosis.cache_hits, self_diagnosis.prompt_tokens) == (5, 3, 320)
    prices = with_unpriced(records, {"self_diagnosis": SPLIT, "no_memory": EMBEDDED, "programmatic": SPLIT})
    assert prices["not_configured"] == ConditionPrices(
        actor=RolePrice(model="m", price=None), reflector=RolePrice(model="m", price=None)
    )
    usage = run_usage(records, prices)
    assert list(usage) == ["self_diagnosis", "no_memory", "programmatic", "not_configured"]
    assert usage["self_diagnosis"] == self_diagnosis
    assert usage["programmatic"] == UsageTotals()
    assert usage["not_configured"].unpriced_tokens == 10  # no config: priced at nothing, not guessed
    assert list(run_usage(records, {"no_memory": EMBEDDED})) == ["no_memory"]


def test_prices_come_from_the_resolved_config_and_old_manifests_price_nothing() -> None:
    mini = {"name": "gpt-4o-mini", "price": MINI.model_dump()}
    config = {
        "conditions": [
            {"name": "self_diagnosis", "actor": mini, "reflector": mini},
            {"name": "before_prices", "actor": {"name": "gpt-4o-mini"}, "reflector": {"name": "gpt-4o-mini"}},
            {"name": "no_models_named"},
        ]
    }
    prices = condition_prices(config)
    assert list(prices) == ["self_diagnosis", "before_prices"]
    assert prices["self_diagnosis"].actor == RolePrice(model="gpt-4o-mini", price=MINI)
    assert prices["before_prices"].reflector.price is None


def test_a_record_whose_roles_do_not_add_up_is_refused() -> None:
    with pytest.raises(ValidationError, match="sum of actor_usage and reflector_usage"):
        TrialRecord.model_validate(
            {**make_record(0, None).model_dump(), "actor_usage": {"prompt_tokens": 5, "completion_tokens": 0}}
        )


def test_the_table_has_a_row_per_condition_a_total_and_says_what_it_counts() -> None:
    rows = [
        ("self_diagnosis", UsageTotals(calls=4, cache_hits=1, prompt_tokens=12000, completion_tokens=300, cost_usd=0.0186)),
        ("no_memory", UsageTotals(calls=2, cache_hits=2, prompt_tokens=50, completion_tokens=3, unpriced_tokens=53)),
        ("model_swap", UsageTotals(calls=2, prompt_tokens=40, completion_tokens=4, cost_usd=0.00001, unpriced_tokens=4)),
    ]
    table = blocks_markdown(usage_table(rows, [SPLIT, EMBEDDED]))
    lines = table.splitlines()
    assert lines[:6] == [
        "| condition | LLM calls | from cache | tokens in | tokens out | estimated cost (USD, list price) |",
        "|---|---|---|---|---|---|",
        "| self_diagnosis | 4 | 1 (25%) | 12,000 | 300 | 0.0186 |",
        "| no_memory | 2 | 2 (100%) | 50 | 3 | n/a (no price) |",
        "| model_swap | 2 | 0 (0%) | 40 | 4 | 0.0000 + 4 unpriced tokens |",
        "| total | 8 | 3 (38%) | 12,090 | 307 | 0.0186 + 57 unpriced tokens |",
    ]
    assert "calls answered from the cache included" in table and "without the cache" in table
    assert (
        "gpt-4o-mini: 0.15 USD per 1M tokens in, 0.6 per 1M out (as of 2026-11-30, openai.com/api/pricing)" in table
    )
    assert "gpt-3.5-turbo-instruct: 1.5 USD per 1M tokens in, 2 per 1M out" in table
    assert "qwen2.5-coder-1.5b: no price (embedded, or unknown)" in table
    assert "check the provider's current price list" in table


def test_an_empty_run_renders_a_zero_total() -> None:
    table = blocks_markdown(usage_table([], []))
    assert "| total | 0 | 0 | 0 | 0 | 0.0000 |" in table and "nothing is priced" in table


def test_a_record_from_before_the_role_split_is_priced_only_when_both_roles_cost_the_same() -> None:
    old = make_record(0, None).model_copy(
        update={"schema_version": 2, "usage": Usage(prompt_tokens=1000, completion_tokens=100), "actor_usage": None,
                "reflector_usage": None}
    )
    same = ConditionPrices(actor=RolePrice(model="gpt-4o-mini", price=MINI), reflector=RolePrice(model="gpt-4o-mini", price=MINI))
    assert record_totals(old, same).cost_usd == pytest.approx((1000 * 0.15 + 100 * 0.60) / 1_000_000)
    assert record_totals(old, SPLIT).cost_usd == 0 and record_totals(old, SPLIT).unpriced_tokens == 1100
