"""GateStore: the gate's files in one directory, with every append locked, flushed and fsynced.

Files: store.json (marker), proposed.jsonl (the pile), dropped.jsonl (rule-1 drops with reasons),
decisions.jsonl (the hash chain), decisions.head (the chain's length and last hash) and store.lock.
Live memory is derived from decisions.jsonl alone; the pile only feeds review.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from harness.records.canonical import canonical_json
from harness.gate._chain import (
    GENESIS,
    ChainHead,
    ChainReport,
    Decision,
    DecisionLine,
    approval_problem,
    chain_lines,
    new_line,
    parse_line,
    walk_chain,
)
from harness.errors import LogLineError
from harness.gate._errors import GateChainError, GateDecisionError, InvalidGateStoreError
from harness.records.gate import Dropped, Proposal, Submission, Turn
from harness.records.log import DurableLog, Repair
from harness.records.whole_file import write_whole
from harness.gate._rules import check_candidate

STORE_KIND: Final = "harness-gate-store"
STORE_VERSION: Final = 1
MARKER_FILE: Final = "store.json"
PROPOSED_FILE: Final = "proposed.jsonl"
DROPPED_FILE: Final = "dropped.jsonl"
CHAIN_FILE: Final = "decisions.jsonl"
HEAD_FILE: Final = "decisions.head"
LOCK_FILE: Final = "store.lock"

_Scoped = TypeVar("_Scoped", Proposal, Dropped)


class GateStore:
    """One gate store directory. Make one with create(), reach an existing one with open().

    Safe to share between threads and processes: every read holds a shared flock on store.lock and every
    append an exclusive one (each acquisition opens its own descriptor, so threads exclude each other too).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._thread_lock = threading.Lock()

    @classmethod
    def create(cls, path: Path) -> GateStore:
        """Make the directory and its marker; an existing store is opened as it is."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise InvalidGateStoreError(f"cannot make a gate store at {path}: it is a file, not a directory.")
        path.mkdir(parents=True, exist_ok=True)
        store = cls(path)
        with store._locked(exclusive=True):
            # Checked under the lock: a concurrent create must not reset a head another process has moved.
            if (path / MARKER_FILE).exists():
                return cls.open(path)
            store._refuse_unmarked_data()
            store._write_atomically(HEAD_FILE, ChainHead(decisions=0, hash=GENESIS).model_dump_json())
            store._write_atomically(MARKER_FILE, json.dumps({"kind": STORE_KIND, "version": STORE_VERSION}))
        return store

    def _refuse_unmarked_data(self) -> None:
        """A store's data without its marker is a store that lost its marker: refused, so no head is written over it.

        What create() itself writes before the marker (the empty head) may be there: a create killed mid-way.
        """
        empty_head = _head_bytes([])
        held = [name for name in (CHAIN_FILE, PROPOSED_FILE, DROPPED_FILE) if self._read(name)]
        head = self._read_head()
        if head is not None and head.strip() != empty_head.strip():
            held.insert(0, HEAD_FILE)
        if held:
            marker = json.dumps({"kind": STORE_KIND, "version": STORE_VERSION})
            raise InvalidGateStoreError(
                f"{self.path} holds a gate store's {', '.join(held)} but no {MARKER_FILE}, so it is not made anew "
                f"over them; restore {MARKER_FILE} (its content is {marker}) or move those files away."
            )

    @classmethod
    def open(cls, path: Path) -> GateStore:
        """The store at `path`; InvalidGateStoreError if it is not one."""
        path = Path(path)
        marker = path / MARKER_FILE
        expected = f"a directory holding {MARKER_FILE} with kind {STORE_KIND!r} and version {STORE_VERSION}"
        if not path.exists():
            raise InvalidGateStoreError(f"{path} is not a gate store: it does not exist; expected {expected}.")
        if not path.is_dir():
            raise InvalidGateStoreError(f"{path} is not a gate store: it is a file; expected {expected}.")
        try:
            data = _read_regular(marker)
            if data is None:
                raise InvalidGateStoreError(f"{path} is not a gate store: it has no {MARKER_FILE}; expected {expected}.")
            content = json.loads(data)
        except (OSError, ValueError) as error:
            raise InvalidGateStoreError(
                f"{path} is not a gate store: {marker} is unreadable ({error.__class__.__name__}); expected {expected}."
            ) from error
        if not isinstance(content, dict) or content.get("kind") != STORE_KIND:
            raise InvalidGateStoreError(
                f"{path} is not a gate store: {marker} names another kind; expected {expected}."
            )
        if content.get("version") != STORE_VERSION:
            raise InvalidGateStoreError(
                f"{path} is a gate store of version {content.get('version')!r}, but this harness reads version "
                f"{STORE_VERSION} only."
            )
        return cls(path)

    def submit(self, candidates: Sequence[Any], turns: Sequence[Turn], scope: str, origin: str) -> Submission:
        """Rule 1 on each candidate: passes go to the pile, failures to dropped.jsonl.

        Idempotent, so replaying a trial after a crash adds nothing twice: a proposal whose id is in the pile,
        or a drop identical to a logged one, is not appended again (but is still in the returned Submission).
        """
        outcomes = [check_candidate(raw, turns, scope, origin) for raw in candidates]
        proposed = [outcome for outcome in outcomes if isinstance(outcome, Proposal)]
        dropped = [outcome for outcome in outcomes if isinstance(outcome, Dropped)]
        with self._locked(exclusive=True):
            _pile(self.path).append_missing(proposed)
            _drops(self.path).append_missing(dropped)
        return Submission(proposed=proposed, dropped=dropped)

    def proposals(self, scope: str | None = None) -> list[Proposal]:
        """The whole pile in submission order, decided or not."""
        with self._locked(exclusive=False):
            return _in_scope(_pile(self.path).read(), scope)

    def pending(self, scope: str | None = None) -> list[Proposal]:
        """The pile minus every id decided on a readable chain line, in pile order; the chain is not verified."""
        with self._locked(exclusive=False):
            pile = _pile(self.path).read()
            decided = {line.item.id for line in map(parse_line, chain_lines(self._read(CHAIN_FILE))) if line}
        return [proposal for proposal in _in_scope(pile, scope) if proposal.id not in decided]

    def dropped(self, scope: str | None = None) -> list[Dropped]:
        """Every logged drop, in order."""
        with self._locked(exclusive=False):
            return _in_scope(_drops(self.path).read(), scope)

    def decide(self, item_id: str, decision: Decision | str, reviewer: str, note: str = "") -> DecisionLine:
        """Append one decision on a pending proposal to the chain, then move the head to it.

        Refused with GateDecisionError, appending nothing: a broken chain, an id not in the pile, an id
        already decided, a decision other than APPROVE/REJECT, an empty reviewer.
        """
        try:
            decision = Decision(decision)
        except ValueError:
            raise GateDecisionError(f"decision {decision!r} is neither APPROVE nor REJECT.") from None
        if not reviewer.strip():
            raise GateDecisionError("a decision needs a reviewer name; the one given is empty.")
        with self._locked(exclusive=True):
            # Re-read inside the lock: another process may have appended since, and its line is our `prev`.
            report, lines = walk_chain(self._read(CHAIN_FILE), self._read_head())
            if not report.ok:
                raise GateDecisionError(
                    f"the decision chain of {self.path} is broken at line {report.first_bad_line} "
                    f"({report.reason}); nothing was appended."
                )
            item = next((p for p in _pile(self.path).read() if p.id == item_id), None)
            if item is None:
                raise GateDecisionError(f"no proposal with id {item_id} in {self.path}.")
            earlier = next((line for line in lines if line.item.id == item_id), None)
            if earlier is not None:
                raise GateDecisionError(
                    f"proposal {item_id} was already decided ({earlier.decision.value} on line {earlier.seq} of "
                    f"{self.path / CHAIN_FILE})."
                )
            problem = approval_problem(item) if decision is Decision.APPROVE else None
            if problem is not None:
                # The chain refuses such an approval when verified, so appending it would break the store for good.
                raise GateDecisionError(
                    f"proposal {item_id} cannot be approved: {self.path / PROPOSED_FILE} holds it as an item {problem} "
                    "(the pile was edited after rule 1 passed it); reject it or restore the pile, nothing was appended."
                )
            line = new_line(lines[-1] if lines else None, decision, item, reviewer, note, datetime.now(timezone.utc))
            _chain(self.path).append([line])
            self._write_atomically(HEAD_FILE, ChainHead(decisions=line.seq, hash=line.hash).model_dump_json())
        return line

    def recover(self) -> str | None:
        """Finish what a decide() killed mid-way left behind; what was repaired, or None.

        Three states come from a crash inside decide(): a torn last chain line (the append never completed: cut),
        a whole last line without its newline (given it), and a complete, well-linked last line the head does not
        cover yet (the head was not moved: moved). The head moves only over a line that decides an item of this
        store's pile as the pile holds it: a line copied in from another store stays a break for verify() to
        report, as does anything else. Repairing gives no forger anything: whoever can write the files can rewrite
        chain and head anyway.
        """
        with self._locked(exclusive=True):
            repaired = []
            try:
                _, repair = _chain(self.path).repair()
            except LogLineError:
                repair = Repair()  # a bad line is not what a crash leaves: verify() reports it
            if repair.terminated:
                repaired.append(f"added the missing newline of decision line {repair.terminated}")
            if repair.cut:
                repaired.append(f"cut a torn last decision line of {repair.cut} bytes")
            data = self._read(CHAIN_FILE)
            head = self._read_head()
            report, lines = walk_chain(data, head)
            head_one_behind = bool(lines) and head is not None and head.strip() == _head_bytes(lines[:-1]).strip()
            if not report.ok and report.first_bad_line == len(lines) and head_one_behind and self._in_pile(lines[-1]):
                self._write_atomically(HEAD_FILE, _head_bytes(lines).decode().rstrip("\n"))
                repaired.append(f"moved decisions.head to line {len(lines)}, appended before a crash")
        return "; ".join(repaired) or None

    def _in_pile(self, line: DecisionLine) -> bool:
        """Whether the line decides an item of this store's pile, exactly as the pile holds it."""
        return any(proposal == line.item for proposal in _pile(self.path).read())

    def decisions(self) -> list[DecisionLine]:
        """The chain's lines as written, not verified (use verify()); GateChainError if one is not a line."""
        with self._locked(exclusive=False):
            data = self._read(CHAIN_FILE)
        lines: list[DecisionLine] = []
        for number, raw in enumerate(chain_lines(data), start=1):
            line = parse_line(raw)
            if line is None:
                raise GateChainError(f"{self.path / CHAIN_FILE} line {number} is not a decision line; run verify.")
            lines.append(line)
        return lines

    def verify(self) -> ChainReport:
        """Check every line, the links between them and the head; an empty store is ok."""
        with self._locked(exclusive=False):
            return walk_chain(self._read(CHAIN_FILE), self._read_head())[0]

    def live_memory(self, scope: str | None = None) -> list[Proposal]:
        """Approved items in chain order, from decisions.jsonl alone; GateChainError if the chain is broken."""
        with self._locked(exclusive=False):
            report, lines = walk_chain(self._read(CHAIN_FILE), self._read_head())
        if not report.ok:
            raise GateChainError(
                f"the decision chain of {self.path} is broken at line {report.first_bad_line}: {report.reason}."
            )
        return _in_scope([line.item for line in lines if line.decision is Decision.APPROVE], scope)

    @contextmanager
    def _locked(self, *, exclusive: bool) -> Iterator[None]:
        """Hold the store lock; callers inside must not take it again (neither lock is re-entrant)."""
        with self._thread_lock:
            # Read-only access suffices for flock, so a reviewer without write rights can still verify.
            descriptor = os.open(self.path / LOCK_FILE, os.O_RDONLY | os.O_CREAT, 0o644)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
                yield
            finally:
                os.close(descriptor)  # closing the last descriptor releases the flock

    def _read(self, name: str) -> bytes:
        return _read_regular(self.path / name) or b""

    def _read_head(self) -> bytes | None:
        return _read_regular(self.path / HEAD_FILE)

    def _write_atomically(self, name: str, text: str) -> None:
        """Replace a small file whole (harness.records.whole_file): never through a link left at its name."""
        write_whole(self.path / name, text + "\n")


