"""The run's per-role sampling (`sampling.<role>`) put on each request at the role boundary."""

from __future__ import annotations

import hashlib

from harness.llm import LLMRequest
from harness.run.config import RoleSampling


def sampled(request: LLMRequest, sampling: RoleSampling) -> LLMRequest:
    """The request as the role's sampling sends it; unchanged (the same object) when nothing is set.

    A set temperature is a floor: a request the protocol itself sends hotter (ALFWorld's actor retries a short output
    at 0.2 x attempt) keeps its own, so the retries still widen the search they were written for; one the floor lifts
    from a warmer-than-greedy protocol temperature gets its own seed (`lifted_seed`).
    """
    update: dict[str, float | int] = {}
    if sampling.temperature is not None and sampling.temperature > request.temperature:
        update["temperature"] = sampling.temperature
        if request.temperature > 0:
            # A protocol's own warmer retry lifted to the floor would be its first try's request again, answered
            # from the cache: a seed of its own keeps it a new sample.
            update["seed"] = lifted_seed(request.seed, request.temperature)
    if sampling.top_p is not None:
        update["top_p"] = sampling.top_p
    return request.model_copy(update=update) if update else request


def lifted_seed(seed: int, protocol_temperature: float) -> int:
    """The seed of a request the floor lifted from `protocol_temperature`: one per (seed, protocol temperature)."""
    digest = hashlib.sha256(f"{seed}/lifted from {protocol_temperature:g}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1  # 31 bits: a seed every backend accepts
