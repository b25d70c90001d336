"""A pydantic validation error as one line of a refusal: where, what was expected, the value when short."""

from __future__ import annotations

from pydantic import ValidationError

_SHOWN_VALUE = 60
"""Characters of an offending value quoted in a refusal."""


def validation_reason(error: ValidationError) -> str:
    """The first problem pydantic found, in one line: where, what was expected, and the value when it is short."""
    first = error.errors()[0]
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "json_invalid":
        return f"invalid JSON ({message.removeprefix('Invalid JSON: ')})"
    where = ".".join(str(part) for part in first["loc"])
    value = first.get("input")
    shown = f" (got {_shown(value)})" if where and isinstance(value, (str, int, float, bool)) else ""
    more = f"; {error.error_count() - 1} more problem(s) after it" if error.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{message}{shown}{more}"


def _shown(value: str | int | float | bool) -> str:
    """A value as data: ascii() escapes control characters, so a hostile value cannot steer a terminal."""
    text = ascii(value)
    return text if len(text) <= _SHOWN_VALUE else text[: _SHOWN_VALUE - 3] + "..."
