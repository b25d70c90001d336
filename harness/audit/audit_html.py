"""audit.html: audit.md's document on top, then every published task with memory, source by source, its reflections
in order, each with the earlier one it is most similar to and, in the ALFWorld runs, where it names the game's target object.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from harness.audit.alfworld_mention import MAPPED_DOMAINS, env_targets, read_env_to_game
from harness.audit.audit_markdown import audit_document
from harness.audit.audit_model import AuditReport
from harness.audit.published import PublishedTask
from harness.audit.sources import discover_sources, load_source
from harness.audit.task_identity import task_labeller
from harness.domains.alfworld.identity import reflection_identity
from harness.metrics.core import (
    EarlierMatch,
    is_frozen,
    most_similar_earlier,
    reflection_repetition_rate,
)
from harness.metrics.object_mention import mentions_object, object_mention_spans
from harness.records.identity import ReflectionIdentity
from harness.report.html import Entry, Group, Mention, Nearest, Page, write_page

AUDIT_HTML = "audit.html"
MENTION_NOTE = (
    "Object mention (ALFWorld runs only): where a reflection names the target object of the game the env_N -> game "
    "mapping gives its environment"
)


def _natural(task_id: str) -> list[object]:
    """env_2 before env_10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", task_id)]


def _solved_note(task: PublishedTask) -> str:
    if task.solved:
        return "solved" if task.trial_solved is None else f"solved in trial {task.trial_solved}"
    return "unsolved" if task.trials is None else f"unsolved after {task.trials} trials"


Matches = dict[tuple[str, ...], list[EarlierMatch | None]]
Labeller = Callable[[str, str], ReflectionIdentity | None]


def task_group(
    task: PublishedTask, target: str | None, known: Matches, game: str | None = None, labeller: Labeller | None = None
) -> Group:
    """One published task: its reflections in the order written, numbered from 1. `known` holds the matches of
    memories already measured (several runs are published twice) and gains this one; `game`, an ALFWorld
    environment's mapped game, labels each reflection's task identity against it, and `labeller` a HumanEval or
    HotpotQA reflection's against its own task."""
    memory = tuple(task.reflections)
    if memory not in known:
        known[memory] = most_similar_earlier(memory)
    entries = []
    for k, (text, match) in enumerate(zip(task.reflections, known[memory])):
        nearest = None
        if match is not None:
            label = f"reflection {match.index + 1}"
            nearest = Nearest(entry=match.index, label=label, similarity=match.similarity, repeats=match.repeats)
        mention = None
        if target is not None:
            mention = Mention(
                strict=mentions_object(text, target, "strict"),
                normalized=mentions_object(text, target, "normalized"),
                spans=object_mention_spans(text, target),
            )
        identity = reflection_identity(text, game) if game is not None else None
        if identity is None and labeller is not None:
            identity = labeller(task.task_id, text)
        entries.append(
            Entry(label=f"reflection {k + 1}", reflection=text, nearest=nearest, mention=mention, identity=identity)
        )
    rrr = reflection_repetition_rate(task.reflections)
    return Group(
        task=task.task_id,
        condition=task.source,
        target=target,
        solved=task.solved,
        solved_note=_solved_note(task),
        rrr=rrr,
        frozen=is_frozen(rrr),
        entries=entries,
    )


def audit_groups(
    sources: Sequence[tuple[str, str, list[PublishedTask]]],
    targets: Mapping[str, Mapping[str, str]],
    games: Mapping[str, str] | None = None,
) -> list[Group]:
    """(source, domain, tasks) -> the groups of every task with at least one reflection, in source order; `games`
    (env_N -> game) labels the task identity of the reflections of sources that `targets` maps."""
    groups = []
    known: Matches = {}
    for name, domain, tasks in sources:
        mapped, labeller = targets.get(name, {}), task_labeller(domain)
        for task in sorted((t for t in tasks if t.reflections), key=lambda t: _natural(t.task_id)):
            game = games.get(task.task_id) if games is not None and task.task_id in mapped else None
            groups.append(task_group(task, mapped.get(task.task_id), known, game, labeller))
    return groups


def write_audit_html(report: AuditReport, logs_dir: Path, env_to_game: Path, out_dir: Path) -> Path:
    """audit.html in `out_dir` for `report`, reading the sources it measured again (loading takes seconds)."""
    measured = {row.source for row in report.sources}
    order = [row.source for row in report.sources]
    loaded = {s.name: (s, load_source(s)) for s in discover_sources(logs_dir) if s.name in measured}
    sources = [(name, loaded[name][0].domain, loaded[name][1]) for name in order if name in loaded]
    mapping = read_env_to_game(env_to_game)
    targets = {
        name: env_targets(tasks, mapping, report.env_to_game)
        for name, domain, tasks in sources
        if domain in MAPPED_DOMAINS
    }
    groups = audit_groups(sources, targets, mapping)
    page = Page(
        document=audit_document(report),
        condition_name="source",
        conditions=list(dict.fromkeys(group.condition for group in groups)),
        mention_note=MENTION_NOTE,
        groups=groups,
        sections="per_group",
    )
    return write_page(page, out_dir, AUDIT_HTML)
