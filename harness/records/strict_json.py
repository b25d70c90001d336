"""What JSON a log line may be beyond its model: each key once per object, and no NaN or Infinity.

pydantic's parser takes the last of two equal keys and reads NaN and Infinity as floats, so a hand-edited line
such as `{..., "success": false, ..., "success": true}` would validate as the value the editor appended, and a
figure summed over records would turn into nan or inf. A number written too large for a float (`1e999`) is read as
infinity too. None of these is ever written by a harness.
"""

from __future__ import annotations

import json
import math
from typing import Any


class _Refused(ValueError):
    """A line's JSON breaks one of the rules; the message says which."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys: dict[str, Any] = {}
    for key, value in pairs:
        if key in keys:
            raise _Refused(f"the key {key!a} appears twice in one object, so which value holds is unclear")
        keys[key] = value
    return keys


def _no_constant(name: str) -> float:
    raise _Refused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise _Refused(f"{text[:40]} is a number too large for a float, which would be read as infinity")
    return number


def strict_json_problem(raw: bytes) -> str | None:
    """Why `raw`, a line that parses as JSON, breaks the rules above; None when it keeps them."""
    try:
        json.loads(raw, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite)
    except _Refused as problem:
        return str(problem)
    return None
