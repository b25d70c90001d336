"""The record schema and the durable trial log: what a run writes and every reader reads.

`trial` holds TrialRecord, the manifest and the trial log; `log` the durable JSON-lines log every appending file
uses (trials, the gate's files, the LLM cache: the lock, fsync, the rule for a last line without its newline, the
rule for duplicates); `plan` a run's conditions x tasks x trials and the records outside it; `step`, `details`,
`gate` and `usage` the models a record is made of; `attempt` each domain's evidence by its `kind`; `canonical` the
one JSON spelling ids and hashes are taken of; `registry` the one registry of names every pluggable part keeps.
Models only, and the log: machinery (sandbox, gate store, LLM backends, actors) imports this package, never the
reverse.
"""

from harness.records.trial import (
    MANIFEST_FILE,
    SCHEMA_VERSION,
    TRIALS_FILE,
    Manifest,
    SelectionRun,
    Timing,
    TrialLog,
    TrialRecord,
    parse_trials,
    read_manifest,
    read_trials,
    records_without_timing,
    write_manifest,
)
from harness.records.plan import OutsidePlan, RunPlan, describe_outside, manifest_plan, split_by_plan

__all__ = [
    "MANIFEST_FILE",
    "SCHEMA_VERSION",
    "TRIALS_FILE",
    "Manifest",
    "OutsidePlan",
    "RunPlan",
    "SelectionRun",
    "Timing",
    "TrialLog",
    "TrialRecord",
    "describe_outside",
    "manifest_plan",
    "parse_trials",
    "read_manifest",
    "read_trials",
    "records_without_timing",
    "split_by_plan",
    "write_manifest",
]
