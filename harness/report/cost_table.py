"""The tokens-and-cost table of summary.md and report.md: one row per condition, a total, and how it was priced."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.metrics.cost import ConditionPrices, RolePrice, UsageTotals
from harness.report.document import Block, Code, Paragraph, Table

HEADER = ["condition", "LLM calls", "from cache", "tokens in", "tokens out", "estimated cost (USD, list price)"]
COST_NOTE = (
    "The estimated cost prices every call at its model's list price, calls answered from the cache included: it is "
    "what these trials would cost without the cache, not what this run paid. 'from cache' is the share of calls the "
    "cache answered. Tokens are the model's own counts (a cache hit keeps the original call's)."
)


def _share(part: int, whole: int) -> str:
    return f"{part} ({part / whole:.0%})" if whole else str(part)


def cost_cell(totals: UsageTotals) -> str:
    """The cost, 'n/a' when no token had a price, and the unpriced tokens beside a partial cost."""
    if totals.tokens and totals.unpriced_tokens == totals.tokens:
        return "n/a (no price)"
    cost = f"{totals.cost_usd:.4f}"
    return f"{cost} + {totals.unpriced_tokens:,} unpriced tokens" if totals.unpriced_tokens else cost


def _row(label: str, totals: UsageTotals) -> list[str]:
    return [
        label,
        str(totals.calls),
        _share(totals.cache_hits, totals.calls),
        f"{totals.prompt_tokens:,}",
        f"{totals.completion_tokens:,}",
        cost_cell(totals),
    ]


def _price(role: RolePrice) -> str:
    if role.price is None:
        return f"{role.model}: no price (embedded, or unknown)"
    p = role.price
    return (
        f"{role.model}: {p.prompt_usd_per_million:g} USD per 1M tokens in, {p.completion_usd_per_million:g} per 1M "
        f"out (as of {p.as_of})"
    )


def prices_sentence(prices: Iterable[ConditionPrices]) -> Paragraph:
    """Every distinct model and price the table used, and where to check them."""
    roles = sorted({role for p in prices for role in (p.actor, p.reflector)}, key=lambda r: (r.model, str(r.price)))
    if not roles:
        return Paragraph("No model config of these runs names its models, so nothing is priced.")
    return Paragraph(
        "Prices from the model configs (configs/model/*.yaml, ",
        Code("price"),
        "): " + "; ".join(_price(role) for role in roles),
        ". List prices change: check the provider's current price list before relying on the estimate.",
    )


def usage_table(rows: Sequence[tuple[str, UsageTotals]], prices: Iterable[ConditionPrices]) -> list[Block]:
    """One row per (label, totals), a total row, the note on what the estimate counts, and the prices used."""
    total = sum((totals for _, totals in rows), UsageTotals())
    table = Table(HEADER, [*(_row(label, totals) for label, totals in rows), _row("total", total)])
    return [table, Paragraph(COST_NOTE), prices_sentence(prices)]
