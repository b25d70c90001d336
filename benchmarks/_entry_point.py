"""`python run.py` in a subprocess, as a user runs it, timed in three parts and with its peak memory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness.records import TRIALS_FILE, TrialRecord, read_manifest, read_trials

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class TimedRun:
    """One finished run of the entry point."""

    run_dir: Path
    wall_s: float
    """Process start to exit."""
    startup_s: float
    """Process start to the manifest's start: imports, Hydra, validation, planning."""
    loop_s: float
    """The manifest's start to the last record's write (trials.jsonl's mtime): every trial, nothing after."""
    max_rss_mb: float
    """Peak resident memory of the process (ru_maxrss of the waited-for child)."""
    peak_tree_rss_mb: float
    """Peak of the resident memory summed over the process and its children (ALFWorld engine workers), sampled."""
    cpu_s: float
    """User and system CPU seconds of the process and the children it waited for (its engine workers)."""
    records: list[TrialRecord]
    loop_cpu_s: float | None = None
    """CPU seconds of the run's own process during the loop (all its threads, its children left out), sampled."""
    loop_children_cpu_s: float | None = None
    """CPU seconds of its children (the engine workers) during the loop, sampled."""

    @property
    def finish_s(self) -> float:
        """After the last record: metrics, summary, report and plots, interpreter exit."""
        return self.wall_s - self.startup_s - self.loop_s


