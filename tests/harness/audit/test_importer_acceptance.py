"""Importers on damaged or unusual copies of real published files: a truncated trial file, an emptied memory,
a pickle of a class the test made, and a HotpotQA log with a resumed run appended."""

from __future__ import annotations

import json
import pickle
import re
import shutil
from pathlib import Path

import pytest

from harness.audit import run_audit
from harness.audit.env_results import load_env_results_run
from harness.audit.hotpotqa import load_hotpotqa_dicts, load_hotpotqa_log
from harness.audit.safe_pickle import UnsafePickleError
from harness.audit.source_audit import source_audit
from harness.audit.task_rrr import task_rrrs

LOGS = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs"
MAPPING = LOGS / "alfworld_env_to_game.json"
REFLEXION = "alfworld_runs/root/reflexion_run_logs"
HOTPOT = "hotpotqa_runs/root"

CALLS: list[str] = []


class AgentState:
    """A class an agent pickle could carry: unpickling it would import this module and run __setstate__."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __setstate__(self, state: dict) -> None:
        CALLS.append("setstate")
        state["marker"].touch()
        self.__dict__.update(state)


def _copy(relative: str, logs: Path) -> Path:
    """A real run folder or file, copied to the same place under `logs` (importers read meaning from the path)."""
    target = logs / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    (shutil.copytree if (LOGS / relative).is_dir() else shutil.copy)(LOGS / relative, target)
    return target


def _audit_row(logs: Path, source: str) -> dict:
    report = run_audit(logs, MAPPING).model_dump()
    (row,) = [row for row in report["sources"] if row["source"] == source]
    return row


def test_a_truncated_trial_file_is_named_and_its_run_skipped(tmp_path: Path) -> None:
    run = _copy(REFLEXION, tmp_path)
    cut = run / "env_results_trial_7.json"
    data = cut.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=re.escape(f"{cut} is not complete JSON (truncated or corrupt?)")):
        load_env_results_run(run, "alfworld", REFLEXION)
    report = run_audit(tmp_path, MAPPING)
    assert report.sources == []
    (skipped,) = report.skipped
    assert skipped.source == REFLEXION
    assert skipped.reason.startswith(f"import failed: {cut} is not complete JSON")


def test_a_task_with_an_empty_memory_counts_as_a_task_without_memory(tmp_path: Path) -> None:
    run = _copy(REFLEXION, tmp_path)
    # env_22 froze with 14 reflections; empty its memory in every trial file, as if it never reflected.
    for path in run.glob("env_results_trial_*.json"):
        entries = json.loads(path.read_text())
        (entry,) = [e for e in entries if e["name"] == "env_22"]
        entry["memory"] = []
        path.write_text(json.dumps(entries))
    tasks = load_env_results_run(run, "alfworld", REFLEXION)
    (env_22,) = [t for t in tasks if t.task_id == "env_22"]
    assert env_22.reflections == []
    (rated,) = task_rrrs([env_22])
    assert (rated.reflections, rated.rrr, rated.frozen) == (0, None, False)
    row = _audit_row(tmp_path, REFLEXION)
    # The shipped run: 134 tasks, 50 with memory, 31 with RRR, 16 frozen (test_audit_command).
    assert (row["n_tasks"], row["n_with_memory"], row["n_with_rrr"], row["n_frozen"]) == (134, 49, 30, 15)
    assert row["frozen_ratio_over_memory"] == pytest.approx(15 / 49)


def test_empty_memories_of_the_shipped_run_are_tasks_but_not_memory() -> None:
    tasks = load_env_results_run(LOGS / REFLEXION, "alfworld", REFLEXION)
    empty = [t for t in tasks if not t.reflections]
    assert len(empty) == 84 and all(r.rrr is None and not r.frozen for r in task_rrrs(empty))
    row = source_audit("alfworld", REFLEXION, task_rrrs(empty[:3] + [t for t in tasks if t.task_id == "env_22"]))
    assert (row.n_tasks, row.n_with_memory, row.n_with_rrr, row.n_frozen) == (4, 1, 1, 1)


def test_a_pickle_of_a_class_the_test_made_is_refused_by_name_and_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "setstate_ran"
    path = tmp_path / "logs" / HOTPOT / "ReAct" / "reflexion" / "made_dicts.joblib"
    path.parent.mkdir(parents=True)
    agents = [{"question": "Q?", "reflections": "[]", "key": "A", "state": AgentState(marker)}]
    path.write_bytes(pickle.dumps(agents, protocol=4))
    class_name = f"{AgentState.__module__}.AgentState"
    CALLS.clear()
    with pytest.raises(UnsafePickleError) as refused:
        load_hotpotqa_dicts(path)
    assert refused.value.class_name == class_name
    report = run_audit(tmp_path / "logs", MAPPING)
    (skipped,) = report.skipped
    assert skipped.source == f"{HOTPOT}/ReAct/reflexion/made_dicts.joblib"
    assert f"pickles {class_name}, which the restricted unpickler refuses" in skipped.reason
    assert "nothing was constructed or run" in skipped.reason
    assert CALLS == [] and not marker.exists()


# A bulleted ReAct log, an inline CoT log, and a run whose memory is rebuilt from every trial.
RESUMABLE = [
    f"{HOTPOT}/ReAct/reflexion/100_questions_5_trials.txt",
    f"{HOTPOT}/CoT/no_context/reflexion/100_questions_5_trials.txt",
    f"{HOTPOT}/CoT/no_context/last_trial_and_reflexion/100_questions_5_trials.txt",
]


def _last_blocks(text: str, count: int) -> str:
    """The last `count` trial blocks, each from its `####` line to the next one, as the log prints them."""
    starts = [match.start() for match in re.finditer(r"^#+\nBEGIN TRIAL \d+$", text, re.MULTILINE)]
    return text[starts[-count] :]


@pytest.mark.parametrize("relative", RESUMABLE)
@pytest.mark.parametrize("blocks", [1, 2])
def test_a_resumed_run_appending_its_last_trials_again_counts_nothing_twice(
    tmp_path: Path, relative: str, blocks: int
) -> None:
    log = _copy(relative, tmp_path)
    text = log.read_text()
    appended = _last_blocks(text, blocks)
    last = int(re.findall(r"^BEGIN TRIAL (\d+)$", text, re.MULTILINE)[-1])
    assert re.findall(r"^BEGIN TRIAL (\d+)$", appended, re.MULTILINE) == [
        str(n) for n in range(last - blocks + 1, last + 1)
    ]
    log.write_text(text + appended)
    original = load_hotpotqa_log(LOGS / relative, relative)
    resumed = load_hotpotqa_log(log, relative)
    assert resumed == original
    assert sum(len(t.reflections) for t in resumed) == sum(len(t.reflections) for t in original)
    row = _audit_row(tmp_path, relative)
    assert row["n_tasks"] == 100
    assert row["n_with_memory"] == sum(bool(t.reflections) for t in original)


def test_a_resumed_trial_printed_again_with_other_reflections_is_refused(tmp_path: Path) -> None:
    relative = RESUMABLE[0]
    log = _copy(relative, tmp_path)
    text = log.read_text()
    # The resumed run wrote trial 5 again after reflecting once more: its prompts carry one more reflection.
    again = _last_blocks(text, 1).replace("Reflections:\n- ", "Reflections:\n- One more reflection.\n- ", 1)
    log.write_text(text + again)
    with pytest.raises(ValueError, match="is printed twice in trial 5 with different content"):
        load_hotpotqa_log(log, relative)
    report = run_audit(tmp_path, MAPPING)
    (skipped,) = report.skipped
    assert skipped.source == relative and "printed twice in trial 5" in skipped.reason
