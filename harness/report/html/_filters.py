"""The filter bar and the legend above the groups."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from harness.metrics.thresholds import Thresholds
from harness.report.html._model import Group
from harness.report.html._text import esc

# Up to this many conditions get a checkbox each; beyond (the audit's dozens of sources) a list to pick from.
CHECKBOX_LIMIT = 12


def _choice(name: str, legend: str, options: Sequence[tuple[str, str]]) -> str:
    radios = "".join(
        f'<label><input type="radio" name="{name}" value="{value}"{" checked" if k == 0 else ""}> {esc(text)}</label>'
        for k, (value, text) in enumerate(options)
    )
    return f'<fieldset id="f-{name}"><legend>{esc(legend)}</legend>{radios}</fieldset>'


def _conditions(name: str, conditions: Sequence[str], counts: Counter[str]) -> str:
    if len(conditions) <= CHECKBOX_LIMIT:
        boxes = "".join(
            f'<label><input type="checkbox" value="{k}" checked> {esc(c)} <small>({counts[c]})</small></label>'
            for k, c in enumerate(conditions)
        )
        return f'<fieldset id="f-cond"><legend>{esc(name)}</legend>{boxes}</fieldset>'
    options = "".join(f'<option value="{k}">{esc(c)} ({counts[c]})</option>' for k, c in enumerate(conditions))
    every = f'<option value="">all {len(conditions)} {esc(name)}s</option>'
    return f'<fieldset id="f-cond"><legend>{esc(name)}</legend><select>{every}{options}</select></fieldset>'


def filters_html(condition_name: str, conditions: Sequence[str], groups: Sequence[Group]) -> str:
    counts = Counter(group.condition for group in groups)
    parts = [
        _conditions(condition_name, conditions, counts),
        _choice("solved", "outcome", [("", "all"), ("1", "solved"), ("0", "unsolved")]),
        _choice("frozen", "memory", [("", "all"), ("1", "frozen"), ("0", "not frozen")]),
        '<fieldset><legend>reflections</legend><label><input type="checkbox" id="f-rep"> with a repeat</label>'
        "</fieldset>",
        '<fieldset><legend>task</legend><input type="search" id="f-task" placeholder="task id contains"></fieldset>',
        f'<output id="shown">{len(groups)} of {len(groups)} shown</output>',
    ]
    return f'<form id="filters" onsubmit="return false">{"".join(parts)}</form>'


def legend_html(mention_note: str, thresholds: Thresholds) -> str:
    return (
        '<p class="legend">Each reflection shows its similarity to the most similar earlier reflection of the same '
        "task and condition (<code>difflib.SequenceMatcher(None, later, earlier).ratio()</code>, cut to three "
        f"decimals); at {thresholds.similarity_threshold:g} or more it is a <a class=\"sim rep\">repeat</a>, and RRR "
        f"is the share of reflections after the first that repeat (frozen: RRR &gt;= {thresholds.frozen_threshold:g}). "
        f'{esc(mention_note)}, marked where <mark class="ms mn">both rules</mark>, <mark class="ms">only the strict '
        'rule</mark> or <mark class="mn">only the normalized rule</mark> find it. '
        "A trial's trajectory is folded under it.</p>"
    )
