"""Restricted unpickler: builtin data loads; os.system, any class, compressed or truncated files are refused."""

from __future__ import annotations

import os
import pickle
import zlib
from pathlib import Path

import pytest

from harness.audit.safe_pickle import UnreadablePickleError, UnsafePickleError, load_restricted_pickle

LOGS = Path(__file__).resolve().parents[3] / "data" / "reflexion-logs"
HOTPOT = LOGS / "hotpotqa_runs" / "root"

CALLS: list[str] = []


def record_call(message: str) -> str:
    """What a malicious pickle would run; the tests check it never is."""
    CALLS.append(message)
    return message


class Payload:
    """An arbitrary class: unpickling it would run its module's code and its __setstate__."""

    def __init__(self) -> None:
        self.value = "x"

    def __setstate__(self, state: dict) -> None:
        CALLS.append("setstate")
        self.__dict__.update(state)


class RunsSystem:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple:
        return (os.system, (self.command,))


class CallsRecorder:
    def __reduce__(self) -> tuple:
        return (record_call, ("executed",))


@pytest.fixture(autouse=True)
def _no_calls() -> None:
    CALLS.clear()


def _dump(path: Path, obj: object, protocol: int = 4) -> Path:
    path.write_bytes(pickle.dumps(obj, protocol=protocol))
    return path


def test_os_system_is_refused_and_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = _dump(tmp_path / "evil.joblib", RunsSystem(f"touch {marker}"))
    with pytest.raises(UnsafePickleError) as refused:
        load_restricted_pickle(path)
    # os.system is pickled under its defining module: posix on Linux, nt on Windows.
    assert refused.value.class_name == f"{os.system.__module__}.system"
    assert str(path) in str(refused.value) and f"{os.system.__module__}.system" in str(refused.value)
    assert not marker.exists()


def test_handwritten_protocol_0_global_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pkl"
    path.write_bytes(b"\x80\x02cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR.")
    with pytest.raises(UnsafePickleError, match=r"pickles os\.system"):
        load_restricted_pickle(path)
    assert not marker.exists()


def test_an_arbitrary_class_is_refused_by_name(tmp_path: Path) -> None:
    path = _dump(tmp_path / "agent.joblib", [{"agent": Payload()}])
    with pytest.raises(UnsafePickleError) as refused:
        load_restricted_pickle(path)
    assert refused.value.class_name == f"{Payload.__module__}.Payload"
    assert "nothing was constructed or run" in str(refused.value)
    assert CALLS == []


def test_a_function_call_is_refused_before_it_runs(tmp_path: Path) -> None:
    with pytest.raises(UnsafePickleError, match=r"\.record_call"):
        load_restricted_pickle(_dump(tmp_path / "call.joblib", {"x": CallsRecorder()}))
    assert CALLS == []


@pytest.mark.parametrize("protocol", [4, 5])
def test_builtin_data_loads(tmp_path: Path, protocol: int) -> None:
    data = [
        {"question": "q", "reflections": "['a', 'b']", "n": 3, "score": 0.5, "ok": True, "none": None},
        ("tuple", b"bytes", {1, 2}, frozenset({"f"})),
    ]
    assert load_restricted_pickle(_dump(tmp_path / "data.joblib", data, protocol)) == data


def test_sets_of_old_protocols_need_a_global_and_are_refused(tmp_path: Path) -> None:
    # Protocols < 4 rebuild a set by calling Python 2's __builtin__.set; only protocol 4+ has a set opcode.
    with pytest.raises(UnsafePickleError, match=r"__builtin__\.set"):
        load_restricted_pickle(_dump(tmp_path / "set.pkl", {1, 2}, protocol=2))


def test_plain_pickle_load_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _dump(tmp_path / "data.joblib", [{"a": "b"}])

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("pickle.load/loads must not be called")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    assert load_restricted_pickle(path) == [{"a": "b"}]


def test_truncated_pickle_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "cut.joblib"
    path.write_bytes(pickle.dumps([{"a": "b" * 100}], protocol=4)[:-20])
    with pytest.raises(UnreadablePickleError, match="truncated or corrupt"):
        load_restricted_pickle(path)


def test_compressed_joblib_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "zipped.joblib"
    path.write_bytes(zlib.compress(pickle.dumps([{"a": "b"}], protocol=4)))
    with pytest.raises(UnreadablePickleError, match=r"not a protocol 2\+ pickle header"):
        load_restricted_pickle(path)


@pytest.mark.parametrize(
    ("name", "class_name"),
    [
        ("ReAct/base/base_agents.joblib", "react.ReactReflectAgent"),
        ("ReAct/reflexion/agent_dicts", "langchain.prompts.prompt.PromptTemplate"),
        ("CoT/context/last_trial/100_questions_5_trials/0.joblib", "react_cls.CoTAgent"),
        ("CoT/no_context/last_trial/100_questions_6_trials/99.joblib", "react_cls.CoTAgent"),
    ],
)
def test_shipped_agent_pickles_are_refused(name: str, class_name: str) -> None:
    with pytest.raises(UnsafePickleError) as refused:
        load_restricted_pickle(HOTPOT / name)
    assert refused.value.class_name == class_name


def test_shipped_two_byte_pickle_is_unreadable() -> None:
    path = (
        LOGS
        / "_other_commits/5c151a69b82e68f20318beee9f58f884b77f1b41/hotpotqa_runs/root/ReAct/claude/reflexion/agents/0.joblib"
    )
    assert path.read_bytes() == b"\x80\x04"
    with pytest.raises(UnreadablePickleError):
        load_restricted_pickle(path)


def test_shipped_dicts_load_as_plain_data() -> None:
    agents = load_restricted_pickle(HOTPOT / "ReAct/base/base_react_dicts.joblib")
    assert isinstance(agents, list) and len(agents) == 100
    assert all(isinstance(v, str) for agent in agents for v in agent.values())
    assert agents[0]["question"] == "VIVA Media AG changed it's name in 2004. What does their new acronym stand for?"
