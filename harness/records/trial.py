"""Trial records and the run manifest: validated, schema-versioned, appended durably."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.errors import RecordWriteError
from harness.records.attempt import AttemptDetails
from harness.records.calls import ModelCall
from harness.records.details import ReflectionDetails
from harness.records.identity import ReflectionIdentity
from harness.records.log import DurableLog
from harness.records.step import Step
from harness.records.usage import Usage
from harness.records.whole_file import write_whole

# 2: reflection_details and attempt_details added. 3: retries, the gate outcome among reflection_details, and
# usage split by role. 4: the reflection's task identity. 5: the repeat index and every model call.
SCHEMA_VERSION = 5
TRIALS_FILE = "trials.jsonl"
MANIFEST_FILE = "manifest.json"


class Timing(BaseModel):
    """Wall-clock figures; the only part of a record that differs between replays."""

    wall_s: float = Field(0.0, description="Seconds from the trial's start to its record.")
    env_s: float = Field(0.0, description="Seconds spent inside the environment (reset + step).")
    env_cpu_s: float | None = Field(
        None, description="CPU seconds of the environment itself (ALFWorld's engine); None where it is not measured."
    )
    llm_s: float = Field(0.0, description="Seconds spent waiting on the LLM in this process (cache hits are near 0).")
    engine_wait_s: float | None = Field(
        None,
        description="Seconds of env_s the trial's steps queued for an engine worker busy with another episode's step "
        "(env.engine_workers); None where the engine runs in the run's process, and in records written before.",
    )


class TrialRecord(BaseModel):
    """One (task, condition, trial): what the actor saw, did, and wrote down afterwards."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = Field(SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION, description="Version of this record layout.")
    task_id: str = Field(description="Game folder name (task folder/trial folder) or problem id.")
    condition: str = Field(description="Condition name (configs/strategy/<name>.yaml).")
    trial: int = Field(ge=0, description="0-based trial index.")
    repeat: int = Field(
        0, ge=0, description="0-based repetition of this (task, condition) with its own seeds (experiment.repeats)."
    )
    success: bool = Field(description="Whether the environment reported the task won.")
    end_reason: str = Field(description="won | exhausted (repeated action) | max_steps | context_overflow.")
    steps: int = Field(ge=0, description="Actions taken in the episode.")
    task_text: str = Field(description="The task sentence the actor was given.")
    trajectory: list[Step] = Field(description="Action/observation pairs in order.")
    memory: list[str] = Field(description="Reflections the actor saw in its prompt (the memory window).")
    reflection: str | None = Field(description="Reflection written after this trial, or null if none.")
    reflection_details: ReflectionDetails | None = Field(
        None, description="What the source kept beside it: template parts, parser signals; null for plain text."
    )
    reflection_identity: ReflectionIdentity | None = Field(
        None,
        description="The reflection's task identity (on_task, off_task, vacuous) and the words that decided it, by "
        "the domain's identity rule when recorded; null without a reflection or before schema 4.",
    )
    attempt_details: AttemptDetails | None = Field(
        None,
        description="The domain's evidence, the model its `kind` names (`harness.records.attempt`). HumanEval: "
        "internal tests, code, sandbox verdicts and signals; HotpotQA: the thought, the parsed action and the "
        "answer; null on ALFWorld.",
    )
    actor_model: str = Field(description="Identity of the actor model.")
    reflector_model: str = Field(description="Identity of the reflector model.")
    usage: Usage = Field(description="Prompt and completion tokens over all LLM calls of this trial.")
    actor_usage: Usage | None = Field(
        None, description="The actor's part of `usage`, priced at the actor model's rate (null before schema 3)."
    )
    reflector_usage: Usage | None = Field(
        None, description="The reflector's part of `usage`, priced at the reflector model's rate (null before schema 3)."
    )
    llm_calls: int = Field(ge=0, description="LLM calls made for this trial (actor and reflector).")
    cache_hits: int = Field(ge=0, description="Calls answered from the cache.")
    retries: int = Field(
        0, ge=0, description="Failed model attempts retried before this trial's answers (0 for cache hits)."
    )
    llm_latency_s: float = Field(description="Sum of the recorded model latencies (the original call's for hits).")
    calls: list[ModelCall] = Field(
        default_factory=list, description="Every model call of the trial in order; empty before schema 5."
    )
    timing: Timing = Field(default_factory=Timing, description="Wall-clock figures for this run.")

    @model_validator(mode="after")
    def _roles_add_up(self) -> TrialRecord:
        # Costs are priced per role; a split that disagrees with the total would price tokens that never existed.
        split = (self.actor_usage, self.reflector_usage)
        if self.schema_version >= 3 and None in split:
            raise ValueError("a schema 3 record needs actor_usage and reflector_usage")
        if None not in split and (
            self.actor_usage + self.reflector_usage != self.usage  # type: ignore[operator]  # neither is None here
        ):
            raise ValueError("usage must be the sum of actor_usage and reflector_usage")
        return self

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.task_id, self.condition, self.trial, self.repeat)


