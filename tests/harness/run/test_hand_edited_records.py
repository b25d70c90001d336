"""Hand edits that validate as pydantic reads them but change what a run stands on: a key given twice in a
record, a manifest whose data hashes are not those of the data the harness reads now."""

from __future__ import annotations

import json
from pathlib import Path

from harness.records import MANIFEST_FILE, TRIALS_FILE, read_manifest, write_manifest
from tests.runner import one_error_line, run_cli
from tests.small_run import SMALL_RUN, snapshot


def test_a_record_with_a_key_twice_is_refused_not_counted_as_its_last_value(copy: Path) -> None:
    """'A record line given a duplicate key ..., "success": true} (the trial failed ...) Accepted; summary, metrics
    and report count solved 1/1.'"""
    trials = copy / TRIALS_FILE
    first, second = trials.read_text().splitlines()
    assert json.loads(first)["success"] is False
    trials.write_text(first[:-1] + ', "success": true}\n' + second + "\n")
    before = snapshot(copy)
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={copy}")
    assert result.returncode == 2, result.stderr
    error = one_error_line(result.stderr)
    assert error.startswith(f"error: {trials} line 1 is not a valid trial record (the key 'success' appears twice"), error
    assert snapshot(copy) == before


def with_prompts_hashed(run_dir: Path, digest: str) -> None:
    manifest = read_manifest(run_dir)
    assert manifest is not None and "prompts" in manifest.data_hashes
    write_manifest(run_dir, manifest.model_copy(update={"data_hashes": {**manifest.data_hashes, "prompts": digest}}))


def test_a_resume_on_other_prompts_than_the_manifest_hashed_is_refused_unless_allowed_and_then_recorded(
    copy: Path,
) -> None:
    """'Manifest data_hashes.games and .prompts set to other values, then resume: rc 0, no word about it; the
    manifest's hashes are overwritten with the current ones.'"""
    current = read_manifest(copy)
    assert current is not None
    other = "1" * 64
    with_prompts_hashed(copy, other)
    before = snapshot(copy)
    result = run_cli(*SMALL_RUN, f"hydra.run.dir={copy}")
    assert result.returncode == 2, result.stderr
    error = one_error_line(result.stderr)
    assert "played on other data" in error and f"data_hashes.prompts={other[:12]}..., not" in error, error
    assert "+resume.allow_config_change=true" in error
    assert snapshot(copy) == before

    allowed = run_cli(*SMALL_RUN, "+resume.allow_config_change=true", f"hydra.run.dir={copy}")
    assert allowed.returncode == 0, allowed.stderr
    resumed = json.loads((copy / MANIFEST_FILE).read_text())
    assert resumed["data_hashes"] == current.data_hashes
    assert {"setting": "data_hashes.prompts", "was": other, "now": current.data_hashes["prompts"]} in resumed[
        "config"
    ]["resume"]["changes"]
    again = run_cli(*SMALL_RUN, "+resume.allow_config_change=true", f"hydra.run.dir={copy}")
    assert again.returncode == 0, again.stderr
    assert json.loads((copy / MANIFEST_FILE).read_text())["config"]["resume"]["changes"] == resumed["config"][
        "resume"
    ]["changes"], "a change recorded once is not recorded again"
