"""DurableLog's rules on real files: the tail, bad lines, duplicates by key, one writer, appends by others."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from harness.errors import LogChangedError, LogLineError, RecordCorruptError
from harness.records.log import DurableLog, Repair


class Note(BaseModel):
    """A record kind for these tests alone."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str


def notes(path: Path, *, single_writer: bool = False) -> DurableLog[Note]:
    return DurableLog(
        path, Note, what="note", key=lambda note: note.id, name_key=lambda k: f"note {k}", single_writer=single_writer
    )


def note(number: int) -> Note:
    return Note(id=f"n{number}", text=f"note number {number}")


def line(number: int) -> bytes:
    return note(number).model_dump_json().encode() + b"\n"


def test_appended_records_read_back_and_a_second_read_returns_only_what_came_since(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    log = notes(path)
    log.append([note(0), note(1)])
    reader = notes(path)
    assert reader.read() == [note(0), note(1)]
    log.append([note(2)])
    assert reader.read() == [note(2)]
    assert reader.read() == []
    assert path.read_bytes() == line(0) + line(1) + line(2)


def test_a_whole_last_record_without_its_newline_is_read_and_terminated_by_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + line(1)[:-1])
    assert notes(path).read() == [note(0), note(1)]
    assert path.read_bytes() == line(0) + line(1)[:-1], "reading writes nothing"
    log = notes(path)
    log.read()
    with pytest.warns(UserWarning, match=r"the last note \(line 2\) lacked its newline; added it"):
        log.append([note(2)])
    assert path.read_bytes() == line(0) + line(1) + line(2)


def test_a_last_line_that_is_json_but_no_valid_record_is_refused_like_a_middle_line(tmp_path: Path) -> None:
    """JSON cannot be a torn write: a tail that parses but fails validation is named, not cut."""
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + b'{"id": "n1", "text": "x", "extra": true}')
    kept = path.read_bytes()
    for attempt in (lambda log: log.read(), lambda log: log.repair(), lambda log: log.append([note(2)])):
        refusal = r"notes.jsonl line 2 is not a valid note \(extra: Extra inputs"
        with pytest.raises(LogLineError, match=refusal) as caught:
            attempt(notes(path))
        assert caught.value.line == 2
    assert path.read_bytes() == kept


@pytest.mark.parametrize(
    "tail", [b'{"id": "n1", "te', b"\xff\xfe", b"   ", b'{"id": "n1", "text": "x"} {'], ids=repr
)
def test_a_tail_that_is_not_json_is_torn_left_out_when_read_and_cut_before_the_next_append(
    tmp_path: Path, tail: bytes
) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + tail)
    with pytest.warns(UserWarning, match=f"ignoring a torn last line of {len(tail)} bytes"):
        assert notes(path).read() == [note(0)]
    assert path.read_bytes() == line(0) + tail
    with pytest.warns(UserWarning, match=f"cut a torn last line of {len(tail)} bytes"):
        notes(path).append([note(1)])
    assert path.read_bytes() == line(0) + line(1)


def test_repair_cuts_a_torn_tail_or_terminates_a_whole_record_and_says_which(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + line(1)[:7])
    with pytest.warns(UserWarning, match="cut a torn last line"):
        assert notes(path).repair() == ([note(0)], Repair(cut=7))
    path.write_bytes(line(0) + line(1)[:-1])
    with pytest.warns(UserWarning, match="lacked its newline"):
        assert notes(path).repair() == ([note(0), note(1)], Repair(terminated=2))
    assert notes(path).repair() == ([note(0), note(1)], Repair())
    assert path.read_bytes() == line(0) + line(1)


