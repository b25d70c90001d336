"""Twenty SIGKILLs at random moments of a real replayed run, each followed by the same command on the same run
directory: the records, memories and reflections come out as an uninterrupted run's, each trial exactly once.

The suite's slowest test (about a minute: 21 real processes): the one check that a run killed at any moment, in
start-up, mid-trial, mid-append or mid-report, resumes; fewer kills would leave moments unchecked."""

from __future__ import annotations

import hashlib
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.records import TRIALS_FILE, TrialRecord, parse_trials, read_manifest, records_without_timing
from harness.metrics.run import METRICS_FILE, RunMetrics
from tests.killing import Phase, WatchedRun
from tests.runner import ROOT

CACHE = ROOT / "tests" / "fixtures" / "five_conditions" / "llm_cache.jsonl"
# Part of the committed five-condition recording, small enough for 21 invocations: the two quicker games,
# 3 trials, self-diagnosis and the template (whose malformed reflections leave gaps in the memory); 12 records.
RUN = (
    "experiment=five_conditions_demo",
    "strategy=[self_diagnosis,grounded_template]",
    "env.games=[pick_and_place_simple-SoapBottle-None-Toilet-424,pick_and_place_simple-Vase-None-Safe-219]",
    "llm.cache.mode=replay",
    f"llm.cache.path={CACHE}",
    "progress=false",
    "report.plots=false",  # the report phase is still killed; its PNGs are no part of what a resume must redo
)
KILLS = 20
# How many of the twenty kills are aimed at each phase besides the trials (where each landed is measured).
PLAN = {"startup": 3, "append": 3, "report": 2}
MAX_ATTEMPTS = 3 * KILLS
OUTPUTS = (METRICS_FILE, "summary.md", "report.md")

pytestmark = pytest.mark.slow

Key = tuple[str, str, int]


def command(run_dir: Path) -> list[str]:
    return [sys.executable, str(ROOT / "run.py"), *RUN, f"hydra.run.dir={run_dir}"]


@dataclass(frozen=True)
class Timeline:
    """When the uninterrupted run did what, in seconds after its spawn."""

    manifest: float
    records: dict[int, float]
    exited: float

    @property
    def last_record(self) -> float:
        return self.records[max(self.records)]

    @property
    def report(self) -> float:
        """Seconds from the last record to the exit: metrics, summary, final manifest, report."""
        return self.exited - self.last_record

    def resumed_at(self, present: int) -> float:
        """The moment a process that finds `present` records starts playing: the end of the last of them."""
        return self.records[present] if present else self.manifest


@dataclass
class Target:
    """One aimed kill. startup: `at` s after spawn. trials: the moment `at` of the uninterrupted timeline.
    append: as soon as the process records a trial. report: `at` s after the process is past its last trial."""

    kind: str
    at: float = 0.0


def kill_plan(rng: random.Random, timeline: Timeline) -> list[Target]:
    """Twenty targets: moments of the trial phase, one at random in each of as many equal slices of it, in
    increasing order (so they cover it and the run moves on), with startup and append kills at random places
    among them and report kills last."""
    trials = KILLS - sum(PLAN.values())
    width = (timeline.last_record - timeline.manifest) / trials
    plan = [Target("trials", timeline.manifest + (part + rng.random()) * width) for part in range(trials)]
    for _ in range(PLAN["append"]):
        plan.insert(rng.randrange(len(plan) + 1), Target("append"))
    for _ in range(PLAN["startup"]):
        plan.insert(rng.randrange(len(plan) + 1), Target("startup", rng.uniform(0, timeline.manifest)))
    return plan + [Target("report", rng.uniform(0, timeline.report)) for _ in range(PLAN["report"])]


def aim(run: WatchedRun, target: Target, timeline: Timeline, present: int, rng: random.Random) -> bool:
    """Wait for the target's moment in this process; False if it exited first."""
    total = len(timeline.records)
    if target.kind == "startup":
        return run.wait_until(lambda r: r.elapsed() >= target.at)
    if target.kind == "append":
        return run.wait_until(lambda r: bool(r.appends))
    if target.kind == "report":

        def reached(r: WatchedRun) -> bool:
            done = r.recorded_all_at(total)
            return done is not None and r.elapsed() >= done + target.at

        return run.wait_until(reached)
    # Trials: the process resumes where the uninterrupted run was after `present` records, once its manifest is out.
    offset = target.at - timeline.resumed_at(present)
    if offset <= 0:
        # Overtaken by an earlier kill's progress: somewhere in the next trial instead.
        following = timeline.records.get(present + 1, timeline.last_record)
        offset = rng.uniform(0, max(following - timeline.resumed_at(present), 0.1))
    return run.wait_until(lambda r: r.manifest_at is not None and r.elapsed() >= r.manifest_at + offset)


