"""Durable trial records: append, read back, torn last line, corruption, duplicates."""

import json
from pathlib import Path

import pytest

from harness.errors import RecordCorruptError
from harness.records import SCHEMA_VERSION, TRIALS_FILE, TrialLog, TrialRecord, read_trials
from harness.records.details import ExtractedSignals, TemplateParts
from harness.records.step import Step
from harness.domains.alfworld.signals import parse_failures
from tests.harness.factories import make_record as factory_record


def make_record(trial: int = 0) -> TrialRecord:
    return factory_record(
        trial, "I should look elsewhere.", trajectory=[Step(action="look", observation="Nothing happens.")]
    )


def test_appended_records_read_back_validated(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    log.append(make_record(trial=0))
    log.append(make_record(trial=1))
    again = TrialLog(tmp_path)
    assert [r.key for r in again.records] == [("a/b", "self_diagnosis", 0, 0), ("a/b", "self_diagnosis", 1, 0)]
    assert again.records[0] == make_record(trial=0)


def test_torn_last_line_is_dropped_and_cut_away(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    log.append(make_record(trial=0))
    path = tmp_path / TRIALS_FILE
    whole = path.read_bytes()
    torn = make_record(trial=1).model_dump_json()[:57]
    path.write_bytes(whole + torn.encode())
    with pytest.warns(UserWarning, match="torn last line"):
        again = TrialLog(tmp_path)
    assert [r.trial for r in again.records] == [0]
    assert path.read_bytes() == whole
    again.append(make_record(trial=1))
    assert [r.trial for r in TrialLog(tmp_path).records] == [0, 1]


def test_a_whole_last_record_without_its_newline_is_kept_and_given_its_newline(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    log.append(make_record(trial=0))
    log.append(make_record(trial=1))
    path = tmp_path / TRIALS_FILE
    whole = path.read_bytes()
    path.write_bytes(whole[:-1])  # `truncate -s -1`: a crash between a line and its newline, or an editor
    assert [r.trial for r in read_trials(tmp_path)] == [0, 1], "a reader counts it without writing"
    assert path.read_bytes() == whole[:-1]
    with pytest.warns(UserWarning, match="lacked its newline"):
        again = TrialLog(tmp_path)
    assert [r.trial for r in again.records] == [0, 1]
    assert path.read_bytes() == whole
    again.append(make_record(trial=2))
    assert [r.trial for r in TrialLog(tmp_path).records] == [0, 1, 2]


def test_a_bad_line_in_the_middle_is_corruption_not_skipped(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    log.append(make_record(trial=0))
    path = tmp_path / TRIALS_FILE
    path.write_text(path.read_text() + '{"task_id": "x"}\n' + make_record(trial=1).model_dump_json() + "\n")
    with pytest.raises(RecordCorruptError, match="line 2"):
        TrialLog(tmp_path)


def test_a_trial_is_never_recorded_twice(tmp_path: Path) -> None:
    log = TrialLog(tmp_path)
    log.append(make_record(trial=0))
    with pytest.raises(RecordCorruptError, match="twice"):
        log.append(make_record(trial=0))
    path = tmp_path / TRIALS_FILE
    line = path.read_text()
    other = make_record(trial=1).model_dump_json() + "\n"
    path.write_text(line + other + line)
    again = r"line 3 records trial \('a/b', 'self_diagnosis', 0\) again, after line 1"
    with pytest.raises(RecordCorruptError, match=again):
        TrialLog(tmp_path)


def test_records_carry_a_schema_version(tmp_path: Path) -> None:
    TrialLog(tmp_path).append(make_record())
    stored = json.loads((tmp_path / TRIALS_FILE).read_text())
    assert stored["schema_version"] == SCHEMA_VERSION == 5
    assert stored["trajectory"] == [{"action": "look", "observation": "Nothing happens."}]


def test_a_version_1_record_still_reads_and_a_future_version_is_refused(tmp_path: Path) -> None:
    stored = json.loads(make_record().model_dump_json())
    del stored["reflection_details"]
    (tmp_path / TRIALS_FILE).write_text(json.dumps({**stored, "schema_version": 1}) + "\n")
    [old] = TrialLog(tmp_path).records
    assert old.schema_version == 1 and old.reflection_details is None
    (tmp_path / TRIALS_FILE).write_text(json.dumps({**stored, "schema_version": SCHEMA_VERSION + 1}) + "\n")
    with pytest.raises(RecordCorruptError, match="line 1 is not a valid trial record"):
        TrialLog(tmp_path)


def test_a_version_2_record_without_the_role_split_still_reads_but_a_version_3_one_needs_it(tmp_path: Path) -> None:
    stored = json.loads(make_record().model_dump_json())
    for field in ("actor_usage", "reflector_usage", "retries"):
        del stored[field]
    (tmp_path / TRIALS_FILE).write_text(json.dumps({**stored, "schema_version": 2}) + "\n")
    [old] = TrialLog(tmp_path).records
    assert old.actor_usage is None and old.retries == 0
    (tmp_path / TRIALS_FILE).write_text(json.dumps({**stored, "schema_version": 3}) + "\n")
    with pytest.raises(RecordCorruptError, match="line 1 is not a valid trial record"):
        TrialLog(tmp_path)


def test_a_record_timed_before_engine_waits_were_measured_still_reads(tmp_path: Path) -> None:
    stored = json.loads(make_record().model_dump_json())
    del stored["timing"]["engine_wait_s"]
    (tmp_path / TRIALS_FILE).write_text(json.dumps(stored) + "\n")
    [old] = TrialLog(tmp_path).records
    assert old.timing.engine_wait_s is None
    assert old.model_dump(exclude={"timing"}) == make_record().model_dump(exclude={"timing"})


def test_template_parts_and_parser_signals_round_trip(tmp_path: Path) -> None:
    signals = parse_failures([Step(action="look", observation="Nothing happens.")], "max_steps", max_steps=1)
    parts = TemplateParts(
        raw=" > look -> Nothing happens.\nROOT CAUSE: x\nNEW PLAN: y",
        failed_step="> look -> Nothing happens.",
        root_cause="x",
        new_plan="y",
        matched_step=1,
        malformed=False,
        problems=[],
        policy="skip",
    )
    log = TrialLog(tmp_path)
    extracted = ExtractedSignals(signals=signals, rendered="r")
    log.append(make_record(trial=0).model_copy(update={"reflection_details": extracted}))
    log.append(make_record(trial=1).model_copy(update={"reflection_details": parts}))
    first, second = TrialLog(tmp_path).records
    assert isinstance(first.reflection_details, ExtractedSignals) and first.reflection_details.signals == signals
    assert second.reflection_details == parts


def test_a_whole_last_line_that_fails_validation_is_refused_not_cut_as_torn(tmp_path: Path) -> None:
    """'A whole last line of trials.jsonl is destroyed as "torn"': JSON that fails validation, without its final
    newline (as an editor saves it), is refused like a bad line in the middle, and the file is left as it is."""
    TrialLog(tmp_path).append(make_record(trial=0))
    path = tmp_path / TRIALS_FILE
    edited = {**json.loads(make_record(trial=1).model_dump_json()), "success": "yes, by my judgement"}
    path.write_bytes(path.read_bytes() + json.dumps(edited).encode())
    kept = path.read_bytes()
    refusal = r"line 2 is not a valid trial record \(success: Input should be a valid boolean"
    with pytest.raises(RecordCorruptError, match=refusal):
        read_trials(tmp_path)
    with pytest.raises(RecordCorruptError, match=refusal):
        TrialLog(tmp_path)
    assert path.read_bytes() == kept


def test_an_append_is_checked_against_the_file_as_it_is_not_its_own_keys(tmp_path: Path) -> None:
    """Issue 26, 'Deleting run.lock lets a second writer in': 'an append checks duplicates only against its own
    process's keys'. A second log on the same run appends nothing once the first has written."""
    first = TrialLog(tmp_path)
    first.append(make_record(trial=0))
    second = TrialLog(tmp_path)
    first.append(make_record(trial=1))
    changed = r"trials.jsonl changed since this process last read or wrote it \(it grew"
    with pytest.raises(RecordCorruptError, match=changed):
        second.append(make_record(trial=1))
    assert [r.trial for r in read_trials(tmp_path)] == [0, 1]
