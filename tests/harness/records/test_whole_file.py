"""A run's output file is replaced whole: a symlink or a FIFO at its path is replaced, never followed or opened; the
temporary file of a writer killed before its rename is removed at the next write, a live writer's never."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.records.whole_file import STALE_AFTER_S, remove_stale_temporaries, replacing, temporary_of, write_whole
from tests.runner import ROOT

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


KILLED_WRITER = """
import sys, time
from harness.records.whole_file import replacing
with replacing(sys.argv[1]) as handle:
    handle.write(b"half of a report")
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def aged(path: Path) -> Path:
    """`path` as it looks once STALE_AFTER_S has passed since its last write."""
    old = path.stat().st_mtime - 10 * STALE_AFTER_S
    os.utime(path, (old, old))
    return path


def test_a_writer_killed_before_its_rename_leaves_no_temporary_after_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("the old report")
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(target)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None and writer.stdout.readline() == "writing\n"
    writer.kill()  # kill -9 between the write and the rename
    writer.wait()
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".report.html.")]
    assert temporary_of(left.name) == "report.html" and target.read_text() == "the old report"
    write_whole(target, "the new report")
    assert left.exists(), "a temporary written this very moment may be a live writer's, just created"
    aged(left)
    write_whole(target, "the new report")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    assert target.read_text() == "the new report"


def test_a_live_writers_temporary_is_never_removed(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    with replacing(target) as handle:
        handle.write(b"still writing")
        (temporary,) = [aged(p) for p in tmp_path.iterdir() if temporary_of(p.name) == "report.md"]
        assert remove_stale_temporaries(tmp_path) == []
        write_whole(target, "another writer's report")
        assert temporary.exists()
    assert target.read_text() == "still writing" and sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]
