"""Headless Chromium for the report page's tests: skipped on a machine without it, a failure in CI (CI is set),
where .ci/run installs it, so the browser tests can never pass there by not running."""

from __future__ import annotations

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
