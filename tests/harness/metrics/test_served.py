"""Drift of the served model or fingerprint, found from the records' calls."""

from __future__ import annotations

from harness.metrics.served import served_drift
from harness.records import TrialRecord
from harness.records.calls import ModelCall
from tests.harness.factories import make_record


def call(role: str, model: str | None, fingerprint: str | None = None, finish: str | None = "stop") -> ModelCall:
    return ModelCall(
        role=role,  # type: ignore[arg-type]
        key="k",
        cached=False,
        backend="openai/chat:gpt-4o-mini",
        served_model=model,
        system_fingerprint=fingerprint,
        finish_reason=finish,
        temperature=0.0,
    )


def with_calls(trial: int, task: str, *calls: ModelCall, condition: str = "self_diagnosis") -> TrialRecord:
    return make_record(trial, "plan", task=task, condition=condition).model_copy(update={"calls": list(calls)})


def test_a_steady_server_is_no_drift_and_an_unsaid_value_is_no_change() -> None:
    records = [
        with_calls(0, "a", call("actor", "gpt-4o-mini-2024-07-18", "fp_1"), call("reflector", "gpt-4o-mini-2024-07-18")),
        with_calls(1, "a", call("actor", "gpt-4o-mini-2024-07-18", None), call("reflector", None, "fp_1")),
    ]
    assert served_drift(records) == []


def test_a_model_changed_mid_run_is_named_with_its_values_and_first_trial() -> None:
    records = [
        with_calls(1, "b", call("actor", "m-0125", "fp_2")),  # logged first, played later: trial order decides
        with_calls(0, "a", call("actor", "m-0613", "fp_1"), call("reflector", "m-0613", "fp_1")),
        with_calls(0, "b", call("actor", "m-0613", "fp_1")),
        with_calls(1, "a", call("actor", "m-0125", "fp_1"), call("reflector", "m-0613", "fp_1")),
        with_calls(0, "a", call("actor", "other"), condition="no_memory"),
    ]
    drifts = served_drift(records)
    assert [(d.condition, d.role, d.field, d.values, d.first_trial, d.first_task) for d in drifts] == [
        ("self_diagnosis", "actor", "served_model", ["m-0613", "m-0125"], 1, "b"),
        ("self_diagnosis", "actor", "system_fingerprint", ["fp_1", "fp_2"], 1, "b"),
    ]
    assert drifts[0].sentence() == (
        "self_diagnosis, actor: the served model changed mid-run, from 'm-0613' to 'm-0125', first in trial 1 (task b)."
    )
