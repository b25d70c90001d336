"""The throughput benchmark against a latency server that lacks the run's answers: one sentence, not a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import throughput


@pytest.mark.slow
def test_a_cache_without_the_runs_requests_stops_the_benchmark_with_the_reason(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(RuntimeError, match=r"empty\.jsonl has no answer for a request of this run; re-record"):
        throughput.main(["--smoke", "--cache", str(empty), "--out", str(tmp_path / "t.json")])
    assert not (tmp_path / "t.json").exists()
