"""A run's output file is replaced whole: a symlink or a FIFO at its path is replaced, never followed or opened."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.records.whole_file import replacing, write_whole

GRACE_S = 10


@contextmanager
def fifo_released(fifo: Path) -> Iterator[None]:
    """Fails the test if the block opens `fifo` for writing: after GRACE_S a reader opens it, so a writer blocked
    there (the old behaviour) is set free and the test fails instead of hanging."""
    readers: list[int] = []
    timer = threading.Timer(GRACE_S, lambda: readers.append(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        for descriptor in readers:
            os.close(descriptor)
    assert not readers, f"the write waited {GRACE_S} s for a reader of the FIFO {fifo}"


def test_a_symlink_to_a_file_outside_is_replaced_and_the_file_left_alone(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    run = tmp_path / "run"
    run.mkdir()
    (run / "report.md").symlink_to(outside)
    write_whole(run / "report.md", "new")
    assert outside.read_text() == "keep"
    assert not (run / "report.md").is_symlink() and (run / "report.md").read_text() == "new"


def test_a_dangling_symlink_creates_nothing_where_it_points(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "made.txt"
    target.parent.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.json").symlink_to(target)
    write_whole(run / "metrics.json", b"{}")
    assert not target.exists()
    assert (run / "metrics.json").read_bytes() == b"{}"


def test_a_fifo_is_replaced_without_waiting_for_a_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "summary.md"
    os.mkfifo(fifo)
    with fifo_released(fifo):
        write_whole(fifo, "done")
    assert fifo.is_file() and fifo.read_text() == "done"


def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_temporary_one(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    path.write_text("old")
    with pytest.raises(RuntimeError), replacing(path) as handle:
        handle.write(b"half")
        raise RuntimeError("drawing failed")
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
    assert path.read_text() == "old"
