"""A report's folder held while the report is written, so two reports never interleave their files in one folder.

Two `reflexion-report ... --out DIR` at once each replaced report.md, the plots and report.html in turn,
and left a folder whose files came from both. The command holds an flock on the folder itself, the lock a run holds
on its own directory (harness/run/lock.py), so a report into a directory a run is writing is refused too. A run
writing its own report at its end holds that lock already and does not take it again.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.report._runs import ReportInputError
from harness.records.run_dir import first_missing, remove_created

# A filesystem that cannot flock a directory (NFS emulates flock with locks that need a file open for writing).
_NO_DIRECTORY_LOCKS = {errno.EBADF, errno.EINVAL, errno.ENOLCK, errno.EOPNOTSUPP}


@contextmanager
def holding(out: Path) -> Iterator[None]:
    """`out`, made if missing, held for the block: ReportInputError if another process holds it. A folder this
    made is removed again, while empty, when the block fails (a refused report leaves no directory)."""
    created = first_missing(out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
        try:
            _lock(descriptor, out)
            yield
        finally:
            os.close(descriptor)  # and with it the lock
    except BaseException:
        remove_created(out, created)
        raise


def _lock(descriptor: int, out: Path) -> None:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ReportInputError(
            f"{out} is being written by another process (a report or a run), so this report would mix its files "
            "with that one's; nothing was written, run this again once it ends."
        ) from None
    except OSError as error:
        if error.errno not in _NO_DIRECTORY_LOCKS:
            raise
