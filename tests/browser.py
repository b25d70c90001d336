"""Headless Chromium for the report page's tests: skipped on a machine without it, a failure in CI (CI is set),
where .ci/run installs it, so the browser tests can never pass there by not running."""

from __future__ import annotations

import json
import os

import pytest

from benchmarks.chromium import Chromium, chromium_path


def headless_chromium(width: int = 1280, height: int = 900) -> Chromium:
    """A started browser (use as a context manager)."""
    if chromium_path() is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but chromium is not installed: .ci/run installs it (apt-get install -y chromium).")
        pytest.skip("chromium is not installed (apt-get install -y chromium); CI installs it and runs this test.")
    return Chromium(width=width, height=height)


# The page's groups as the DOM holds them: everything a test compares with the records and metrics.json.
GROUPS_JS = """Array.from(document.querySelectorAll("article.g"), (g) => ({
  task: g.dataset.task,
  condition: g.dataset.cond,
  run: g.dataset.run || null,
  reflections: Array.from(g.querySelectorAll("li.t .rf"), (r) => r.textContent),
  similarities: Array.from(g.querySelectorAll("li.t a.sim"), (a) => a.textContent),
  repeats: g.querySelectorAll("li.t.rep").length,
  trials: g.querySelectorAll("li.t").length,
  strict: g.querySelectorAll(".men.s1").length,
  normalized: g.querySelectorAll(".men.n1").length,
  solved: g.dataset.s === "1",
  frozen: g.dataset.f === "1",
}))"""


def type_text(browser: Chromium, selector: str, text: str) -> None:
    """`text` typed into the element `selector` finds, as a keyboard would (focus, then the input events), after
    clearing what it held."""
    found = f"document.querySelector({json.dumps(selector)})"
    browser.evaluate(f"(() => {{ const e = {found}; e.focus(); e.select(); }})()")
    browser.call("Input.insertText", session=True, text=text)


def click(browser: Chromium, selector: str) -> None:
    """A left click with the mouse at the middle of the element `selector` finds (scrolled into view first)."""
    box = browser.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}});"
        " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left",
                     clickCount=1)
