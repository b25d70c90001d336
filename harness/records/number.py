"""A float setting that must be a number: NaN is refused as what it is.

NaN fails every comparison, so a bound alone would refuse `temperature=nan` as "less than or equal to 2", sending
the reader to look for a value that is too large.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BeforeValidator, StrictFloat


def _a_number(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        raise ValueError("nan is not a number")
    return value


Number = Annotated[StrictFloat, BeforeValidator(_a_number)]
"""A StrictFloat (a boolean is not a number either) that refuses NaN before any bound is checked."""
