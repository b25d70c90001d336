"""The run's per-role sampling (`sampling.<role>`) put on each request at the role boundary."""

from __future__ import annotations

from harness.llm import LLMRequest
from harness.run.config import RoleSampling


def sampled(request: LLMRequest, sampling: RoleSampling) -> LLMRequest:
    """The request as the role's sampling sends it; unchanged (the same object) when nothing is set.

    A set temperature is a floor: a request the protocol itself sends hotter (ALFWorld's actor retries a short output
    at 0.2 x attempt) keeps its own, so the retries still widen the search they were written for.
    """
    update: dict[str, float] = {}
    if sampling.temperature is not None and sampling.temperature > request.temperature:
        update["temperature"] = sampling.temperature
    if sampling.top_p is not None:
        update["top_p"] = sampling.top_p
    return request.model_copy(update=update) if update else request
