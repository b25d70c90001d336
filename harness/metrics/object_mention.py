"""Whether a reflection names its task's object: the study's strict rule and the normalized one, and where."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MentionVariant = Literal["strict", "normalized"]


# Splits CamelCase object names into words, keeping acronyms whole: "SaltShaker" -> Salt, Shaker;
# "CD" -> CD; "TVStand" -> TV, Stand.
_CAMEL_WORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _normalized_pattern(target_object: str) -> re.Pattern[str]:
    """Case-insensitive pattern for the object's words, joined or separated, as a whole word.

    Between words: nothing ("saltshaker", ALFWorld's own spelling), whitespace, "-" or "_".
    A plural "s"/"es" may follow. No letter may touch either end, so "cd" does not match in
    "cdrom", "cup" not in "cupboard", "toiletpaper" not in ALFWorld's receptacle
    "toiletpaperhanger"; digits may ("mug1").
    """
    words = _CAMEL_WORD_RE.findall(target_object)
    if "".join(words) != target_object:
        raise ValueError(f"target object {target_object!r} is not a CamelCase name such as 'SaltShaker'.")
    body = r"[\s_-]*".join(re.escape(word) for word in words)
    return re.compile(rf"(?<![a-z])(?:{body})(?:e?s)?(?![a-z])", re.IGNORECASE)


def mentions_object(reflection: str, target_object: str, variant: MentionVariant) -> bool:
    """Whether a reflection names the task's target object.

    strict: the CamelCase name as a case-sensitive substring (the study's definition), so
    "SaltShaker" is not found in ALFWorld's lowercase "saltshaker 1".
    normalized: see `_normalized_pattern`; finds "saltshaker", "salt shaker", "Salt-Shakers".
    """
    if variant == "strict":
        return target_object in reflection
    if variant == "normalized":
        return _normalized_pattern(target_object).search(reflection) is not None
    raise ValueError(f"unknown mention variant {variant!r}; accepted: strict, normalized.")


class MentionSpan(BaseModel):
    """Where a reflection names its object under one matching rule: text[start:end]."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    variant: MentionVariant


def strict_spans(text: str, name: str) -> list[MentionSpan]:
    """Every occurrence of `name` in `text`, case-sensitive and not overlapping, as strict spans (none for "")."""
    spans, start = [], text.find(name) if name else -1
    while start >= 0:
        spans.append(MentionSpan(start=start, end=start + len(name), variant="strict"))
        start = text.find(name, start + len(name))
    return spans


def object_mention_spans(reflection: str, target_object: str) -> list[MentionSpan]:
    """Every place `mentions_object` finds the object: the strict substrings and the normalized matches."""
    strict = strict_spans(reflection, target_object)
    normalized = [
        MentionSpan(start=match.start(), end=match.end(), variant="normalized")
        for match in _normalized_pattern(target_object).finditer(reflection)
    ]
    return strict + normalized