def run_entry_point(
    overrides: list[str],
    run_dir: Path,
    env: dict[str, str] | None = None,
    root: Path = ROOT,
    profile: Path | None = None,
) -> TimedRun:
    """Run `python run.py progress=false <overrides> hydra.run.dir=<run_dir>` of the checkout at `root`; raises
    RuntimeError if it fails. `profile`: where py-spy writes the loop's samples (see LoopProfiler)."""
    command = [sys.executable, str(root / "run.py"), "progress=false", *overrides, f"hydra.run.dir={run_dir}"]
    launched = datetime.now(timezone.utc)
    started = time.perf_counter()
    # The checkout's own harness first: the environment may have another checkout installed.
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    process = subprocess.Popen(
        command,
        cwd=root,
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    sampler = TreeSampler(process.pid)
    sampler.start()
    profiler = LoopProfiler(process.pid, run_dir, profile) if profile is not None else None
    stderr = process.stderr.read()  # drained as it comes, so a chatty run cannot block on a full pipe
    # wait4, not wait: it reports this child's own peak memory, not the maximum over every child so far.
    _, status, usage = os.wait4(process.pid, 0)
    sampler.stop()
    if profiler is not None:
        profiler.finish()
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else "no output"
        raise RuntimeError(f"`{' '.join(command[1:])}` exited with {process.returncode}: {last}")
    manifest = read_manifest(run_dir)
    assert manifest is not None
    # Not the manifest's ended_at: that comes after the metrics and summary are written.
    last_record = datetime.fromtimestamp((run_dir / TRIALS_FILE).stat().st_mtime, timezone.utc)
    loop = (manifest.started_at.timestamp(), last_record.timestamp())
    return TimedRun(
        run_dir=run_dir,
        wall_s=wall,
        startup_s=(manifest.started_at - launched).total_seconds(),
        loop_s=(last_record - manifest.started_at).total_seconds(),
        max_rss_mb=usage.ru_maxrss / 1024,  # kilobytes on Linux
        peak_tree_rss_mb=sampler.peak_kb / 1024,
        cpu_s=usage.ru_utime + usage.ru_stime,
        records=read_trials(run_dir),
        loop_cpu_s=sampler.cpu_between(*loop, children=False),
        loop_children_cpu_s=sampler.cpu_between(*loop, children=True),
    )


SAMPLE_S = 0.1
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _stat_fields(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (field 3 on), None if the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _cpu_s(fields: list[str]) -> float:
    """User plus system CPU seconds of a process (utime and stime, fields 14 and 15), its children left out."""
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S


def _children(pids: set[int]) -> dict[int, float]:
    """Processes whose parent is in `pids`, with the CPU seconds each has used."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(entry.name)
        try:
            if fields is not None and int(fields[1]) in pids:
                found[int(entry.name)] = _cpu_s(fields)
        except (ValueError, IndexError):
            continue
    return found


@dataclass(frozen=True)
class CpuSample:
    at: float
    """time.time() of the sample."""
    own_s: float
    """The process's CPU seconds so far."""
    children_s: float
    """The CPU seconds so far of its children alive then."""


class TreeSampler:
    """Samples a process and its children every SAMPLE_S seconds: the peak of their summed resident memory, and the
    CPU each part has used, so the CPU of a span (the trial loop) can be told apart from start-up and exit."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kb = 0
        self.samples: list[CpuSample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def cpu_between(self, start: float, end: float, children: bool) -> float | None:
        """CPU seconds used between two time.time() instants by the process itself or by its children: the CPU
        between the first and the last sample inside the span, at that rate over the whole span. Never across the
        span's ends, where a busy start-up or report would be counted into the span on a loaded machine, whose
        samples come late. None with fewer than two samples inside."""
        inside = [sample for sample in self.samples if start <= sample.at <= end]
        if len(inside) < 2:
            return None
        first, last = inside[0], inside[-1]
        used = (last.children_s - first.children_s) if children else (last.own_s - first.own_s)
        return round(used * (end - start) / (last.at - first.at), 3)

    def _sample(self) -> None:
        while not self._stop.is_set():
            own = _stat_fields(self.pid)
            children = _children({self.pid})
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(pid) for pid in {self.pid, *children}))
            if own is not None:
                self.samples.append(CpuSample(time.time(), _cpu_s(own), sum(children.values())))
            self._stop.wait(SAMPLE_S)


PROFILE_RATE = 100
"""py-spy's samples per second."""


class LoopProfiler:
    """py-spy attached to a run once its loop starts (its manifest is written), until the process ends: the samples
    of whichever thread holds the GIL (`--gil`), so they show where the run's own Python spends its CPU, not where
    its threads wait. Written as collapsed stacks (`--format raw`: one `frame;frame;... count` a line, what
    flamegraph.pl and speedscope read). `--nonblocking`: the run is never paused to be sampled."""

    def __init__(self, pid: int, run_dir: Path, out: Path) -> None:
        if shutil.which("py-spy") is None:
            raise RuntimeError("--profile needs py-spy on PATH (pip install py-spy); it was not found")
        self.pid, self.run_dir, self.out = pid, run_dir, out
        self._spy: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._attach, daemon=True)
        self._thread.start()

    def _attach(self) -> None:
        while not (self.run_dir / "manifest.json").exists():
            if _stat_fields(self.pid) is None:
                return
            time.sleep(0.05)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        command = ["py-spy", "record", "--pid", str(self.pid), "--gil", "--nonblocking", "--rate", str(PROFILE_RATE)]
        self._spy = subprocess.Popen(
            [*command, "--format", "raw", "--output", str(self.out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def finish(self) -> None:
        """Wait for py-spy to write its file (it ends with the run)."""
        self._thread.join()
        if self._spy is not None:
            self._spy.wait()


LOOP_FRAMES = ("run_loop (harness/run/loop.py", "play_trial (harness/run/loop.py")
"""A sample in the trial loop has one of these on its stack (the main thread's loop or a trial's thread)."""
OWN_CODE = ("harness/", "envs/")


def loop_costs(collapsed: Path, count: int = 15) -> tuple[int, list[tuple[str, float]]]:
    """The trial loop's samples in a collapsed-stacks file, and where they went: each sample is charged to the
    innermost frame of the project's own code (harness/, envs/) with the first frame it called outside it, so
    "MeteredLLM._model_call > BaseModel.__init__" is what that harness line costs in pydantic. Shares of the loop's
    samples, largest first."""
    owners: dict[str, int] = {}
    total = 0
    for line in collapsed.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        frames = stack.split(";")
        if not samples.isdigit() or not any(frame.startswith(LOOP_FRAMES) for frame in frames):
            continue
        total += int(samples)
        own = max(i for i, frame in enumerate(frames) if any(f"({part}" in frame for part in OWN_CODE))
        owner = _function(frames[own]) + (f" > {_function(frames[own + 1])}" if own + 1 < len(frames) else "")
        owners[owner] = owners.get(owner, 0) + int(samples)
    ranked = sorted(owners.items(), key=lambda item: -item[1])[:count]
    return total, [(owner, round(samples / total, 3)) for owner, samples in ranked]


def _function(frame: str) -> str:
    """"name (path/file.py:12)" as "name (file.py)"."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0].rsplit('/', 1)[-1]})" if where else name
