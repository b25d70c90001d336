"""Text into HTML: everything escaped, object mentions wrapped in <mark> by the rule that found them."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from harness.errors import visible, visible_in_prose
from harness.metrics.object_mention import MentionSpan

# One class per combination: the reader tells a strict match from one only the normalized rule finds.
_MARK_CLASS = {1: "ms", 2: "mn", 3: "ms mn"}
_BIT = {"strict": 1, "normalized": 2}


def esc(text: object) -> str:
    """The text, safe in element content and in quoted attribute values; a control character or a bidirectional
    override, which would hide or reorder what is around it, shown as a symbol."""
    return html.escape(visible_in_prose(str(text)), quote=True)


def esc_line(text: object) -> str:
    """esc(), with a newline or a tab shown as a symbol too: for a value a table cell shows on one line (a path, a
    status, a task id), where a newline would silently become a space."""
    return html.escape(visible(str(text)), quote=True)


def highlighted(text: str, spans: Sequence[MentionSpan]) -> str:
    """`text` escaped, each run of characters inside some span wrapped in <mark> with the rules that cover it."""
    if not spans:
        return esc(text)
    flags = [0] * len(text)
    for span in spans:
        for i in range(max(span.start, 0), min(span.end, len(text))):
            flags[i] |= _BIT[span.variant]
    parts, start = [], 0
    for i in range(1, len(text) + 1):
        if i == len(text) or flags[i] != flags[start]:
            chunk = esc(text[start:i])
            mark = _MARK_CLASS.get(flags[start])
            parts.append(f'<mark class="{mark}">{chunk}</mark>' if mark else chunk)
            start = i
    return "".join(parts)


def similarity_text(value: float) -> str:
    """Three decimals, cut rather than rounded, so a similarity shown as 0.850 really is >= 0.85.

    Ratios are 2M/T with T a few thousand characters, so distinct values differ by far more than the 1e-9 that
    absorbs the float error of the product.
    """
    return f"{math.floor(value * 1000 + 1e-9) / 1000:.3f}"


def rrr_text(rrr: float | None) -> str:
    return "undefined" if rrr is None else f"{rrr:.2f}"
