"""benchmarks/report_html.py on its smoke sizes, in the real browser: the plumbing, not the figures."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import report_html
from tests.browser import headless_chromium


def test_the_smoke_run_measures_opening_filtering_and_size(tmp_path: Path) -> None:
    headless_chromium().close()  # skips (or fails in CI) without chromium
    out = tmp_path / "report_html.json"
    result = report_html.main(["--smoke", "--out", str(out)])
    assert json.loads(out.read_text()) == result
    figures = result["figures"]
    assert (figures["records"], figures["groups"]) == (3 * 5 * 2, 3 * 5)
    assert set(figures["filters"]) == set(report_html.FILTERS)
    assert figures["filters"]["everything again"]["shown"] == 15
    assert figures["filters"]["one condition"]["shown"] == 3
    assert figures["first_trajectory"]["steps"] > 0 and figures["network_requests"] == []
    assert [check["measure"] for check in result["checks"]][0].startswith("page opens")
