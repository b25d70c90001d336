"""Token use per condition and per run, and its estimated cost at the models' list prices, from records alone.

The estimate prices every call, including those answered from the cache: it is what the trials would cost
without the cache, not what this invocation paid. Each role's tokens are priced at its own model's rate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.llm import Price, Usage
from harness.records import TrialRecord

PER_MILLION = 1_000_000


class RolePrice(BaseModel):
    """The model one role of a condition used, and its list price."""

    model_config = ConfigDict(frozen=True)

    model: str = Field(description="The model config's name.")
    price: Price | None = Field(description="Its list price; None when free (embedded) or unknown.")


class ConditionPrices(BaseModel):
    """What each role of one condition costs per token."""

    model_config = ConfigDict(frozen=True)

    actor: RolePrice
    reflector: RolePrice


class UsageTotals(BaseModel):
    """LLM use summed over trial records, with its estimated cost at list price."""

    model_config = ConfigDict(frozen=True)

    calls: int = Field(0, ge=0, description="LLM calls, cache hits included.")
    cache_hits: int = Field(0, ge=0, description="Calls answered from the cache.")
    prompt_tokens: int = Field(0, ge=0, description="Tokens in, over all calls.")
    completion_tokens: int = Field(0, ge=0, description="Tokens out, over all calls.")
    cost_usd: float = Field(0.0, ge=0, description="Every priced token at list price, cache hits included.")
    unpriced_tokens: int = Field(0, ge=0, description="Tokens (in + out) of models without a price: not in cost_usd.")

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            calls=self.calls + other.calls,
            cache_hits=self.cache_hits + other.cache_hits,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            unpriced_tokens=self.unpriced_tokens + other.unpriced_tokens,
        )


def usage_cost(usage: Usage, price: Price) -> float:
    """USD for `usage` at `price`."""
    return (
        usage.prompt_tokens * price.prompt_usd_per_million + usage.completion_tokens * price.completion_usd_per_million
    ) / PER_MILLION


def _role_totals(usage: Usage, role: RolePrice) -> UsageTotals:
    tokens = usage.prompt_tokens + usage.completion_tokens
    return UsageTotals(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=usage_cost(usage, role.price) if role.price else 0.0,
        unpriced_tokens=0 if role.price else tokens,
    )


def record_totals(record: TrialRecord, prices: ConditionPrices) -> UsageTotals:
    """One trial's use, each role's tokens at its model's price."""
    counts = UsageTotals(calls=record.llm_calls, cache_hits=record.cache_hits)
    if record.actor_usage is None or record.reflector_usage is None:
        # Records before schema 3 did not split usage by role: priced only when both roles cost the same.
        same = prices.actor.price == prices.reflector.price
        return counts + _role_totals(record.usage, prices.actor if same else RolePrice(model="unsplit", price=None))
    return (
        counts + _role_totals(record.actor_usage, prices.actor) + _role_totals(record.reflector_usage, prices.reflector)
    )


def condition_usage(records: Iterable[TrialRecord], prices: ConditionPrices) -> UsageTotals:
    """The summed use of some records of one condition."""
    return sum((record_totals(record, prices) for record in records), UsageTotals())


def with_unpriced(records: Iterable[TrialRecord], prices: Mapping[str, ConditionPrices]) -> dict[str, ConditionPrices]:
    """`prices`, plus each other condition the records hold with its models unpriced: no config says their price."""
    full = dict(prices)
    for record in records:
        if record.condition not in full:
            full[record.condition] = ConditionPrices(
                actor=RolePrice(model=record.actor_model, price=None),
                reflector=RolePrice(model=record.reflector_model, price=None),
            )
    return full


def run_usage(records: Iterable[TrialRecord], prices: Mapping[str, ConditionPrices]) -> dict[str, UsageTotals]:
    """Use per condition of `prices`, in its order (zero for one without records); other records are left out."""
    mine: dict[str, list[TrialRecord]] = {condition: [] for condition in prices}
    for record in records:
        if record.condition in mine:
            mine[record.condition].append(record)
    return {condition: condition_usage(mine[condition], prices[condition]) for condition in prices}


def condition_prices(config: Mapping[str, Any]) -> dict[str, ConditionPrices]:
    """Each condition's role prices from a resolved run config (a manifest's `config`, or a RunConfig's dump).

    Manifests written before models had prices carry none, so they price nothing rather than fail; a condition
    whose models the config does not name is left out.
    """

    def role(model: Mapping[str, Any]) -> RolePrice:
        price = model.get("price")
        return RolePrice(model=model["name"], price=Price.model_validate(price) if price else None)

    return {
        c["name"]: ConditionPrices(actor=role(c["actor"]), reflector=role(c["reflector"]))
        for c in config.get("conditions", [])
        if "actor" in c and "reflector" in c
    }
