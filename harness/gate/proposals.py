"""The memory items a gated reflection proposes, read out of the model's answer.

The answer should be a JSON list of {"lesson", "evidence": {"turn", "quote"}} objects. Small models
wrap it in prose or code fences, or run out of tokens mid-list, so complete objects are salvaged one
by one; what cannot be read at all is passed on as the raw text, for the gate to drop with a reason.
"""

from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder()


def parse_proposals(answer: str) -> list[Any]:
    """The proposed items as JSON values: the answer's first JSON list, else every complete object in it."""
    start = answer.find("[")
    if start >= 0:
        try:
            value, _ = _DECODER.raw_decode(answer, start)
        except ValueError:
            value = None
        if isinstance(value, list):
            return value
    objects = _complete_objects(answer)
    if objects:
        return objects
    return [answer.strip()] if answer.strip() else []


def _complete_objects(text: str) -> list[Any]:
    """Top-level JSON objects that decode completely, in order (an object cut off by the token limit is lost)."""
    found: list[Any] = []
    position = text.find("{")
    while position >= 0:
        try:
            value, end = _DECODER.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        found.append(value)
        position = text.find("{", end)
    return found
