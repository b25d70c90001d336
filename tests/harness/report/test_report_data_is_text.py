"""Record, manifest and directory values in report.md, summary.md and report.html are data: never markup, a link
or a table's cell boundary, whatever characters they hold."""

from __future__ import annotations

import html
import json
from datetime import datetime, timezone
from pathlib import Path

from harness.records import Manifest, TrialLog, write_manifest
from harness.report import REPORT_FILE, write_report
from harness.report.document import visible
from harness.report.html import HTML_FILE
from harness.records.step import Step
from tests.harness.factories import make_record
from tests.harness.report.commonmark import html_urls, link_targets, parse, tables

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
LINK = "[open](\x01javascript:alert(1))"
PLOTS = ["rrr_distribution.png", "rrr_vs_trials.png", "solved_and_mention.png"]
THRESHOLD_PLOT = "threshold_curves.png"  # shown in its own section, not linked from the plots' list


def _hostile_run(run_dir: Path) -> Path:
    """A run whose manifest status, condition, model and one record's task id are each a markdown link to a
    javascript: URL; the record outside the plan is named in report.md."""
    log = TrialLog(run_dir)
    for trial in range(2):
        log.append(make_record(trial, "Look in the drawer.", task=MUG, condition=LINK).model_copy(
            update={"actor_model": LINK, "reflector_model": LINK}))
    log.append(make_record(0, "An adopted record.", task=LINK, condition=LINK))
    manifest = Manifest(
        config={"env": {"name": "alfworld"}, "conditions": [{"name": LINK}], "experiment": {"trials": 2}},
        package_versions={},
        git_commit=None,
        data_hashes={},
        tasks=[MUG],
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status=LINK,
    )
    write_manifest(run_dir, manifest)
    return run_dir


EMBEDDED = "data:image/png;base64,"


def _report_urls(page: str) -> list[str]:
    """The URLs of the page's report part (its cards carry none), each embedded plot as EMBEDDED."""
    urls = html_urls(page[page.index('<div class="report">') : page.index('<h2 id="reflections">')])
    return [EMBEDDED if url.startswith(EMBEDDED) else url for url in urls]


def test_a_javascript_link_in_a_task_id_or_a_manifest_status_never_reaches_report_html(tmp_path: Path) -> None:
    """Issue 26, severe 3: "A `javascript:` link reaches report.html. A record whose `task_id` (or a manifest
    `status`) is `[open](\\x01javascript:alert(1))` becomes `<a href="\\x01javascript:...">` in the page"."""
    run = _hostile_run(tmp_path / "run")
    write_report([run], run)
    page = (run / HTML_FILE).read_text()
    # The run is the report's own folder: named as text, not linked (issue 28).
    assert _report_urls(page) == [*(f"#img-{plot}" for plot in PLOTS), *[EMBEDDED] * 4]
    assert all("javascript" not in url for url in html_urls(page))
    report = page[page.index('<div class="report">') : page.index('<h2 id="reflections">')]
    assert "\x01" not in report, "the report part shows control characters"
    shown = "[open](\u2401javascript:alert(1))"
    assert f"<td>{shown}</td>" in report  # the status and the condition, as text in their cells
    assert f"{shown} / {shown} / trial 0 (task not one of the run" in report  # the task id, named outside the plan


def test_in_report_md_the_same_values_are_text_and_every_link_is_the_reports_own(tmp_path: Path) -> None:
    run = _hostile_run(tmp_path / "run")
    markdown = write_report([run], run, html=False).read_text()
    assert link_targets(markdown) == [*PLOTS, *PLOTS, THRESHOLD_PLOT]
    runs_table, conditions_table = tables(markdown)[:2]
    shown = visible(LINK)
    assert runs_table[1][2] == shown and runs_table[1][4] == shown
    assert conditions_table[1][:2] == [shown, shown]
    outside = [t.content for t in parse(markdown) if t.type == "inline" and "outside the run's plan" in t.content]
    assert len(outside) == 1 and "javascript" in outside[0]


def test_a_newline_or_a_bar_in_a_run_directorys_name_leaves_the_report_tables_whole(tmp_path: Path) -> None:
    """Issue 26: "a newline or `|` in a run directory's name breaks report tables"."""
    name = "run | one\nsecond line"
    run = tmp_path / name
    log = TrialLog(run)
    log.append(make_record(0, "Look in the drawer.", task=MUG))
    log.append(make_record(1, None, True, task=MUG))
    other = tmp_path / "plain"
    TrialLog(other).append(make_record(0, "Look on the desk.", task=MUG))
    markdown = write_report([run, other], tmp_path / "out", plots=False).read_text()
    runs_table = tables(markdown)[0]
    assert all(len(row) == 6 for row in runs_table), runs_table
    assert [row[0] for row in runs_table] == ["run", visible(name), "plain"]
    assert runs_table[1][1] == visible(f"../{name}")
    assert link_targets(markdown)[:2] == ["../run%20%7C%20one%0Asecond%20line", "../plain"]
    assert all(len(row) == 6 for row in tables(markdown)[-1]), "the cost table names the runs too"
    page = (tmp_path / "out" / HTML_FILE).read_text()
    assert _report_urls(page)[:2] == ["../run%20%7C%20one%0Asecond%20line", "../plain"]
    assert f"<td>{visible(name)}</td>" in page
    assert (tmp_path / "out" / REPORT_FILE).is_file()


HIDDEN = "\x1b[8mhidden\x1b[0m\r\u202eevil\u2066"


def test_control_characters_and_bidi_overrides_show_as_symbols_in_every_part_of_report_html(tmp_path: Path) -> None:
    """h5 hostile try: "the page's title, task headings, run labels, reflections and trajectories keep raw escape
    characters and bidi overrides (U+202E reorders what follows), while report.md and the page's report part show
    them as symbols"; the reflection keeps its line breaks."""
    run = tmp_path / ("run" + HIDDEN)
    steps = [Step(action="go to desk 1" + HIDDEN, observation="You see" + HIDDEN)]
    log = TrialLog(run)
    log.append(make_record(0, "Look in the drawer.\nThen" + HIDDEN, task=MUG + HIDDEN, trajectory=steps))
    log.append(make_record(1, None, True, task=MUG + HIDDEN))
    TrialLog(tmp_path / "plain").append(make_record(0, "Look on the desk.", task=MUG))
    write_report([run, tmp_path / "plain"], tmp_path / "out")
    page = (tmp_path / "out" / HTML_FILE).read_bytes().decode()  # read_text() would turn a raw \r into \n
    for raw in ("\x1b", "\r", "\u202e", "\u2066"):
        assert raw not in page, f"{raw!r} reached the page raw"
    shown = visible(HIDDEN)
    assert f"Look in the drawer.\nThen{html.escape(shown)}" in page
    assert f'<span class="run">run{html.escape(shown)}</span>' in page
    block = page[page.index('<script type="application/json" id="trajectories">') :]
    strings = json.loads(block[block.index(">") + 1 : block.index("</script>")])["s"]
    assert f"go to desk 1{shown}" in strings and f"You see{shown}" in strings
