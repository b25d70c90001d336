"""Memory behind the gate: a gated condition's proposals go through the gate store, the actor reads live memory.

One store per condition in the run directory (`gate/<condition>/`), one scope per task. Live memory is
grouped by the trial that proposed it, so the window counts trials as the other conditions' memory does.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from harness.gate import Decision, GateChainError, GateStore, Proposal
from harness.reflection._base import Reflection
from harness.records import TrialRecord
from harness.records.details import GateOutcome

log = logging.getLogger(__name__)

AUTO_REVIEWER = "policy:auto"
_TRIAL_ORIGIN = re.compile(r"^trial (\d+)$")


class GateClosedError(Exception):
    """An admission after the run closed the gate (it stopped, and left this trial behind)."""


def trial_origin(trial: int) -> str:
    return f"trial {trial}"


def origin_trial(item: Proposal) -> int:
    """The trial that proposed an item; -1 for one proposed outside a trial (it counts as earlier than any)."""
    match = _TRIAL_ORIGIN.match(item.origin)
    return int(match.group(1)) if match else -1


def lessons_by_trial(items: Sequence[Proposal]) -> list[str]:
    """One memory entry per proposing trial, in trial order: its approved lessons joined."""
    groups: dict[int, list[str]] = {}
    for item in items:
        groups.setdefault(origin_trial(item), []).append(item.lesson)
    return [" ".join(lessons) for _, lessons in sorted(groups.items())]


def approve_by_policy(
    store: GateStore, proposed: Sequence[Proposal], policy: Literal["auto", "owner"]
) -> list[Proposal]:
    """The proposed items that are live: under `auto` every undecided one is approved first, under `owner` none is.

    Items resubmitted after a crash carry the same ids: earlier decisions stand, nothing is decided twice.
    """
    decided = {line.item.id: line.decision for line in store.decisions()}
    if policy == "auto":
        for item in proposed:
            if item.id not in decided:
                decided[item.id] = store.decide(item.id, "APPROVE", reviewer=AUTO_REVIEWER).decision
    return [item for item in proposed if decided.get(item.id) == "APPROVE"]


class GatedMemory:
    """The gate between a gated condition's reflections and its actor's memory."""

    def __init__(self, store_dir: Path, policy: Literal["auto", "owner"], window: int) -> None:
        self.store_dir = store_dir
        self.policy = policy
        self.size = window
        self._store: GateStore | None = None
        self._opening = threading.Lock()
        self._admitting = threading.Lock()
        self._closed = False

    @property
    def store(self) -> GateStore:
        """The store, created on first use so that a run refused before its first trial writes nothing."""
        with self._opening:
            if self._store is None:
                store = GateStore.create(self.store_dir)
                repaired = store.recover()
                if repaired:
                    log.warning("gate store %s: %s", self.store_dir, repaired)
                self._store = store
            return self._store

    def check_chain(self) -> None:
        """Refuse a store whose decision chain does not verify (a line edited, removed, reordered, inserted), before
        any trial: the condition would otherwise find out at its own first trial, after the conditions before it
        had played theirs. What a crash left is repaired first, as the first use does; a store not made yet is
        fine (GateChainError)."""
        if not self.store_dir.exists():
            return
        report = self.store.verify()
        if not report.ok:
            raise GateChainError(
                f"the decision chain of {self.store_dir} is broken at line {report.first_bad_line} ({report.reason}), "
                "so its live memory cannot be trusted; restore the store from a backup, or use a new hydra.run.dir "
                "(reflexion-gate verify names the line)."
            )

    def check_recorded(self, records: Sequence[TrialRecord]) -> None:
        """Refuse a store whose chain lacks approvals this condition's records hold: the chain was removed or cut,
        and resuming on it would feed the actor a memory its earlier trials never had (GateChainError)."""
        recorded = [
            item_id
            for record in records
            if isinstance(record.reflection_details, GateOutcome)
            for item_id in record.reflection_details.approved
        ]
        if not recorded:
            return
        decisions = GateStore.open(self.store_dir).decisions() if self.store_dir.exists() else []
        approved = {line.item.id for line in decisions if line.decision is Decision.APPROVE}
        missing = [item_id for item_id in recorded if item_id not in approved]
        if missing:
            raise GateChainError(
                f"the decision chain of {self.store_dir} lacks {len(missing)} of the {len(recorded)} approval(s) its "
                f"condition's trial records hold (the first: {missing[0]}), so it was removed or cut; restore it from "
                "a backup, or use a new hydra.run.dir."
            )

    def window(self, task_id: str, before_trial: int) -> list[str]:
        """The last `size` earlier trials' approved lessons for a task, from the decision chain alone.

        Only trials before this one count: a run stopped at once may have admitted this trial's own proposals
        without recording the trial, and its replay must read the memory the trial first read.
        """
        if self.size <= 0:
            return []
        earlier = [item for item in self.store.live_memory(scope=task_id) if origin_trial(item) < before_trial]
        return lessons_by_trial(earlier)[-self.size :]

    def close(self) -> None:
        """Admit nothing more: once this returns, the run writes nothing into the store (an admission under way
        completes first, so none is left half-written)."""
        with self._admitting:
            self._closed = True

    def admit(self, task_id: str, trial: int, reflection: Reflection) -> Reflection:
        """Check the proposals, pile what passes, approve it under `auto`; the text is what went live now."""
        answer = reflection.gate_answer
        if answer is None:
            raise ValueError(f"{task_id} trial {trial}: a gated condition's source returned no proposals.")
        with self._admitting:
            if self._closed:
                raise GateClosedError(f"{task_id} trial {trial}: the run stopped; the gate admits nothing more.")
            submission = self.store.submit(answer.candidates, answer.turns, scope=task_id, origin=trial_origin(trial))
            proposed = list({item.id: item for item in submission.proposed}.values())
            approved = approve_by_policy(self.store, proposed, self.policy)
        outcome = GateOutcome(
            raw=answer.raw,
            policy=self.policy,
            proposed=proposed,
            dropped=submission.dropped,
            approved=[item.id for item in approved],
        )
        text = " ".join(item.lesson for item in approved) or None
        return Reflection(text=text, details=outcome)
