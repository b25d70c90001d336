"""report.html at the study's size, measured in headless Chromium: how long it takes to write, how big it is, how
fast it opens and how fast its filters answer.

    python -m benchmarks.report_html [--games 134] [--trials 10] [--repeats 3] [--smoke] [--out FILE]

A synthetic run of `--games` x 5 conditions x `--trials` (benchmarks/synthetic_study.py) is written, then
`harness.report.write_report` draws its report.md and report.html. Chromium (benchmarks/chromium.py) opens the page
from disk `--repeats` times in a fresh page: the wall time from navigation to the load event, the page's own
navigation timings (DOMContentLoaded, load) and first contentful paint. Each filter is then applied through the
page's `harnessReport.apply` (what the form calls) and timed in the page, to the end of the forced layout and to
the next painted frame; and the first trajectory unfolded (which parses the trajectory table).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks._output import add_output_arguments, at_most, finish
from benchmarks.chromium import Chromium
from benchmarks.synthetic_study import CONDITIONS, GAMES, TRIALS, write_study_run
from harness.report import write_report
from harness.report.html import HTML_FILE

# Targets for a page of the study's size on this kind of machine (2 cores, shared).
OPEN_TARGET_S = 3.0
FILTER_TARGET_MS = 250.0
SIZE_TARGET_MB = 40.0
FILTERS: dict[str, str] = {
    "one condition": "{conditions: ['0']}",
    "unsolved": "{conditions: null, solved: '0'}",
    "frozen": "{conditions: null, frozen: '1'}",
    "with a repeat": "{conditions: null, repeats: true}",
    "task text": "{conditions: null, task: 'cool'}",
    "everything again": "{conditions: null}",
}
_TIMED_FILTER = """(async () => {
  const started = performance.now();
  const shown = window.harnessReport.apply(%s);
  document.body.getBoundingClientRect();
  const laidOut = performance.now();
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return {shown, layout_ms: laidOut - started, painted_ms: performance.now() - started};
})()"""
_TIMINGS = """(async () => {
  // Paint entries arrive once the frame is presented: wait for first-contentful-paint (at most 10 s).
  await new Promise((done) => {
    new PerformanceObserver((list, observer) => {
      if (list.getEntriesByName("first-contentful-paint").length) { observer.disconnect(); done(); }
    }).observe({type: "paint", buffered: true});
    setTimeout(done, 10000);
  });
  const n = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return {dom_content_loaded_ms: n.domContentLoadedEventEnd, load_ms: n.loadEventEnd,
          first_contentful_paint_ms: paint ? paint.startTime : null};
})()"""
_TRAJECTORY = """(() => {
  const details = document.querySelector("details.tj");
  const started = performance.now();
  details.open = true;
  details.dispatchEvent(new Event("toggle"));
  return {ms: performance.now() - started, steps: details.querySelectorAll("ol.steps > li").length};
})()"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report_html", description=__doc__)
    parser.add_argument("--games", type=int, default=GAMES, help="ALFWorld games of the synthetic run")
    parser.add_argument("--trials", type=int, default=TRIALS, help="trials per game and condition")
    parser.add_argument("--repeats", type=int, default=3, help="times the page is opened (the median is reported)")
    add_output_arguments(parser, "report_html")
    return parser


def build(scratch: Path, games: int, trials: int) -> dict[str, Any]:
    """Write the synthetic run and its report; seconds and sizes."""
    run_dir = scratch / "study"
    started = time.perf_counter()
    records = write_study_run(run_dir, games=games, trials=trials)
    generated = time.perf_counter() - started
    started = time.perf_counter()
    write_report([run_dir], run_dir)
    page = run_dir / HTML_FILE
    return {
        "page": page,
        "records": len(records),
        "reflections": sum(r.reflection is not None for r in records),
        "generate_s": round(generated, 2),
        "write_report_s": round(time.perf_counter() - started, 2),
        "page_mb": round(page.stat().st_size / 1e6, 2),
    }


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 1) if known else None


def _rounded(figures: dict[str, Any]) -> dict[str, Any]:
    return {key: round(value, 1) if isinstance(value, float) else value for key, value in figures.items()}


def measure(page: Path, repeats: int) -> dict[str, Any]:
    """Open, filter and unfold in Chromium; medians over `repeats` opens."""
    opens, timings, filters, trajectory, requests = [], [], {}, {}, []
    with Chromium() as browser:
        for _ in range(repeats):
            browser.call("Page.navigate", session=True, url="about:blank")
            browser.wait_event("Page.loadEventFired")
            opens.append(browser.open(page))
            timings.append(browser.evaluate(_TIMINGS))
        for name, state in FILTERS.items():
            filters[name] = browser.evaluate(_TIMED_FILTER % state)
        trajectory = browser.evaluate(_TRAJECTORY)
        groups = browser.evaluate("window.harnessReport.total")
        elements = browser.evaluate("document.getElementsByTagName('*').length")
        requests = [url for url in browser.requests if not url.startswith(("file:", "data:", "about:"))]
    return {
        "open_wall_s": round(statistics.median(opens), 3),
        **{key: _median([t[key] for t in timings]) for key in timings[0]},
        "filters": {name: _rounded(figures) for name, figures in filters.items()},
        "first_trajectory": _rounded(trajectory),
        "groups": groups,
        "elements": elements,
        "network_requests": requests,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = _parser().parse_args(argv)
    games, trials, repeats = (3, 2, 1) if args.smoke else (args.games, args.trials, args.repeats)
    with tempfile.TemporaryDirectory(prefix="report-html-") as scratch:
        built = build(Path(scratch), games, trials)
        measured = measure(built.pop("page"), repeats)
    slowest = max(f["painted_ms"] for f in measured["filters"].values())
    checks = [
        at_most("page opens (navigation to load event, s)", measured["open_wall_s"], OPEN_TARGET_S),
        at_most("slowest filter, to the next painted frame (ms)", slowest, FILTER_TARGET_MS),
        at_most("page size (MB)", built["page_mb"], SIZE_TARGET_MB),
        at_most("network requests other than file: and data:", len(measured["network_requests"]), 0),
    ]
    rows = [(name, f["shown"], f["layout_ms"], f["painted_ms"]) for name, f in measured["filters"].items()]
    settings = {"games": games, "conditions": len(CONDITIONS), "trials": trials, "repeats": repeats}
    return finish(
        "report_html",
        args,
        settings,
        (("filter", "groups shown", "to layout (ms)", "to paint (ms)"), rows),
        {**built, **measured},
        checks,
        notes=(
            f"{built['records']} records, {built['reflections']} reflections, {measured['groups']} groups: "
            f"{built['page_mb']} MB, written in {built['write_report_s']} s; opens in {measured['open_wall_s']} s "
            f"(DOMContentLoaded {measured['dom_content_loaded_ms']} ms, first paint "
            f"{measured['first_contentful_paint_ms']} ms), {measured['elements']} elements.",
        ),
    )


if __name__ == "__main__":
    main()
