"""index.html in headless Chromium: typing in the filter box hides and shows rows, the selects filter, a click on a
heading sorts (a second click the other way), nothing recorded runs as script, and nothing leaves the disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.report.index import index_rows, write_index_page
from tests.browser import click, headless_chromium, type_text
from tests.harness.report.index_folder import SWEEP, write_results
from tests.harness.report.html.pages import MUG

SHOWN_PATHS = "Array.from(document.querySelectorAll('#index tbody tr:not([hidden])'), (r) => r.cells[1].textContent)"
SHOWN_COUNT = "document.getElementById('shown').textContent"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_results(tmp_path_factory.mktemp("results"))
    write_index_page(root)
    return root


def _choose(select: str, text: str) -> str:
    """Pick the option showing `text` in a select, as a user does (the change event follows)."""
    return (
        f"(() => {{ const s = document.getElementById('{select}');"
        f" s.value = Array.from(s.options).find((o) => o.textContent === '{text}').value;"
        " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )


def test_typing_in_the_filter_hides_and_shows_rows(results: Path) -> None:
    paths = [row.path for row in index_rows(results, results)]
    with headless_chromium() as browser:
        browser.open(results / "index.html")
        assert browser.evaluate(SHOWN_PATHS) == paths
        type_text(browser, "#f-q", SWEEP)
        assert browser.evaluate(SHOWN_PATHS) == [SWEEP, f"{SWEEP}/0", f"{SWEEP}/1"]
        assert browser.evaluate(SHOWN_COUNT) == f"3 of {len(paths)} shown"
        type_text(browser, "#f-q", "TRAP-task")  # in the hostile run's task id only, typed in other letter case
        assert browser.evaluate(SHOWN_PATHS) == ["runs/hostile"]
        type_text(browser, "#f-q", "no such text")
        assert browser.evaluate(SHOWN_PATHS) == []
        assert browser.evaluate("document.getElementById('none-shown').hidden") is False
        type_text(browser, "#f-q", MUG[:20])  # a task id: every run that played it, and the sweep
        assert browser.evaluate(SHOWN_PATHS) == ["runs/plain", SWEEP, f"{SWEEP}/0", f"{SWEEP}/1"]
        browser.evaluate(_choose("f-status", "running"))
        assert browser.evaluate(SHOWN_PATHS) == [f"{SWEEP}/1"]
        browser.evaluate(_choose("f-status", "all"))
        browser.evaluate(_choose("f-kind", "sweep"))
        assert browser.evaluate(SHOWN_PATHS) == [SWEEP]
        assert browser.evaluate("typeof window.__pwned") == "undefined"
        assert all(url.startswith("file:") for url in browser.requests), browser.requests


def test_a_click_on_a_heading_sorts_and_a_second_click_reverses(results: Path) -> None:
    rows = index_rows(results, results)
    counted = sorted((row for row in rows if row.trials_done is not None), key=lambda row: row.trials_done or 0)
    unknown = [row.path for row in rows if row.trials_done is None]  # the audit: last, either way
    with headless_chromium() as browser:
        browser.open(results / "index.html")
        click(browser, "#index th:nth-child(8) button")
        ascending = browser.evaluate(SHOWN_PATHS)
        assert ascending == [row.path for row in counted] + unknown
        assert browser.evaluate("document.querySelector('#index th:nth-child(8)').getAttribute('aria-sort')") == (
            "ascending"
        )
        click(browser, "#index th:nth-child(8) button")
        # Ties keep the order they had, as a stable sort of the ascending rows keeps it.
        descending = sorted(counted, key=lambda row: -(row.trials_done or 0))
        assert browser.evaluate(SHOWN_PATHS) == [row.path for row in descending] + unknown
        click(browser, "#index th:nth-child(2) button")
        assert browser.evaluate(SHOWN_PATHS) == [row.path for row in rows]  # by path, as the page came
        click(browser, "#index th:nth-child(2) button")
        assert browser.evaluate(SHOWN_PATHS) == [row.path for row in rows][::-1]