def _read_regular(path: Path) -> bytes | None:
    """The file's bytes, None if it is missing. A directory, device or pipe in its place is refused: /dev/zero would
    be read until memory runs out, and a pipe would wait forever (hence O_NONBLOCK on the open)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise InvalidGateStoreError(
                f"{path} is not a regular file (a directory, device, pipe or socket is in its place); put the gate "
                "store's file back or remove what replaced it, nothing was changed."
            )
        with open(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)


def _pile(store: Path) -> DurableLog[Proposal]:
    """proposed.jsonl (`harness.records.log`): each proposal id once; fresh for each locked operation."""
    return DurableLog(
        store / PROPOSED_FILE,
        Proposal,
        what="proposal",
        key=lambda proposal: proposal.id,
        name_key=lambda k: f"proposal {k}",
        dump=_line_of,
    )


def _drops(store: Path) -> DurableLog[Dropped]:
    """dropped.jsonl: each drop once (a replayed trial drops the same candidates again)."""
    return DurableLog(
        store / DROPPED_FILE, Dropped, what="drop", key=_line_of, name_key=lambda _: "the same drop", dump=_line_of
    )


def _chain(store: Path) -> DurableLog[DecisionLine]:
    """decisions.jsonl as lines to append and a tail to repair; walk_chain() verifies it."""
    return DurableLog(
        store / CHAIN_FILE,
        DecisionLine,
        what="decision line",
        key=lambda line: line.item.id,
        name_key=lambda k: f"a decision on proposal {k}",
        dump=_line_of,
    )


def _head_bytes(lines: Sequence[DecisionLine]) -> bytes:
    """The head file's content for a chain of `lines`."""
    head = ChainHead(decisions=len(lines), hash=lines[-1].hash if lines else GENESIS)
    return (head.model_dump_json() + "\n").encode()


def _line_of(record: BaseModel) -> str:
    return canonical_json(record.model_dump(mode="json"))


def _in_scope(records: list[_Scoped], scope: str | None) -> list[_Scoped]:
    return records if scope is None else [record for record in records if record.scope == scope]
