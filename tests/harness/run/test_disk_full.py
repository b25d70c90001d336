"""A disk that fills up during the trials: the run ends with one sentence, trials.jsonl holds whole records only,
no half-written manifest is left beside the old one, and the same command resumes once there is room; a full disk
under the LLM cache is named with the cache file and that disk. One that fills up while the report is written leaves a
failed run, never a finished one without its report."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from harness.records import read_manifest, read_trials, records_without_timing
from tests.harness.run.test_replay import RECORDED_RUN
from tests.runner import run_cli
from tests.small_run import SMALL_RUN
from tests.varying_server import VaryingServer

# Room for the manifest (and its replacement being written), run.log and one or two of the four records (11 to
# 17 KB each with their model calls, in 4 KB pages) of the default replay.
ROOM = "size=48k"


def test_a_full_disk_keeps_every_whole_record_and_the_run_resumes(
    mount: Callable[..., Path], tmp_path: Path
) -> None:
    full = mount("full", ROOM) / "run"
    result = run_cli(*RECORDED_RUN, f"hydra.run.dir={full}")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "Logging error" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: could not record trial") and "No space left on device" in last, last
    assert last.endswith("make room and run the same command to resume.")
    data = (full / "trials.jsonl").read_bytes()
    assert data.endswith(b"\n"), "a torn record was left"
    kept = read_trials(full)
    assert 1 <= len(kept) < 4
    assert not list(full.glob("*.tmp"))
    manifest = read_manifest(full)
    # "failed" when the disk still took the manifest; else the old one stands ("running"), which resumes the same.
    assert manifest is not None and manifest.status in ("failed", "running")

    roomy = tmp_path / "moved"
    shutil.copytree(full, roomy)
    resumed = run_cli(*RECORDED_RUN, f"hydra.run.dir={roomy}")
    assert resumed.returncode == 0, resumed.stderr
    records = read_trials(roomy)
    assert len(records) == 4
    final = records_without_timing(records)
    assert all(record in final for record in records_without_timing(kept)), "a record kept on the full disk changed"


def test_a_full_disk_under_the_cache_is_named_with_the_cache_file_and_its_disk(
    mount: Callable[..., Path], tmp_path: Path
) -> None:
    """'The cache's disk filling names neither the cache file nor its disk': the run said only "writing the run
    failed (No space left on device)", and its own disk had room."""
    disk = mount("cache_disk", "size=8k")
    (disk / "filler").write_bytes(b"x" * 8192)  # as much as the disk takes
    cache = disk / "llm_cache.jsonl"
    with VaryingServer("Finish[answer {n}]", delay_s=0.0) as server:
        result = run_cli(
            "env=hotpotqa", "env.first_n=1", "experiment.trials=1", "model=openai-compatible",
            f"model.base_url={server.base_url}", f"llm.cache.path={cache}", f"hydra.run.dir={tmp_path / 'run'}",
            env={"OPENAI_API_KEY": "none"},
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert f"could not write the LLM cache {cache} (No space left on device)" in last, last
    assert f"on the filesystem mounted at {disk} (0 bytes free)" in last and f"make room on {disk}" in last, last
    assert not cache.exists() or cache.read_bytes() == b""


def test_a_full_disk_while_writing_report_html_leaves_a_failed_run_not_a_finished_one(
    mount: Callable[..., Path], small_run: Path
) -> None:
    disk = mount("disk", "size=4m")
    run = Path(shutil.copytree(small_run, disk / "run"))
    report = (run / "report.html").stat().st_size
    assert report > 2 * max(p.stat().st_size for p in run.iterdir() if p.name != "report.html")
    # Room for every other output written again (each beside its old copy until the rename), not for report.html.
    room = report // 2
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    (disk / "filler").write_bytes(b"\0" * (free - room))
    # The plots too, as the run drew them: a report without them would free their room first.
    result = run_cli(*SMALL_RUN, "report.plots=true", f"hydra.run.dir={run}")
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: writing the run failed") and "No space left on device" in last, last
    assert "report.html" in last
    manifest = read_manifest(run)
    assert manifest is not None and manifest.status == "failed"
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]
    (disk / "filler").unlink()
    resumed = run_cli(*SMALL_RUN, "report.plots=true", f"hydra.run.dir={run}")
    assert resumed.returncode == 0, resumed.stderr
    finished = read_manifest(run)
    assert finished is not None and finished.status == "finished"
