"""An installed plugin that misbehaves is the plugin's failure, named in one sentence, never the harness's end:
one that ends the process as it is imported, one that raises KeyboardInterrupt as it is imported, one whose import
fails with escape bytes in its message, one whose source returns something other than a Reflection
(tests/plugins/reflexion_plugin_misbehaving, installed for real); and a source from outside the harness whose
reflect() raises (registered from here).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from harness.domains.base import ReflectionHooks, ReflectionInput
from harness.llm.metering import MeteredLLM
from harness.records import read_manifest, read_trials
from harness.reflection import (
    SOURCES,
    Reflection,
    ReflectionSource,
    SourceOutputError,
    checked_reflection,
    register_source,
)
from tests.plugins.install import install_plugin
from tests.runner import ROOT, run_cli, run_process

PLUGIN = ROOT / "tests" / "plugins" / "reflexion_plugin_misbehaving"
HOTPOTQA_CACHE = ROOT / "tests" / "fixtures" / "hotpotqa" / "llm_cache.jsonl"
# One HotpotQA question the demo's model gets wrong at first, replayed: two trials, a reflection between them.
ONE_QUESTION = (
    "experiment=hotpotqa_demo",
    "strategy=self_diagnosis",
    "env.questions=[5a7613c15542994ccc9186bf]",
    "experiment.trials=2",
    "llm.cache.mode=replay",
    f"llm.cache.path={HOTPOTQA_CACHE}",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugin(PLUGIN, tmp_path_factory.mktemp("misbehaving"))


def test_a_plugin_that_calls_sys_exit_at_import_is_left_out_with_a_warning_and_the_run_plays(
    site: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    result = run_process(*ONE_QUESTION, f"hydra.run.dir={run}", env={"PYTHONPATH": str(site)})
    assert result.returncode == 0, result.stderr
    manifest = read_manifest(run)
    assert manifest is not None and manifest.status == "finished"
    assert {(r.condition, r.trial) for r in read_trials(run)} == {("self_diagnosis", 0), ("self_diagnosis", 1)}
    # Listing every source (to refuse a misspelled one) imports the plugin: it is warned about and left out.
    refused = run_process(*ONE_QUESTION, "+strategy.x.source=quit", f"hydra.run.dir={tmp_path / 'refused'}",
                          env={"PYTHONPATH": str(site)})
    assert refused.returncode == 2, refused.stderr
    assert (
        "reflection source 'quits' could not be loaded from 'reflexion_plugin_misbehaving.quits:Quits': it called "
        "sys.exit(0) as it was imported." in refused.stderr
    )
    # 'A module raising KeyboardInterrupt at import is reported as the user's Ctrl-C' ("interrupted: stopped at once").
    assert (
        "reflection source 'interrupts' could not be loaded from 'reflexion_plugin_misbehaving.interrupts:Interrupts': "
        "it raised KeyboardInterrupt as it was imported, with no Ctrl-C pressed." in refused.stderr
    )
    assert refused.stderr.strip().splitlines()[-1].startswith(
        "error: strategy.x.source = 'quit' is not a reflection source; accepted: gated, grounded_template,"
    )
    assert "quits" not in refused.stderr.strip().splitlines()[-1]
    assert "interrupted" not in refused.stderr


def test_a_plugin_import_failure_is_warned_with_its_escape_bytes_shown_and_choosing_it_says_why(
    site: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    result = run_process(*ONE_QUESTION, "+strategy.g.source=garbled", f"hydra.run.dir={run}",
                         env={"PYTHONPATH": str(site)})
    assert result.returncode == 2, result.stderr
    assert "\x1b" not in result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("error: strategy.g.source = 'garbled' cannot be used: reflection source 'garbled' could")
    assert "needs \u241b[2J\u241b[31mfancy_dependency\u241b[0m" in error
    assert "Traceback" not in result.stderr
    assert not run.exists()


def test_a_plugin_source_returning_the_wrong_type_ends_the_run_with_one_sentence_and_keeps_its_records(
    site: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    result = run_process(*ONE_QUESTION, "+strategy.w.source=wrong_type", f"hydra.run.dir={run}",
                         env={"PYTHONPATH": str(site)})
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error == (
        "error: reflection source 'wrong_type' (condition w) returned a str for task 5a7613c15542994ccc9186bf "
        "trial 0, not a harness.reflection.Reflection; its reflect() must return one."
    )
    assert ("self_diagnosis", 0) in {(r.condition, r.trial) for r in read_trials(run)}


@register_source("raises_in_test")
class _Raises(ReflectionSource):
    """A source from outside the harness whose reflect() raises, its message holding terminal escape sequences."""

    def reflect(self, trial: ReflectionInput, domain: ReflectionHooks, llm: MeteredLLM) -> Reflection:
        raise RuntimeError("the critic is down \x1b[2J\x1b[31mbadly\x1b[0m")


def test_a_source_from_outside_whose_reflect_raises_ends_the_run_with_one_sentence_and_keeps_its_records(
    tmp_path: Path,
) -> None:
    """'A source whose reflect() raises gives Hydra's traceback with the exception's raw ESC sequences.'"""
    run = tmp_path / "run"
    try:
        result = run_cli(*ONE_QUESTION, "+strategy.r.source=raises_in_test", f"hydra.run.dir={run}")
    finally:
        SOURCES.unregister("raises_in_test")
    assert result.returncode == 2, result.stderr
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "error: reflection source 'raises_in_test' (condition r) raised RuntimeError on task 5a7613c15542994ccc9186bf "
        "trial 0: the critic is down \u241b[2J\u241b[31mbadly\u241b[0m; it is the source's failure, not the harness's."
    )
    assert ("self_diagnosis", 0) in {(r.condition, r.trial) for r in read_trials(run)}


@pytest.mark.parametrize("thrown", [SystemExit(0), KeyboardInterrupt()], ids=["sys.exit(0)", "KeyboardInterrupt"])
def test_a_source_from_outside_that_exits_on_a_trial_thread_is_its_failure_not_the_runs_end(
    thrown: BaseException,
) -> None:
    """sys.exit(0) in reflect() on a trial's thread would end the run with exit 0 and no word; a KeyboardInterrupt
    there is never the user's Ctrl-C (signals reach the main thread only)."""

    def reflect() -> Reflection:
        raise thrown

    caught: list[BaseException] = []

    def play() -> None:
        try:
            checked_reflection(reflect, _Raises(memory_window=3), "r", "task-1", 0)
        except BaseException as error:
            caught.append(error)

    thread = threading.Thread(target=play)
    thread.start()
    thread.join()
    (error,) = caught
    assert isinstance(error, SourceOutputError)
    assert str(error).startswith(f"reflection source 'raises_in_test' (condition r) raised {type(thrown).__name__}")
