"""Malformed command lines and configs: each stops with one `error:` sentence naming the bad value and what
is accepted, exit code 2, no traceback, and nothing written anywhere."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.runner import ROOT, run_cli



class Case(NamedTuple):
    """One malformed invocation; `{tmp}` and `{port}` in args and needles are filled in per test."""

    args: tuple[str, ...]
    needles: tuple[str, ...]
    env: dict[str, str] = {}


CASES = {
    # h5 hostile try: "hydra.run.dir=/tmp/ünï-日本 is refused with advice to quote spaces or commas, though it holds
    # neither; quoted, it works"
    "a non-ASCII path unquoted": Case(
        ("hydra.run.dir={tmp}/ünï-日本",), ("is not an override Hydra can read", "non-ASCII letters in quotes")
    ),
    "unknown strategy": Case(("strategy=nope",), ("strategy=nope", "accepted: ", "self_diagnosis")),
    "unknown env": Case(("env=nope",), ("env=nope", "accepted: alfworld, hotpotqa, humaneval")),
    "unknown model": Case(("model=nope",), ("model=nope", "accepted: ", "qwen2.5-coder-1.5b")),
    "trials not a number": Case(("experiment.trials=abc",), ("experiment.trials = 'abc'", "valid integer")),
    "zero trials": Case(("experiment.trials=0",), ("experiment.trials = 0", "greater than or equal to 1")),
    "negative step budget": Case(("env.max_steps=-1",), ("env.max_steps = -1", "greater than or equal to 1")),
    "zero concurrency": Case(
        ("experiment.max_concurrency=0",), ("experiment.max_concurrency = 0", "greater than or equal to 1")
    ),
    "negative memory window": Case(
        ("strategy.self_diagnosis.memory_window=-1",),
        ("strategy.self_diagnosis.memory_window = -1", "greater than or equal to 0"),
    ),
    "filters select no game": Case(
        ("env.set=smoke", "env.task_types=[cool]"), ("env.task_types=['cool']", "env.set=smoke", "select no game")
    ),
    "zero games": Case(("env.first_n=0",), ("env.first_n = 0", "greater than or equal to 1")),
    "unknown game": Case(
        ("env.games=[pick_and_place_simple-Unicorn-None-Desk-308]",),
        ("'pick_and_place_simple-Unicorn-None-Desk-308'", "accepted: ", "pick_and_place_simple-Mug-None-Desk-308"),
    ),
    "unknown game set": Case(("env.set=nope",), ("'nope'", "demo, frozen_published, smoke")),
    "unknown task type": Case(("env.set=null", "env.task_types=[boil]"), ("'boil'", "accepted: ", "cool")),
    "no games in data dir": Case(("env.data_dir={tmp}/no-data",), ("env.data_dir={tmp}/no-data", "env.data_dir=null")),
    "unknown HumanEval id": Case(
        ("env=humaneval", "env.problems=[HumanEval/999]"), ("'HumanEval/999'", "'HumanEval/0'")
    ),
    "zero threads": Case(("llm.n_threads=0",), ("llm.n_threads = 0", "greater than or equal to 1")),
    "model setting out of range": Case(("model.n_ctx=8",), ("model.n_ctx = 8", "greater than or equal to 16")),
    "no model": Case(("~model",), ("model = None is invalid",)),
    "negative seed": Case(("experiment.seed=-1",), ("experiment.seed = -1", "greater than or equal to 0")),
    "no strategy": Case(("strategy=[]",), ("strategy=[] chooses no strategy",)),
    # "llm.cache.path='${oc.env:UNSET}' gives a traceback, exit 1 and an empty run directory"
    "unresolvable interpolation": Case(
        ("llm.cache.path=${{oc.env:HARNESS_TEST_UNSET}}",),
        ("llm.cache.path = '${{oc.env:HARNESS_TEST_UNSET}}' cannot be resolved", "HARNESS_TEST_UNSET"),
    ),
    # "env.translation_cache set to a file or /dev/null is silently ignored"
    "translation cache is a device": Case(
        ("env.translation_cache=/dev/null",), ("env.translation_cache = '/dev/null'", "not a folder")
    ),
    # "llm.cache.path pointing at a trials.jsonl gets advice for a cache"
    "cache path names a run's records": Case(
        ("llm.cache.path={tmp}/old-run/trials.jsonl",), ("names a run's trials.jsonl, not a cache", "llm_cache.jsonl")
    ),
    "zero repeats": Case(("experiment.repeats=0",), ("experiment.repeats = 0", "greater than or equal to 1")),
    "negative temperature": Case(
        ("sampling.actor.temperature=-0.5",), ("sampling.actor.temperature = -0.5", "greater than or equal to 0")
    ),
    # h5 hostile try: "sampling.actor.temperature=true is accepted and recorded as temperature 1.0"
    "a boolean temperature": Case(
        ("sampling.actor.temperature=true",), ("sampling.actor.temperature = True", "valid number")
    ),
    # "temperature=nan is refused as 'should be <= 2' (say it is not a number)"
    "a temperature that is not a number": Case(
        ("sampling.actor.temperature=nan",), ("sampling.actor.temperature = nan is invalid: nan is not a number",)
    ),
    "a top_p that is not a number": Case(
        ("sampling.reflector.top_p=nan",), ("sampling.reflector.top_p = nan is invalid: nan is not a number",)
    ),
    "a timeout that is not a number": Case(("model.timeout_s=nan",), ("model.timeout_s = nan is invalid: nan is not",)),
    "a boolean top_p": Case(("sampling.reflector.top_p=false",), ("sampling.reflector.top_p = False", "valid number")),
    "top_p above 1": Case(("sampling.reflector.top_p=1.5",), ("sampling.reflector.top_p = 1.5", "less than or equal")),
    "frozen threshold above 1": Case(
        ("metrics.frozen_threshold=2",), ("metrics.frozen_threshold = 2", "less than or equal to 1")
    ),
    "a setting of a condition not chosen": Case(
        ("strategy.model_swap.actor_model=gpt-4o-mini",), ("strategy.model_swap.actor_model is set", "not among")
    ),
    "an option of a source without options": Case(
        ("strategy.self_diagnosis.options.foo=1",), ("strategy.self_diagnosis.options has no settings",)
    ),
    "base URL not a URL": Case(
        ("model=openai-compatible", "model.base_url=not-a-url"), ("model.base_url = 'not-a-url'", "http://")
    ),
    "bad cache mode": Case(("llm.cache.mode=bogus",), ("llm.cache.mode = 'bogus'", "'off', 'record', 'replay'")),
    # "insights.folds has no bound: 100,000 folds on 4 tasks prints 99,996 lines; 10^9 ends in MemoryError"
    "more folds than tasks": Case(
        ("experiment=hotpotqa_insights_plant", "insights.folds=100000", "llm.cache.mode=replay",
         "llm.cache.path=tests/fixtures/insights_plant/llm_cache.jsonl"),
        ("insights.folds = 100000 is invalid: the run has 6 task(s)", "accepted: 2 to 6"),
    ),  # fmt: skip
    "replay without a cache file": Case(
        ("llm.cache.mode=replay", "llm.cache.path={tmp}/absent.jsonl"),
        ("llm.cache.path={tmp}/absent.jsonl does not exist", "llm.cache.mode=auto"),
    ),
    "missing API key": Case(
        ("model=openai-compatible", "model.api_key_env=HARNESS_TEST_ABSENT_KEY"),
        ("HARNESS_TEST_ABSENT_KEY is not set", "HARNESS_TEST_ABSENT_KEY=none"),
    ),
    "unreachable base URL": Case(
        ("model=openai-compatible", "model.base_url=http://127.0.0.1:{port}/v1"),
        ("cannot be reached", "GET http://127.0.0.1:{port}/v1/models", "model.base_url"),
        {"OPENAI_API_KEY": "dummy", "NO_PROXY": "127.0.0.1,localhost"},
    ),
    "unknown key": Case(("+experiment.tirals=3",), ("experiment.tirals is not a known setting", "experiment.trials")),
    "misspelled key": Case(("experiment.tirals=3",), ("experiment.tirals is not a known setting", "experiment.trials")),
    "misspelled section": Case(("experiemnt.trials=3",), ("experiemnt.trials", "closest is experiment.trials")),
    "misspelled model key": Case(("model.timout_s=3",), ("model.timout_s", "closest is model.timeout_s")),
    "unknown top-level key": Case(("+tirals=3",), ("tirals is not a known setting", "at the top level")),
    "override Hydra cannot read": Case(("experiment.trials=[1,2",), ("'experiment.trials=[1,2'", "key=value")),
    "override without a value": Case(("experiment.trials",), ("'experiment.trials'", "key=value")),
    "trials a boolean": Case(("experiment.trials=true",), ("experiment.trials = True", "valid integer")),
    "first_n a boolean": Case(("env.first_n=true",), ("env.first_n = True", "valid integer")),
    "step budget a float": Case(("env.max_steps=2.5",), ("env.max_steps = 2.5", "valid integer")),
    "game set as a path": Case(("env.set=../sets/smoke",), ("'../sets/smoke'", "demo, frozen_published, smoke")),
    "cache path a directory": Case(
        ("llm.cache.mode=auto", "llm.cache.path={tmp}"), ("llm.cache.path={tmp} is a directory", "llm_cache.jsonl")
    ),
    "cache path a device": Case(
        ("llm.cache.mode=record", "llm.cache.path=/dev/null"),
        ("llm.cache.path=/dev/null is not a regular file", "results/llm_cache.jsonl"),
    ),
    "replayed cache path a device": Case(
        ("llm.cache.mode=replay", "llm.cache.path=/dev/null"), ("llm.cache.path=/dev/null is not a regular file",)
    ),
    "resume flag not a boolean": Case(
        ("+resume.allow_config_change=maybe",), ("resume.allow_config_change = 'maybe'", "valid boolean")
    ),
    "invalid gate store": Case(("gate", "show", "{tmp}/not/a/store"), ("{tmp}/not/a/store is not a gate store",)),
}


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def files_under(root: Path) -> list[Path]:
    return sorted(root.rglob("*"))


def assert_one_sentence(stderr: str, needles: list[str]) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    message = lines[0].removeprefix("error: ")
    assert message != lines[0], lines[0]
    assert message.endswith("."), message
    assert not re.search(r"\.\s+[A-Z]", message), f"more than one sentence: {message}"
    for needle in needles:
        assert needle in message, message


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_is_one_sentence_and_writes_nothing(tmp_path: Path, case: Case) -> None:
    fill = {"tmp": str(tmp_path), "port": str(closed_port())}
    args = [arg.format(**fill) for arg in case.args]
    needles = [needle.format(**fill) for needle in case.needles]
    before = files_under(tmp_path)
    run_dir = tmp_path / "run"
    if args[0] == "gate":
        result = subprocess.run(
            [sys.executable, "-m", "harness.cli.gate", *args[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
    else:
        if not any(arg.startswith("llm.cache.path=") for arg in args):
            args.append(f"llm.cache.path={tmp_path}/cache/llm_cache.jsonl")  # so a stray mkdir would show here
        result = run_cli(*args, f"hydra.run.dir={run_dir}", env={**case.env})
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert_one_sentence(result.stderr, needles)
    assert not run_dir.exists()
    assert files_under(tmp_path) == before