@dataclass(frozen=True)
class Kill:
    """One attempt: the phase its kill hit (None if the process exited first) and what it left behind."""

    target: str
    phase: Phase | None
    seconds: float
    records_before: int
    records_after: int
    torn_tail: int
    torn_by_hand: int
    status: str | None
    outputs: tuple[str, ...]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def by_key(records: list[TrialRecord]) -> dict[Key, TrialRecord]:
    return {r.key: r for r in records}


def differing_fields(a: TrialRecord, b: TrialRecord) -> list[str]:
    left, right = a.model_dump(exclude={"timing"}), b.model_dump(exclude={"timing"})
    return [name for name in left if left[name] != right[name]]


def conditions_section(summary: str) -> str:
    return summary.split("## Conditions", 1)[1]


def assert_outputs_complete(run_dir: Path) -> None:
    """What a manifest saying "finished" promises: metrics and summary written in full (the report, which
    shows that status, comes after it and can be redone by `reflexion-report`)."""
    RunMetrics.model_validate_json((run_dir / METRICS_FILE).read_text())
    summary = (run_dir / "summary.md").read_text()
    assert summary.startswith("# Run summary") and "## Reflection repetition per task" in summary


class KilledRun:
    """The run directory under test, invoked again and again with the same command and killed on target."""

    def __init__(self, run_dir: Path, expected: dict[Key, TrialRecord], env: dict[str, str], logs: Path) -> None:
        self.run_dir, self.expected, self.env, self.logs = run_dir, expected, env, logs
        self.trials = run_dir / TRIALS_FILE
        self.kills: list[Kill] = []
        self.started_at = None

    def landed(self) -> int:
        return sum(k.phase is not None for k in self.kills)

    def attempt(self, target: Target, timeline: Timeline, rng: random.Random) -> Kill:
        """Start the command, kill it at the target's moment, check what it left; a miss halves the aim."""
        before = self.trials.read_bytes() if self.trials.exists() else b""
        kept, tail_before = parse_trials(before, self.trials)
        kept_bytes = before[: len(before) - len(tail_before)]
        log = self.logs / f"attempt{len(self.kills):02d}.txt"
        with log.open("wb") as stderr:
            run = WatchedRun.start(command(self.run_dir), self.run_dir, self.env, stderr)
            ready = aim(run, target, timeline, len(kept), rng)
            seconds = run.elapsed()
            landed = ready and run.kill()
            run.process.wait()
        if not landed:
            assert run.process.returncode == 0, log.read_text()
            # The run outran the moment (it finished): aim earlier next time.
            target.at /= 2
        after = self.trials.read_bytes()
        records, tail = parse_trials(after, self.trials)
        assert after.startswith(kept_bytes), "a resume rewrote records it had found"
        if tail_before and run.manifest_at is not None:
            # Past startup, so past TrialLog: the torn line was found, cut with a warning, and never built upon.
            assert "torn last line" in log.read_text()
            assert not after[len(kept_bytes) :].startswith(tail_before)
        wrong = [r.key for r in records if differing_fields(r, self.expected[r.key])]
        assert wrong == [], f"recorded unlike the uninterrupted run: {wrong}"
        manifest = read_manifest(self.run_dir)
        if manifest is not None:
            self.started_at = self.started_at or manifest.started_at
            assert manifest.started_at == self.started_at, "a resume forgot when the run started"
            if manifest.status == "finished":
                assert_outputs_complete(self.run_dir)
        phase = run.phase(seconds, len(self.expected)) if landed else None
        torn = b""
        if phase == "append" and tail == b"":
            # A SIGKILL inside a multi-page write() can leave part of a line (the kernel stops between pages);
            # polling cannot aim inside one, so leave such a tail by hand for the next invocation to cut.
            torn = after.splitlines()[-1][: len(after.splitlines()[-1]) // 2]
            with self.trials.open("ab") as handle:
                handle.write(torn)
        return Kill(
            target=target.kind,
            phase=phase,
            seconds=round(seconds, 3),
            records_before=len(kept),
            records_after=len(records),
            torn_tail=len(tail),
            torn_by_hand=len(torn),
            status=manifest.status if manifest else None,
            outputs=tuple(name for name in OUTPUTS if (self.run_dir / name).is_file()),
        )

    def kill_until_landed(self, targets: list[Target], timeline: Timeline, rng: random.Random) -> None:
        while self.landed() < KILLS:
            assert len(self.kills) < MAX_ATTEMPTS, f"only {self.landed()} of {len(self.kills)} kills landed"
            present = len(parse_trials(self.trials.read_bytes(), self.trials)[0]) if self.trials.exists() else 0
            if present == len(self.expected) and targets[0].kind in ("trials", "append"):
                # Nothing left to play: the only moments left are the startup and report of a finished run.
                targets[0] = Target("report", rng.uniform(0, timeline.report))
            kill = self.attempt(targets[0], timeline, rng)
            self.kills.append(kill)
            if kill.phase is not None:
                targets.pop(0)


def test_twenty_sigkills_then_resume_leave_the_uninterrupted_records(tmp_path: Path) -> None:
    no_models = tmp_path / "no-models"
    no_models.mkdir()
    env = {**os.environ, "REFLEXION_HARNESS_MODEL_DIR": str(no_models)}
    logs = tmp_path / "stderr"
    logs.mkdir()
    cache_digest = sha256(CACHE)
    clock = time.monotonic()

    # The uninterrupted run, watched to learn when its startup, trials and report happen.
    reference_dir = tmp_path / "uninterrupted"
    with (logs / "uninterrupted.txt").open("wb") as stderr:
        reference = WatchedRun.start(command(reference_dir), reference_dir, env, stderr)
        assert reference.finish() == 0, (logs / "uninterrupted.txt").read_text()
    assert reference.manifest_at is not None
    timeline = Timeline(reference.manifest_at, reference.lines_at, reference.elapsed())
    expected = by_key(parse_trials((reference_dir / TRIALS_FILE).read_bytes(), reference_dir)[0])
    assert sorted(timeline.records) == list(range(1, len(expected) + 1)), "one record at a time"
    assert any(len(r.memory) >= 2 for r in expected.values()), "too little memory to compare"

    rng = random.Random(7)
    killed = KilledRun(tmp_path / "killed", expected, env, logs)
    killed.kill_until_landed(kill_plan(rng, timeline), timeline, rng)
    # The last invocation runs to the end.
    with (logs / "final.txt").open("wb") as stderr:
        final = WatchedRun.start(command(killed.run_dir), killed.run_dir, env, stderr)
        assert final.finish() == 0, (logs / "final.txt").read_text()

    phases = Counter(k.phase for k in killed.kills if k.phase is not None)
    print(
        f"\nuninterrupted run {timeline.exited:.1f} s ({len(expected)} records); {len(killed.kills)} attempts, "
        f"landed {dict(phases)}; last invocation {final.elapsed():.1f} s; all {time.monotonic() - clock:.0f} s"
    )
    for number, kill in enumerate(killed.kills):
        print(f"  {number:2d} {kill}")
    assert killed.landed() == KILLS
    assert phases["startup"] and phases["trials"] and phases["append"] and phases["report"], phases

    data = killed.trials.read_bytes()
    records, tail = parse_trials(data, killed.trials)
    assert tail == b"", "a torn last line was left at the end"
    counts = Counter(r.key for r in records)
    assert [key for key, n in counts.items() if n > 1] == [], "duplicated trials"
    assert sorted(set(expected) - set(counts)) == [], "lost trials"
    assert sorted(set(counts) - set(expected)) == [], "extra trials"
    resumed = by_key(records)
    for key, want in expected.items():
        got = resumed[key]
        assert got.memory == want.memory, f"{key}: the actor was fed another memory"
        assert (got.reflection, got.trajectory, got.success) == (want.reflection, want.trajectory, want.success), key
    assert records_without_timing(records) == records_without_timing(list(expected.values()))

    manifest = read_manifest(killed.run_dir)
    assert manifest is not None and manifest.status == "finished" and manifest.ended_at is not None
    assert manifest.started_at == killed.started_at
    assert_outputs_complete(killed.run_dir)
    assert (killed.run_dir / METRICS_FILE).read_text() == (reference_dir / METRICS_FILE).read_text()
    summary, reference_summary = ((d / "summary.md").read_text() for d in (killed.run_dir, reference_dir))
    assert conditions_section(summary) == conditions_section(reference_summary)
    assert (killed.run_dir / "report.md").is_file()
    # Replay neither wrote to the cache nor assembled or loaded a model.
    assert sha256(CACHE) == cache_digest
    assert list(no_models.iterdir()) == []
