"""report.html in headless Chromium: what the DOM holds against the records and metrics.json, the filters, the
folded trajectories, escaping, and no network; on the committed five-condition replay, at study size, and on the
audit of the published logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from benchmarks.synthetic_study import CONDITIONS, write_study_run
from harness.audit.sources import discover_sources, load_source
from harness.metrics.core import most_similar_earlier, reflection_repetition_rate
from harness.metrics.run import METRICS_FILE, RunMetrics
from harness.records import read_trials
from harness.report import write_report
from harness.report._runs import load_run
from harness.report.html import HTML_FILE
from harness.report.html._text import similarity_text
from tests.browser import GROUPS_JS, headless_chromium
from tests.harness.report.html.pages import SCRIPT, TRAP, write_small_run

# The five conditions and the gated one, whose answers the same committed cache holds.
COUNT_SHOWN = "window.harnessReport.apply(%s)"


def _not_blank(path: Path) -> None:
    image = Image.open(path).convert("RGB")
    assert image.size == (1280, 900)
    colours = image.resize((128, 90)).getcolors(maxcolors=128 * 90)
    assert colours is not None and len(colours) > 50, f"{path} looks blank"


def _requests_stay_on_disk(urls: list[str]) -> None:
    assert urls and all(url.startswith(("file:", "data:", "about:")) for url in urls), urls


def test_model_text_shows_as_text_and_runs_nothing(tmp_path: Path) -> None:
    run = write_small_run(tmp_path / "run")
    write_report([run], run, plots=False)
    with headless_chromium() as browser:
        browser.open(run / HTML_FILE)
        assert browser.evaluate("typeof window.__pwned") == "undefined"
        shown = browser.evaluate("Array.from(document.querySelectorAll('.rf'), (r) => r.textContent)")
        assert shown[2] == SCRIPT
        browser.evaluate("document.querySelectorAll('details.tj').forEach((d) => { d.open = true; })")
        steps = browser.evaluate(
            "new Promise((done) => setTimeout(() => done(Array.from(document.querySelectorAll('ol.steps pre.o'),"
            " (o) => o.textContent)), 200))"
        )
        assert steps == [TRAP] * 4
        assert browser.evaluate("typeof window.__pwned") == "undefined"
        _requests_stay_on_disk(browser.requests)


@pytest.fixture(scope="module")
def six_conditions(five_conditions_run: Path) -> Path:
    """experiment=five_conditions_demo with the gated condition, replayed from the committed cache (the session's
    finished run): its run wrote report.html itself."""
    return five_conditions_run


@pytest.mark.slow
def test_the_five_condition_replay_shows_every_reflection_and_the_pairs_metrics_json_counts(
    six_conditions: Path, tmp_path: Path
) -> None:
    run_records = read_trials(six_conditions)
    metrics = RunMetrics.model_validate_json((six_conditions / METRICS_FILE).read_text())
    measured = {(c.condition, t.task_id): t for c in metrics.conditions for t in c.tasks}
    with headless_chromium() as browser:
        browser.open(six_conditions / HTML_FILE)
        _not_blank(browser.screenshot(tmp_path / "top.png"))
        browser.evaluate("document.getElementById('reflections').scrollIntoView()")
        _not_blank(browser.screenshot(tmp_path / "reflections.png"))
        groups = browser.evaluate(GROUPS_JS)
        _requests_stay_on_disk(browser.requests)
    assert len(groups) == len(measured) == 18
    for group in groups:
        mine = sorted((r for r in run_records if (r.condition, r.task_id) == (group["condition"], group["task"])),
                      key=lambda r: r.trial)
        memory = [r.reflection for r in mine if r.reflection is not None]
        task = measured[(group["condition"], group["task"])]
        assert group["reflections"] == memory
        assert group["trials"] == task.trials == len(mine)
        expected = 0 if task.rrr is None else round(task.rrr * (task.reflections - 1))
        assert group["repeats"] == expected, group
        assert (group["strict"], group["normalized"]) == (task.mentions.strict, task.mentions.normalized)
        assert (group["solved"], group["frozen"]) == (task.solved, task.frozen)
        matches = [m for m in most_similar_earlier(memory) if m is not None]
        assert [s.split(" ")[0] for s in group["similarities"]] == [similarity_text(m.similarity) for m in matches]
    assert sum(len(g["reflections"]) for g in groups) == sum(r.reflection is not None for r in run_records)


IDENTITY_JS = """Array.from(document.querySelectorAll('.idn'), (e) => [e.dataset.identity, e.textContent,
    e.offsetParent !== null && e.getBoundingClientRect().height > 0])"""


@pytest.mark.slow
def test_each_reflection_shows_its_task_identity_label_and_evidence(six_conditions: Path) -> None:
    with headless_chromium() as browser:
        browser.open(six_conditions / HTML_FILE)
        shown = browser.evaluate(IDENTITY_JS)
        texts = browser.evaluate("Array.from(document.querySelectorAll('.rf'), (r) => r.textContent)")
    written = [r for r in read_trials(six_conditions) if r.reflection is not None]
    assert len(shown) == len(texts) == len(written)
    assert all(visible for _, _, visible in shown)
    by_text = Counter((r.reflection, r.reflection_identity.label) for r in written if r.reflection_identity)
    assert Counter(zip(texts, (label for label, _, _ in shown))) == by_text
    for label, text, _ in shown:
        assert text.startswith(label) and (label == "vacuous" or " = " in text)  # the words that decided it
    assert {label for label, _, _ in shown} == {"on_task", "off_task", "vacuous"}


@pytest.mark.slow
def test_the_replay_page_filters_and_unfolds_trajectories(six_conditions: Path) -> None:
    metrics = RunMetrics.model_validate_json((six_conditions / METRICS_FILE).read_text())
    frozen = sum(c.totals.frozen for c in metrics.conditions)
    conditions = [c.condition for c in metrics.conditions]
    with headless_chromium() as browser:
        browser.open(six_conditions / HTML_FILE)
        assert browser.evaluate(COUNT_SHOWN % "{conditions: null, frozen: '1'}") == frozen
        assert browser.evaluate(COUNT_SHOWN % "{conditions: null, frozen: '0'}") == 18 - frozen
        assert browser.evaluate(COUNT_SHOWN % f"{{conditions: ['{conditions.index('gated')}']}}") == 3
        assert browser.evaluate(COUNT_SHOWN % "{conditions: null, solved: '1'}") == sum(
            c.totals.solved for c in metrics.conditions
        )
        # The form drives the same filter: untick every condition but the first.
        browser.evaluate(
            "document.querySelectorAll('#f-cond input').forEach((box, k) => { box.checked = k === 0; });"
            "document.getElementById('filters').dispatchEvent(new Event('change'))"
        )
        assert browser.evaluate("document.getElementById('shown').textContent") == "3 of 18 shown"
        assert browser.evaluate("document.querySelectorAll('article.g:not([hidden])').length") == 3
        browser.evaluate(COUNT_SHOWN % "{conditions: null}")
        browser.evaluate("document.querySelectorAll('details.tj').forEach((d) => { d.open = true; })")
        steps = browser.evaluate(
            "new Promise((done) => setTimeout(() => done(Array.from(document.querySelectorAll('details.tj'),"
            " (d) => d.querySelectorAll('ol.steps > li').length)), 300))"
        )
    assert steps == [r.steps for r in _in_page_order(six_conditions, conditions)]


def _in_page_order(run: Path, conditions: list[str]) -> list:
    return sorted(read_trials(run), key=lambda r: (r.task_id, conditions.index(r.condition), r.trial))


@pytest.mark.slow
def test_the_page_at_study_size_holds_every_group_and_filters(tmp_path: Path) -> None:
    run = tmp_path / "study"
    study = write_study_run(run, metrics=False)  # measured once, by the report's own reading of the records
    data = load_run(run, run.name)
    write_report([run], run, plots=False, runs=[data])
    metrics = data.metrics
    assert len(study) == 134 * len(CONDITIONS) * 10
    with headless_chromium() as browser:
        browser.open(run / HTML_FILE)
        assert browser.evaluate("window.harnessReport.total") == 134 * len(CONDITIONS)
        reflections = sum(r.reflection is not None for r in study)
        assert browser.evaluate("document.querySelectorAll('.rf').length") == reflections
        assert browser.evaluate(COUNT_SHOWN % "{conditions: null, frozen: '1'}") == sum(
            c.totals.frozen for c in metrics.conditions
        )
        assert browser.evaluate(COUNT_SHOWN % "{conditions: ['1', '3']}") == 2 * 134
        assert browser.evaluate("document.querySelectorAll('li.t.rep').length") == sum(
            round(t.rrr * (t.reflections - 1)) for c in metrics.conditions for t in c.tasks if t.rrr is not None
        )


@pytest.mark.slow
def test_the_audit_page_shows_every_published_reflection_and_its_repeats(published_audit: Path) -> None:
    report = json.loads((published_audit / "audit.json").read_text())
    measured = {row["source"] for row in report["sources"]}
    tasks = [t for s in discover_sources() if s.name in measured for t in load_source(s) if t.reflections]
    with headless_chromium() as browser:
        browser.open(published_audit / "audit.html")
        groups = browser.evaluate(GROUPS_JS)
        _requests_stay_on_disk(browser.requests)
    assert len(groups) == len(tasks)
    by_key = {(t.source, t.task_id): t for t in tasks}
    for group in groups:
        task = by_key[(group["condition"], group["task"])]
        assert group["reflections"] == task.reflections
        rrr = reflection_repetition_rate(task.reflections)
        assert group["repeats"] == (0 if rrr is None else round(rrr * (len(task.reflections) - 1)))
    alfworld = [g for g in groups if g["condition"] == "alfworld_runs/root/reflexion_run_logs"]
    (mention,) = [m for m in report["object_mention"] if m["source"] == "alfworld_runs/root/reflexion_run_logs"]
    assert sum(g["normalized"] for g in alfworld) == mention["all_reflections"]["normalized"]
    assert sum(g["strict"] for g in alfworld) == mention["all_reflections"]["strict"]
    assert Counter(g["frozen"] for g in alfworld)[True] == len(mention["frozen_envs"])