def test_a_bad_middle_line_is_named_and_a_blank_line_carries_nothing(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + b"\n  \n" + line(1))
    assert notes(path).read() == [note(0), note(1)]
    path.write_bytes(line(0) + b'{"id": "n1", "text": 5}\n' + line(2))
    message = r"line 2 is not a valid note \(text: Input should be a valid string \(got 5\)\); fix or remove"
    with pytest.raises(LogLineError, match=message):
        notes(path).read()
    path.write_bytes(line(0) + b"{not json\n" + line(2))
    with pytest.raises(LogLineError, match=r"line 2 is not a valid note \(invalid JSON \("):
        notes(path).read()


def test_a_hostile_value_is_quoted_escaped_in_the_refusal(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b'{"id": "\\u001b[8mhidden\\r", "text": 5}\n')
    with pytest.raises(LogLineError) as caught:
        notes(path).read()
    assert "\x1b" not in str(caught.value) and "\r" not in str(caught.value) and "\n" not in str(caught.value)


def test_a_key_twice_in_the_file_is_refused_naming_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + line(1) + line(0))
    with pytest.raises(LogLineError, match="line 3 records note n0 again, after line 1; remove one of the two"):
        notes(path).read()


def test_an_append_is_checked_against_the_file_as_it_is_not_only_this_instance(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    first, second = notes(path), notes(path)
    first.append([note(0)])
    with pytest.raises(RecordCorruptError, match=r"refusing to record note n0 twice in .*: line 1 records it"):
        second.append([note(0)])
    with pytest.raises(RecordCorruptError, match="it comes twice in one append"):
        second.append([note(1), note(1)])
    assert second.append_missing([note(0), note(1), note(1), note(2)]) == [note(1), note(2)]
    assert second.read() == [note(0)], "what another writer added is returned by the next read, once"
    assert path.read_bytes() == line(0) + line(1) + line(2)


def grow(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(line(8))


def cut_short(path: Path) -> None:
    path.write_bytes(b"")


def replace(path: Path) -> None:
    copy = path.with_suffix(".copy")
    copy.write_bytes(path.read_bytes())
    copy.replace(path)


def remove(path: Path) -> None:
    path.unlink()


@pytest.mark.parametrize(
    ("change", "how"),
    [
        (grow, r"it grew from \d+ to \d+ bytes"),
        (cut_short, r"it was cut short from \d+ to 0 bytes"),
        (replace, "it was removed or replaced"),
        (remove, r"it was removed\)"),
    ],
    ids=["grown", "cut short", "replaced", "removed"],
)
def test_a_single_writer_log_refuses_to_append_after_the_file_changed_behind_it(
    tmp_path: Path, change: Callable[[Path], None], how: str
) -> None:
    path = tmp_path / "notes.jsonl"
    log = notes(path, single_writer=True)
    log.read()
    log.append([note(0)])
    change(path)
    before = path.read_bytes() if path.exists() else None
    with pytest.raises(LogChangedError, match=f"changed since this process last read or wrote it \\({how}"):
        log.append([note(1)])
    assert (path.read_bytes() if path.exists() else None) == before, "a refused append writes nothing"


def test_a_single_writer_log_that_found_no_file_refuses_one_that_appeared(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    log = notes(path, single_writer=True)
    assert log.read() == []
    notes(path).append([note(0)])
    with pytest.raises(LogChangedError, match="it appeared, holding"):
        log.append([note(0)])


def test_a_shared_log_reads_a_file_replaced_behind_it_anew(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(line(0) + line(1))
    log = notes(path)
    assert log.read() == [note(0), note(1)]
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(line(2))
    replacement.replace(path)
    assert log.read() == [note(2)]


def append_notes(path: str, writer: int) -> None:
    log = DurableLog(Path(path), Note, what="note")
    for number in range(50):
        log.append([Note(id=f"{writer}-{number}", text="x" * 5000)])


def test_processes_appending_at_once_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=append_notes, args=(str(path), writer)) for writer in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
    assert sorted(n.id for n in notes(path).read()) == sorted(f"{w}-{n}" for w in range(4) for n in range(50))


def test_a_single_writer_log_reached_through_a_symbolic_link_is_refused_and_the_target_kept(tmp_path: Path) -> None:
    """h5 hostile try: "a run whose trials.jsonl is a symbolic link to another run's appends its trials into that
    run's file, without holding that run's locks"."""
    target = tmp_path / "other-run" / "notes.jsonl"
    target.parent.mkdir()
    notes(target).append([note(0)])
    before = target.read_bytes()
    link = tmp_path / "run" / "notes.jsonl"
    link.parent.mkdir()
    link.symlink_to(target)
    sentence = (
        f"{link} is a symbolic link (to {target}), so this run's lock does not cover the file it names; replace the "
        "link with a copy of that file, nothing was changed."
    )
    for operation in (lambda log: log.read(), lambda log: log.repair(), lambda log: log.append([note(1)])):
        with pytest.raises(RecordCorruptError) as refused:
            operation(notes(link, single_writer=True))
        assert str(refused.value) == sentence
    assert target.read_bytes() == before
    assert notes(link).read() == [note(0)], "a log any process may write still follows the link"


def test_a_single_writer_log_with_a_second_hard_link_is_refused_and_the_backup_kept(tmp_path: Path) -> None:
    """h5 hostile try: "a run backed up with `cp -al run run.bak` and resumed appends its new trials into the
    backup's trials.jsonl too"."""
    path = tmp_path / "run" / "notes.jsonl"
    path.parent.mkdir()
    notes(path).append([note(0)])
    backup = tmp_path / "run.bak.jsonl"
    backup.hardlink_to(path)
    with pytest.raises(RecordCorruptError) as refused:
        notes(path, single_writer=True).append([note(1)])
    assert str(refused.value) == (
        f"{path} has 2 names (hard links, as `cp -al` makes), so an append would change every copy; replace it with "
        "a copy of its own (cp, not cp -l), nothing was changed."
    )
    assert backup.read_bytes() == line(0)


class Measure(BaseModel):
    """A record kind with a number, for the JSON rules pydantic's parser does not keep."""

    id: str
    value: float


@pytest.mark.parametrize("last", [False, True], ids=["middle line", "whole last line without its newline"])
def test_a_key_twice_in_one_object_is_refused_not_read_as_its_last_value(tmp_path: Path, last: bool) -> None:
    """'A record line given a duplicate key ... "success": true is accepted ... the last duplicate key wins.'"""
    path = tmp_path / "notes.jsonl"
    edited = b'{"id": "n1", "text": "as written", "text": "as edited"}'
    path.write_bytes(line(0) + edited + (b"" if last else b"\n" + line(2)))
    before = path.read_bytes()
    with pytest.raises(LogLineError, match=r"line 2 is not a valid note \(the key 'text' appears twice in one object"):
        notes(path).read()
    assert path.read_bytes() == before


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_are_no_json_numbers_and_are_refused(tmp_path: Path, token: bytes) -> None:
    """'Record edited to "llm_latency_s": NaN, "wall_s": Infinity (not JSON) ... accepted by validation.'"""
    path = tmp_path / "measures.jsonl"
    path.write_bytes(b'{"id": "m0", "value": 1.5}\n{"id": "m1", "value": ' + token + b"}\n")
    log = DurableLog(path, Measure, what="measure")
    with pytest.raises(LogLineError, match=rf"line 2 is not a valid measure \({token.decode()} is not a JSON number\)"):
        log.read()


def test_a_number_too_large_for_a_float_is_refused_not_read_as_infinity(tmp_path: Path) -> None:
    """'A JSON number that overflows to infinity (1e999) passes the "no NaN or Infinity" rule: a trial record with
    "llm_latency_s": 1e999 read by the report and by a resume as infinite.'"""
    path = tmp_path / "measures.jsonl"
    path.write_bytes(b'{"id": "m0", "value": 1.5}\n{"id": "m1", "value": -1e999}\n')
    log = DurableLog(path, Measure, what="measure")
    with pytest.raises(LogLineError, match=r"line 2 is not a valid measure \(-1e999 is a number too large for a float"):
        log.read()
