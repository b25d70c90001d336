"""One reading of each trials.jsonl per invocation: the run's own (counted for the resume checks, then built on) and
the selection run's (`env.frozen_in`: its frozen tasks, the manifest's record of it, the answers the two share).

Every read of a trials.jsonl's bytes is counted where it happens (the durable log's catch-up, which reads what
follows its offset, and `Path.read_bytes`), during an in-process resumption of a copy of the held-out run.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.records import TRIALS_FILE, read_manifest
from harness.records.log import DurableLog
from tests.finished_runs import HELD_OUT
from tests.in_process import run_in_process


def count_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[Path]:
    """Readings of any trials.jsonl from now on, by its run directory (a read that finds nothing new is none)."""
    reads: Counter[Path] = Counter()
    catch_up, read_bytes = DurableLog._catch_up, Path.read_bytes

    def counted_catch_up(log: DurableLog, descriptor: int):  # type: ignore[no-untyped-def]
        if log.path.name == TRIALS_FILE and os.fstat(descriptor).st_size > log._offset:
            reads[log.path.parent.resolve()] += 1
        return catch_up(log, descriptor)

    def counted_read_bytes(path: Path) -> bytes:
        if path.name == TRIALS_FILE:
            reads[path.parent.resolve()] += 1
        return read_bytes(path)

    monkeypatch.setattr(DurableLog, "_catch_up", counted_catch_up)
    monkeypatch.setattr(Path, "read_bytes", counted_read_bytes)
    return reads


def test_a_resumed_held_out_run_reads_its_trials_and_its_selection_run_once(
    held_out_runs: tuple[Path, Path], copy_run: Callable[[Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    select, held_out = held_out_runs
    run_dir = copy_run(held_out)
    reads = count_reads(monkeypatch)
    result = run_in_process("progress=false", *HELD_OUT, f"env.frozen_in={select}", f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert reads == {run_dir.resolve(): 1, select.resolve(): 1}
    manifest = read_manifest(run_dir)
    assert manifest is not None and manifest.resumed_from == manifest.records
    assert manifest.selection is not None and manifest.selection.compared is not None
