"""Groups as HTML: a section per task, a card per condition, a row per trial with its reflection, its nearest
earlier reflection, its object mentions, its details, and its trajectory folded (filled in by the page's script)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from harness.records.identity import ReflectionIdentity
from harness.report.html._model import DetailBlock, DetailItem, DiagnosisView, Entry, Group, Mention
from harness.report.html._text import esc, highlighted, rrr_text, similarity_text
from harness.report.html._trajectories import TrajectoryPool


def _item(item: DetailItem) -> str:
    label = f"<dt>{esc(item.label)}</dt>" if item.label else ""
    text = f"<pre>{esc(item.text)}</pre>" if item.tone == "code" else esc(item.text)
    return f'<div class="it {item.tone}">{label}<dd>{text}</dd></div>'


def detail_html(block: DetailBlock) -> str:
    body = "<dl>" + "".join(_item(item) for item in block.items) + "</dl>"
    if block.folded:
        return f'<details class="blk"><summary>{esc(block.title)}</summary>{body}</details>'
    return f'<div class="blk"><div class="bt">{esc(block.title)}</div>{body}</div>'


def _check(value: bool) -> str:
    return "yes" if value else "no"


def _mention_html(mention: Mention, target: str | None) -> str:
    what = esc(target) if target else "object"
    classes = f"men{' s1' if mention.strict else ''}{' n1' if mention.normalized else ''}"
    return (
        f'<span class="{classes}">mentions {what}: strict {_check(mention.strict)}, '
        f"normalized {_check(mention.normalized)}</span>"
    )


def _identity_html(identity: ReflectionIdentity) -> str:
    """The label, and the words that decided it with what each was read as."""
    pairs = Counter((e.text, e.means) for e in identity.deciding())
    evidence = "; ".join(
        f"{esc(text)} = {esc(means)}" + (f" (x{count})" if count > 1 else "") for (text, means), count in pairs.items()
    )
    because = f": {evidence}" if evidence else ": names no task"  # a goal object, a question, a problem
    return f'<span class="idn {identity.label}" data-identity="{identity.label}">{identity.label}{because}</span>'


def _similarity_html(entry: Entry, group_id: str) -> str:
    nearest = entry.nearest
    if nearest is None:
        return '<span class="sim first">first reflection</span>'
    target = f"{group_id}-{nearest.entry}"
    verdict = "repeat" if nearest.repeats else "new"
    return (
        f'<a class="sim{" rep" if nearest.repeats else ""}" href="#{target}" data-to="{target}">'
        f"{similarity_text(nearest.similarity)} to {esc(nearest.label)}: {verdict}</a>"
    )


def _steps(steps: Sequence[int]) -> str:
    return ", ".join(str(step) for step in steps) or "none"


def diagnosis_html(view: DiagnosisView) -> str:
    """Where the trial was lost beside what the reflection claims; confabulated claims marked, their words as text."""
    if view.unscored is not None:
        return f'<div class="dg">diagnosis: unscored ({esc(view.unscored)})</div>'
    decisive = "no decisive agent step" if view.decisive_step is None else f"decisive step {view.decisive_step}"
    parts = [f'<span class="dec">{decisive} ({esc(view.category or "no category")})</span>',
             f'<span class="cl">reflection names step{"s" if len(view.claimed_steps) != 1 else ""} '
             f'{_steps(view.claimed_steps)}{" (ambiguous quote)" if view.ambiguous else ""}, cause '
             f'{esc(view.claimed_cause or "none")}</span>']
    if view.hit is not None:
        parts.append(f'<span class="hit{" y" if view.hit else " n"}">exact step: {"hit" if view.hit else "miss"}</span>')
    for kind, words in view.confabulated:
        parts.append(f'<span class="cf">confabulated {esc(kind)}: {esc(words)}</span>')
    return f'<div class="dg">{" ".join(parts)}</div>'


def _marks(view: DiagnosisView | None) -> str:
    """The trajectory's step marks for the page's script: decisive, claimed and error steps."""
    if view is None or view.unscored is not None:
        return ""
    decisive = "" if view.decisive_step is None else str(view.decisive_step)
    return (f' data-d="{decisive}" data-cl="{" ".join(map(str, view.claimed_steps))}"'
            f' data-e="{" ".join(map(str, view.error_steps))}"')


def entry_html(entry: Entry, index: int, group_id: str, target: str | None, pool: TrajectoryPool) -> str:
    outcome = "" if entry.success is None else (" ok" if entry.success else " fail")
    repeat = " rep" if entry.nearest is not None and entry.nearest.repeats else ""
    head = [f"<b>{esc(entry.label)}</b>"]
    if entry.outcome:
        head.append(f'<span class="out">{esc(entry.outcome)}</span>')
    if entry.memory:
        head.append(f'<span class="mem">{esc(entry.memory)}</span>')
    parts = [f'<div class="th">{" ".join(head)}</div>']
    if entry.reflection is not None:
        spans = entry.mention.spans if entry.mention else []
        parts.append(f'<div class="rf">{highlighted(entry.reflection, spans)}</div>')
        meta = [_similarity_html(entry, group_id)]
        if entry.mention is not None:
            meta.append(_mention_html(entry.mention, target))
        if entry.identity is not None:
            meta.append(_identity_html(entry.identity))
        parts.append(f'<div class="meta">{" ".join(meta)}</div>')
    elif entry.no_reflection:
        parts.append(f'<div class="nr">{esc(entry.no_reflection)}</div>')
    if entry.diagnosis is not None:
        parts.append(diagnosis_html(entry.diagnosis))
    parts += [detail_html(block) for block in entry.details]
    if entry.trajectory is not None:
        steps = len(entry.trajectory)
        parts.append(
            f'<details class="tj" data-t="{pool.add(entry.trajectory)}"{_marks(entry.diagnosis)}><summary>trajectory '
            f"({steps} step{'s' if steps != 1 else ''})</summary></details>"
        )
    return f'<li class="t{outcome}{repeat}" id="{group_id}-{index}">{"".join(parts)}</li>'


def _badges(group: Group) -> str:
    reflections = len(group.reflections)
    if group.rrr is None:
        rrr = f"RRR undefined ({reflections} reflection{'s' if reflections != 1 else ''})"
    else:
        rrr = f"RRR {group.repeats}/{reflections - 1} = {rrr_text(group.rrr)}"
    frozen = '<span class="b frozen">frozen</span>' if group.frozen else ""
    solved = f'<span class="b {"ok" if group.solved else "fail"}">{esc(group.solved_note)}</span>'
    mentioned = [e.mention for e in group.entries if e.mention is not None]
    mention = ""
    if mentioned:
        strict, normalized = sum(m.strict for m in mentioned), sum(m.normalized for m in mentioned)
        n = len(mentioned)
        mention = f'<span class="b">mentions: strict {strict}/{n}, normalized {normalized}/{n}</span>'
    labelled = Counter(e.identity.label for e in group.entries if e.identity is not None)
    identity = ""
    if labelled:
        n = sum(labelled.values())
        counts = ", ".join(f"{labelled[label]}/{n} {label}" for label in ("on_task", "off_task", "vacuous"))
        identity = f'<span class="b">identity: {counts}</span>'
    return f'{solved}<span class="b rrr">{rrr}</span>{frozen}{mention}{identity}'


def group_html(group: Group, number: int, condition_index: int, pool: TrajectoryPool) -> str:
    group_id = f"g{number}"
    run = f' <span class="run">{esc(group.run)}</span>' if group.run else ""
    attributes = (
        f'id="{group_id}" data-c="{condition_index}" data-s="{int(group.solved)}" data-f="{int(group.frozen)}" '
        f'data-r="{int(group.repeats > 0)}" data-task="{esc(group.task)}" data-cond="{esc(group.condition)}"'
        + (f' data-run="{esc(group.run)}"' if group.run else "")
    )
    entries = "".join(entry_html(e, i, group_id, group.target, pool) for i, e in enumerate(group.entries))
    return (
        f'<article class="g" {attributes}><header><span class="cond">{esc(group.condition)}</span>{run}'
        f"{_badges(group)}</header><ol class=\"trials\">{entries}</ol></article>"
    )


def _sections(groups: Sequence[Group], conditions: Sequence[str], by_task: bool) -> list[list[Group]]:
    if not by_task:
        return [[group] for group in groups]
    order = {name: k for k, name in enumerate(conditions)}
    of_task: dict[str, list[Group]] = {}
    for group in groups:
        of_task.setdefault(group.task, []).append(group)
    # sorted() is stable: the groups of one condition keep their run order.
    return [sorted(of_task[task], key=lambda g: order.get(g.condition, len(order))) for task in sorted(of_task)]


def task_sections(
    groups: Sequence[Group], conditions: Sequence[str], pool: TrajectoryPool, by_task: bool = True
) -> str:
    """A section per task with its groups, tasks sorted and groups in condition order; or one per group, as given."""
    order = {name: k for k, name in enumerate(conditions)}
    sections, number = [], 0
    for cards_of_task in _sections(groups, conditions, by_task):
        cards = []
        for group in cards_of_task:
            cards.append(group_html(group, number, order.get(group.condition, len(order)), pool))
            number += 1
        task, target = cards_of_task[0].task, cards_of_task[0].target
        note = f' <span class="target">object: {esc(target)}</span>' if target else ""
        sections.append(
            f'<section class="task" data-q="{esc(task.lower())}"><h3>{esc(task)}{note}</h3>{"".join(cards)}</section>'
        )
    return "\n".join(sections)