class SelectionRun(BaseModel):
    """The earlier run whose frozen tasks this run plays (`env.frozen_in`), and the answers the two share."""

    path: str = Field(description="The selection run's directory, as env.frozen_in named it.")
    started_at: datetime | None = Field(description="Its manifest's started_at; None when it has no manifest.")
    git_commit: str | None = Field(description="Its manifest's git commit; None when unknown.")
    records: int | None = Field(
        None, ge=0, description="Records in its trials.jsonl when this run first selected on it; None before kept."
    )
    trials_sha256: str | None = Field(
        None, description="SHA-256 of its trials.jsonl when this run first selected on it; None before kept."
    )
    basis: Literal["calls", "trials"] | None = Field(
        None,
        description="calls: requests compared by cache key; trials: (either run has no calls recorded) trials "
        "compared by task, trial, repeat and run seed (and condition after trial 0); None until the run ends.",
    )
    compared: int | None = Field(None, ge=0, description="This run's requests (or trials) compared.")
    shared: int | None = Field(None, ge=0, description="Of them, those the selection run also has.")


class Manifest(BaseModel):
    """What a run was: its resolved config and the versions of everything that shaped it."""

    schema_version: int = SCHEMA_VERSION
    config: dict[str, Any] = Field(description="The resolved, validated configuration.")
    package_versions: dict[str, str] = Field(description="Installed versions of the packages that matter.")
    git_commit: str | None = Field(description="Commit of the harness checkout, with '-dirty' if modified.")
    data_hashes: dict[str, str] = Field(description="SHA-256 of the games and prompts used.")
    tasks: list[str] | None = Field(
        None, description="The task ids the run plays, in order; None in manifests written before they were listed."
    )
    started_at: datetime
    ended_at: datetime | None = None
    resumed_from: int = Field(0, description="Records already present when this invocation started.")
    records: int | None = Field(
        None, description="Records in trials.jsonl when the run ended; None while running and in older manifests."
    )
    status: str = Field("running", description="running | finished | failed | interrupted (SIGINT or SIGTERM)")
    selection: SelectionRun | None = Field(
        None, description="The run env.frozen_in selected this run's tasks from; None when it played no such set."
    )


