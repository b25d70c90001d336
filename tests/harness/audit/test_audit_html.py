"""audit.html's groups: every published task with memory, source by source, measured as the audit measures it."""

from __future__ import annotations

from pathlib import Path

from harness.audit.audit_html import audit_groups
from harness.audit.published import PublishedTask
from harness.report.document import Document
from harness.report.html import Page, render_page

SAME = "I should have taken the mug 1 from the desk, then put it in the coffeemachine."


def task(task_id: str, reflections: list[str], source: str = "alfworld_runs/x", solved: bool = False) -> PublishedTask:
    return PublishedTask(
        domain="alfworld", source=source, task_id=task_id, reflections=reflections, solved=solved,
        trial_solved=2 if solved else None, trials=3,
    )


def test_tasks_with_memory_become_groups_in_natural_order_with_their_repeats_and_mentions() -> None:
    tasks = [task("env_10", [SAME, SAME, "Go to the Mug."], solved=True), task("env_2", [SAME]), task("env_3", [])]
    targets = {"alfworld_runs/x": {"env_10": "Mug", "env_2": "Mug"}}
    groups = audit_groups([("alfworld_runs/x", "alfworld", tasks)], targets)
    assert [g.task for g in groups] == ["env_2", "env_10"]
    frozen = groups[1]
    assert (frozen.rrr, frozen.frozen, frozen.solved_note) == (0.5, True, "solved in trial 2")
    assert [e.nearest.label if e.nearest else None for e in frozen.entries] == [None, "reflection 1", "reflection 1"]
    assert [e.nearest.repeats for e in frozen.entries if e.nearest] == [True, False]
    assert [(e.mention.strict, e.mention.normalized) for e in frozen.entries if e.mention] == [
        (False, True), (False, True), (True, True)
    ]
    assert groups[0].rrr is None and groups[0].solved_note == "unsolved after 3 trials"


def test_a_source_without_targets_has_no_mentions_and_the_page_picks_sources_from_a_list() -> None:
    sources = [(f"hotpotqa/{k}", "hotpotqa", [task("0", [SAME], source=f"hotpotqa/{k}")]) for k in range(13)]
    groups = audit_groups(sources, {})
    assert len(groups) == 13 and all(e.mention is None for g in groups for e in g.entries)
    page = Page(
        document=Document("audit", []), condition_name="source", conditions=[g.condition for g in groups],
        mention_note="", groups=groups, sections="per_group",
    )
    html = render_page(page, Path("."))
    assert '<option value="">all 13 sources</option>' in html and html.count('<section class="task"') == 13
