"""DurableLog: a JSON-lines file of one pydantic model, appended durably and read back validated.

Trial records, the gate's pile, drops and decision chain, and the LLM cache are each one, under one set of rules:

- **Appends** write whole lines, each with its newline, flushed and fsynced before append() returns, under an
  exclusive flock on the file (reads take a shared one), so processes sharing a log never interleave. A write that
  fails part-way (a full disk) is cut back, so the file keeps whole lines only.
- **The tail**, the bytes after the last newline. A crash can stop an append mid-line, and no proper prefix of a
  JSON object is JSON; an editor can also drop a file's final newline. So bytes there that parse as JSON are never
  a torn write: a valid record is that record missing only its newline (read, and terminated before the next
  append), and a JSON value that fails validation is refused like a bad line in the middle. Anything else is a torn
  write: left out when read, cut (with a warning) before the next append or by repair().
- **Lines in the middle** that are not valid records are refused, naming the file and the line; a blank line
  carries nothing. A line whose JSON repeats a key within an object or holds NaN or Infinity is no valid record
  (harness.records.strict_json), wherever it stands.
- **Duplicates.** A log with a key holds each key once: a second line with a key is refused when read, naming both
  lines; append() refuses a record whose key the file holds and append_missing() leaves it out, checked under the
  lock against the file as it is, not against what this process wrote.
- **Single writer.** A log only one process may write (trials.jsonl) refuses to append when the file changed since
  this process last read or wrote it (removed, replaced, grown or cut short): another writer or a hand edit is at
  work, and appending would build on records this process never checked.

An instance remembers how far it has read, so read() returns only what was added since; it is not thread-safe.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from harness.errors import LogChangedError, LogLineError, RecordCorruptError
from harness.records.strict_json import strict_json_problem
from harness.records.validation_reason import validation_reason
from harness.records.whole_file import fsync_directory

Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True)
class Repair:
    """What repair() did to the end of a log."""

    cut: int = 0
    """Bytes of a torn last line cut away."""
    terminated: int | None = None
    """The number of the whole last line given its newline."""


class DurableLog(Generic[Model]):
    """One JSON-lines file of `model` records, under the module's rules.

    `what` names a record in messages ("trial record"); `key` gives a record's key when keys must be unique, and
    `name_key` spells one in messages; `dump` writes a record's line (default: its model_dump_json()). `quiet_reads`
    leaves a torn tail unreported by read(), for readers that leave it to the writer that cuts it.
    """

    def __init__(
        self,
        path: Path,
        model: type[Model],
        *,
        what: str,
        key: Callable[[Model], Hashable] | None = None,
        name_key: Callable[[Any], str] = repr,
        dump: Callable[[Model], str] | None = None,
        single_writer: bool = False,
        quiet_reads: bool = False,
    ) -> None:
        self.path = Path(path)
        self.model = model
        self.what = what
        self.key = key
        self.name_key = name_key
        self.dump: Callable[[Model], str] = dump or (lambda record: record.model_dump_json())
        self.single_writer = single_writer
        self.quiet_reads = quiet_reads
        self._reset()
        self._seen: tuple[int, int, int] | None = None  # (device, inode, size) when last read or written
        self._torn_reported: tuple[int, int, int] | None = None
        self._unreturned: list[Model] = []  # other writers' records an append read on its way: the next read's

    def _reset(self) -> None:
        self._offset = 0  # bytes read: whole lines, and a whole last record without its newline
        self._lines = 0
        self._unterminated = False  # the last line read is a whole record still lacking its newline
        self._keys: dict[Hashable, int] = {}  # key -> the line holding it

    def read(self) -> list[Model]:
        """The records added since this log last read or appended (all of them the first time); writes nothing.

        A torn last line is left out, with a warning.
        """
        self._refuse_a_link()
        try:
            # O_NONBLOCK: opening a FIFO put in the file's place must not wait for a writer (it is refused below).
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise self._unreadable(error) from error
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH)
            records, torn = self._catch_up(descriptor)
        finally:
            os.close(descriptor)
        records = self._take_unreturned() + records
        if torn and not self.quiet_reads and self._torn_reported != self._seen:
            self._torn_reported = self._seen
            warnings.warn(
                f"{self.path}: ignoring a torn last line of {len(torn)} bytes left by an interrupted write "
                "(the next append cuts it).",
                stacklevel=2,
            )
        return records

    def parse(self, data: bytes) -> tuple[list[Model], bytes]:
        """The records of `data` read as this log's whole file, and its torn tail (b"" if none); reads no file."""
        self._reset()
        return self._ingest(data)

    def repair(self) -> tuple[list[Model], Repair]:
        """Read as read() does, then cut a torn last line or terminate a whole one, durably and with a warning."""
        self._refuse_a_link()
        try:
            descriptor = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_NONBLOCK)
        except FileNotFoundError:
            return [], Repair()
        except IsADirectoryError as error:
            raise self._unreadable(error) from error
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            records, torn = self._catch_up(descriptor)
            return self._take_unreturned() + records, self._fix_tail(descriptor, torn)
        finally:
            os.close(descriptor)

    def _take_unreturned(self) -> list[Model]:
        records, self._unreturned = self._unreturned, []
        return records

    def append(self, records: Sequence[Model]) -> None:
        """Append `records` durably; RecordCorruptError, appending nothing, if the file already holds one's key."""
        self._append(records, skip_known=False)

    def append_missing(self, records: Sequence[Model]) -> list[Model]:
        """Append the records whose key the file does not hold yet (the first of repeats among them); those."""
        return self._append(records, skip_known=True)

    def _append(self, records: Sequence[Model], *, skip_known: bool) -> list[Model]:
        self._refuse_a_link()
        descriptor, created = self._open_for_append()
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            if self.single_writer:
                self._refuse_changes(descriptor)
            others, torn = self._catch_up(descriptor)
            self._unreturned += others
            chosen = self._new_records(records, skip_known=skip_known)
            if chosen:
                self._fix_tail(descriptor, torn)
                self._write(descriptor, chosen)
        finally:
            os.close(descriptor)
        if created:
            fsync_directory(self.path.parent)  # the new file's name is durable too
        return chosen

    def _open_for_append(self) -> tuple[int, bool]:
        """A descriptor reading and appending the file, and whether this call created it."""
        try:
            return os.open(self.path, os.O_RDWR | os.O_APPEND), False
        except FileNotFoundError:
            if self.single_writer and self._seen is not None:
                raise self._changed("it was removed") from None
        try:
            return os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644), True
        except FileExistsError:  # another process created it a moment ago
            return os.open(self.path, os.O_RDWR | os.O_APPEND), False

    def _refuse_a_link(self) -> None:
        """A single-writer log reached through a symbolic link is another directory's file: its writer's lock does
        not cover it, so appending through the link would write records no lock guards. A file with a second name
        (a backup made by `cp -al`) would take every append into that copy too."""
        if not self.single_writer:
            return
        if self.path.is_symlink():
            raise RecordCorruptError(
                f"{self.path} is a symbolic link (to {os.readlink(self.path)}), so this run's lock does not cover the "
                "file it names; replace the link with a copy of that file, nothing was changed."
            )
        with contextlib.suppress(FileNotFoundError):
            names = os.stat(self.path).st_nlink
            if names > 1:
                raise RecordCorruptError(
                    f"{self.path} has {names} names (hard links, as `cp -al` makes), so an append would change every "
                    "copy; replace it with a copy of its own (cp, not cp -l), nothing was changed."
                )

    def _refuse_changes(self, descriptor: int) -> None:
        now = os.fstat(descriptor)
        if self._seen is None:
            if now.st_size:
                raise self._changed(f"it appeared, holding {now.st_size} bytes, after this process found none")
            return
        device, inode, size = self._seen
        if (now.st_dev, now.st_ino) != (device, inode):
            raise self._changed("it was removed or replaced")
        if now.st_size != size:
            grew = "grew" if now.st_size > size else "was cut short"
            raise self._changed(f"it {grew} from {size} to {now.st_size} bytes")

    def _changed(self, how: str) -> LogChangedError:
        return LogChangedError(
            f"{self.path} changed since this process last read or wrote it ({how}), so another process or a hand "
            "edit is writing it; this process appends nothing more, and every line in the file is kept as it is."
        )

    def _catch_up(self, descriptor: int) -> tuple[list[Model], bytes]:
        """Read what was added since the last read: anew when the file is not the one read, or was rewritten."""
        now = os.fstat(descriptor)
        if not stat.S_ISREG(now.st_mode):
            # A device (/dev/zero) or a pipe never ends: reading it would fill memory or wait forever.
            raise RecordCorruptError(
                f"{self.path} is not a regular file (a directory, device, pipe or socket is in its place); put the "
                "file back or remove what replaced it, nothing was changed."
            )
        if self._seen is not None and (
            (now.st_dev, now.st_ino) != self._seen[:2] or now.st_size < self._offset
        ):
            self._reset()
        data = self._read_from(descriptor, self._offset)
        if self._unterminated and data:
            if data.startswith(b"\n"):  # the newline another writer gave the whole record read before
                data = data[1:]
                self._offset += 1
                self._unterminated = False
            else:  # that line was extended: it is not the record read any more
                self._reset()
                data = self._read_from(descriptor, 0)
        records, torn = self._ingest(data)
        self._seen = (now.st_dev, now.st_ino, self._offset + len(torn))
        return records, torn

    def _read_from(self, descriptor: int, offset: int) -> bytes:
        try:
            with open(descriptor, "rb", closefd=False) as handle:
                handle.seek(offset)
                return handle.read()
        except OSError as error:
            raise self._unreadable(error) from error

    def _unreadable(self, error: OSError) -> RecordCorruptError:
        return RecordCorruptError(
            f"{self.path} cannot be read ({error.strerror or error.__class__.__name__}); restore it from a backup, "
            "nothing was changed."
        )

    def _ingest(self, data: bytes) -> tuple[list[Model], bytes]:
        """Parse `data`, the bytes after the read offset; the torn tail (b"" if none) is returned, not consumed.

        State moves only once every line is good, so a refusal leaves the log where it was.
        """
        *lines, tail = data.split(b"\n")
        records: list[Model] = []
        keys: dict[Hashable, int] = {}
        number = self._lines
        for raw in lines:
            number += 1
            if raw.strip():
                record = self._record(raw, number)
                assert record is not None  # only a tail may be torn: a line before it is a record or refused
                records.append(self._keyed(record, number, keys, raw))
        torn = b""
        if tail:
            record = self._record(tail, number + 1, tail=True)
            if record is None:
                torn = tail
            else:
                number += 1
                records.append(self._keyed(record, number, keys, tail))
        self._lines = number
        self._offset += len(data) - len(torn)
        if data:
            self._unterminated = bool(tail) and not torn
        self._keys.update(keys)
        return records, torn

    def _record(self, raw: bytes, number: int, *, tail: bool = False) -> Model | None:
        """The record on line `number`; None only for a tail that is not JSON (a torn write)."""
        try:
            record = self.model.model_validate_json(raw)
        except ValidationError as error:
            first = error.errors()[0]
            if tail and first["type"] == "json_invalid" and not first["loc"]:
                return None
            raise self._bad_line(number, validation_reason(error), raw) from None
        problem = strict_json_problem(raw)
        if problem is not None:
            raise self._bad_line(number, problem, raw)
        return record

    def _bad_line(self, number: int, reason: str, raw: bytes) -> LogLineError:
        return LogLineError(
            f"{self.path} line {number} is not a valid {self.what} ({reason}); fix or remove that line by hand, "
            "nothing was changed.",
            path=str(self.path),
            line=number,
            reason=reason,
            raw=raw,
        )

    def _keyed(self, record: Model, number: int, keys: dict[Hashable, int], raw: bytes) -> Model:
        if self.key is None:
            return record
        key = self.key(record)
        first = self._keys.get(key, keys.get(key))
        if first is not None:
            reason = f"records {self.name_key(key)} again, after line {first}"
            raise LogLineError(
                f"{self.path} line {number} {reason}; remove one of the two by hand, nothing was changed.",
                path=str(self.path),
                line=number,
                reason=reason,
                raw=raw,
                repeats=first,
            )
        keys[key] = number
        return record

    def _new_records(self, records: Sequence[Model], *, skip_known: bool) -> list[Model]:
        if self.key is None:
            return list(records)
        chosen: dict[Hashable, Model] = {}
        for record in records:
            key = self.key(record)
            if key in self._keys or key in chosen:
                if skip_known:
                    continue
                where = f"line {self._keys[key]} records it" if key in self._keys else "it comes twice in one append"
                raise RecordCorruptError(
                    f"refusing to record {self.name_key(key)} twice in {self.path}: {where}; nothing was appended."
                )
            chosen[key] = record
        return list(chosen.values())

    def _fix_tail(self, descriptor: int, torn: bytes) -> Repair:
        """Cut a torn tail, or terminate a whole last record, so the next line starts a line of its own."""
        if torn:
            os.ftruncate(descriptor, self._offset)
            os.fsync(descriptor)
            self._seen = (*self._seen[:2], self._offset) if self._seen else None
            warnings.warn(
                f"{self.path}: cut a torn last line of {len(torn)} bytes left by an interrupted write.", stacklevel=2
            )
            return Repair(cut=len(torn))
        if self._unterminated:
            self._write_bytes(descriptor, b"\n")
            self._unterminated = False
            warnings.warn(
                f"{self.path}: the last {self.what} (line {self._lines}) lacked its newline; added it.", stacklevel=2
            )
            return Repair(terminated=self._lines)
        return Repair()

    def _write(self, descriptor: int, records: list[Model]) -> None:
        self._write_bytes(descriptor, b"".join((self.dump(record) + "\n").encode("utf-8") for record in records))
        number = self._lines
        for record in records:
            number += 1
            if self.key is not None:
                self._keys[self.key(record)] = number
        self._lines = number

    def _write_bytes(self, descriptor: int, data: bytes) -> None:
        """Append `data` durably; on failure cut back what part of it was written, and raise the OSError."""
        before = self._offset
        # Unbuffered: a buffered writer would retry the rest of a failed line when the file is closed.
        try:
            written = 0
            while written < len(data):
                written += os.write(descriptor, data[written:])
            os.fsync(descriptor)
        except OSError:
            # If even the cut fails, the next reader finds a torn tail and leaves it out.
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, before)
            raise
        self._offset += len(data)
        now = os.fstat(descriptor)
        self._seen = (now.st_dev, now.st_ino, self._offset)