class TrialLog:
    """Append-only `trials.jsonl`: every line one validated TrialRecord, each trial once (`harness.records.log`).

    Opening it repairs the end of the file: a torn last line is cut away with a warning, a whole last record
    without its newline is given it. A bad line anywhere else, or a trial recorded twice, raises, because
    silently skipping it would lose or duplicate a trial. Only one process writes a run's log: an append is
    refused when the file changed since this log last read or wrote it, and `guard`, called before each append,
    lets the run check it still holds its directory.
    """

    def __init__(
        self, run_dir: Path, guard: Callable[[], None] | None = None, *, repair: bool = True, file: str = TRIALS_FILE
    ) -> None:
        self.path = Path(run_dir) / file
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._guard = guard
        self._log = _trial_log(self.path, single_writer=repair)
        # repair=False reads as read_trials does (writing nothing, refusing nothing it could not read) and leaves
        # the first write to repair(), once the records read have been checked: a refused resumption writes nothing.
        self.records: list[TrialRecord] = self._log.repair()[0] if repair else self._log.read()

    def repair(self) -> None:
        """Cut a torn last line, or end a whole one, as this log's one writer from now on; reads only what follows
        the records already read."""
        self._log.single_writer = True
        self.records += self._log.repair()[0]

    def keys(self) -> set[tuple[str, str, int, int]]:
        return {record.key for record in self.records}

    def append(self, record: TrialRecord) -> None:
        """Write one record and make it durable before returning."""
        if self._guard is not None:
            self._guard()
        try:
            self._log.append([record])
        except OSError as error:
            raise RecordWriteError(
                f"could not record trial {record.key} in {self.path} ({error.strerror or error}); every trial "
                "recorded before it is kept: make room and run the same command to resume."
            ) from error
        self.records.append(record)


def _trial_log(path: Path, *, single_writer: bool = False) -> DurableLog[TrialRecord]:
    # Quiet reads: a torn line is the run's to report, as it cuts it; a refusal stays one sentence.
    return DurableLog(
        path,
        TrialRecord,
        what="trial record",
        key=lambda record: record.key,
        name_key=lambda key: f"trial {key if key[3] else key[:3]}",  # (task, condition, trial[, repeat])
        single_writer=single_writer,
        quiet_reads=True,
    )


def parse_trials(data: bytes, path: Path) -> tuple[list[TrialRecord], bytes]:
    """The records of a trials.jsonl's bytes, and its torn tail (b"" when there is none).

    The rules of `harness.records.log`: a bad line, a last line that is JSON but no valid record, or a repeated
    key is corruption (LogLineError naming the line).
    """
    return _trial_log(path).parse(data)


def read_trials(run_dir: Path, file: str = TRIALS_FILE) -> list[TrialRecord]:
    """All complete records of a run (or of its `file` of trials, e.g. evaluation.jsonl), validated, without writing
    anything.

    Safe on a run that is still recording: a torn last line is left out, neither cut nor reported (TrialLog does
    both).
    """
    return _trial_log(Path(run_dir) / file).read()


def write_manifest(run_dir: Path, manifest: Manifest) -> None:
    """Replace the manifest whole (harness.records.whole_file), so a crash never leaves half of it."""
    write_whole(Path(run_dir) / MANIFEST_FILE, manifest.model_dump_json(indent=2))


MANIFEST_MAX_BYTES = 16 * 2**20
"""A manifest is a few kilobytes; anything this large is not one, and reading it whole could exhaust memory."""


class UnreadableManifest(ValueError):
    """manifest.json is something a manifest cannot be: a device, a pipe, a directory, or far too large."""


def read_manifest(run_dir: Path) -> Manifest | None:
    """The run's manifest, None when there is none; UnreadableManifest or pydantic's ValidationError otherwise."""
    path = Path(run_dir) / MANIFEST_FILE
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO in its place must not block the run
    except FileNotFoundError:
        return None
    with open(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableManifest("it is not a regular file: a device, pipe or socket is in its place")
        if info.st_size > MANIFEST_MAX_BYTES:
            raise UnreadableManifest(f"it holds {info.st_size} bytes, more than a manifest's {MANIFEST_MAX_BYTES}")
        data = handle.read(MANIFEST_MAX_BYTES + 1)
    return Manifest.model_validate_json(data)


def records_without_timing(records: Iterable[TrialRecord]) -> list[dict[str, Any]]:
    """Records as dicts minus wall-clock timing, sorted by key: what replays must reproduce."""
    return [r.model_dump(exclude={"timing"}) for r in sorted(records, key=lambda r: r.key)]
