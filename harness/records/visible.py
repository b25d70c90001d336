"""Characters that would act instead of show, made visible: in report tables, pages and the gate's terminal alike.

A newline or a carriage return in a task id would end a table row or a markdown line; other control characters
and the bidirectional overrides are invisible and can reorder or hide what is around them. Each is shown as a
symbol: C0 controls and DEL as their Unicode control pictures (U+2400 block, newline as U+240A), the others as
their code point in angle brackets.
"""

from __future__ import annotations

_BIDI = (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_VISIBLE: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20)},
    0x7F: "\u2421",
    **{code: f"<U+{code:04X}>" for code in (*range(0x80, 0xA0), *_BIDI, 0x2028, 0x2029)},
}


_VISIBLE_IN_PROSE = {code: shown for code, shown in _VISIBLE.items() if chr(code) not in "\n\t"}


def visible(text: str) -> str:
    """`text` with every control, bidirectional override and line separator shown as a symbol."""
    return text.translate(_VISIBLE)


def visible_in_prose(text: str) -> str:
    """visible(), keeping newlines and tabs: for text a page lays out as written (a reflection, an observation)."""
    return text.translate(_VISIBLE_IN_PROSE)
