"""A plugin from outside the harness, installed for real: its entry points alone add reflection sources (one with its
own prompts per domain and its own evidence kind and renderer), a backend, a domain and an audit loader, and
`python run.py` plays runs with the sources and the backend.

tests/plugins/reflexion_plugin_example is installed with pip (no network: --no-index, --no-deps, the installed
setuptools) into a temporary target put on PYTHONPATH, so its entry points are real distribution metadata.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.records import read_manifest, read_trials
from tests.plugins.install import install_plugin
from tests.runner import ROOT, run_process

PLUGIN = ROOT / "tests" / "plugins" / "reflexion_plugin_example"
QUESTION = "5a7613c15542994ccc9186bf"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin installed into a fresh target directory."""
    return install_plugin(PLUGIN, tmp_path_factory.mktemp("plugin"))


def python(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_each_group_finds_the_plugins_entry_and_only_with_it_installed(site: Path) -> None:
    code = """
import json
from harness.audit.sources import LOADERS
from harness.domains.registry import domain_names
from harness.llm._backend import available_backends
from harness.reflection import available_sources, get_source
print(json.dumps({"sources": available_sources(), "backends": available_backends(), "domains": domain_names(),
                  "loaders": LOADERS.names(), "echo": get_source("echo").__module__}))
"""
    result = python(site, code)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert "echo" in found["sources"] and found["echo"] == "reflexion_plugin_example.source"
    assert found["backends"] == ["echo", "llamacpp", "openai"]
    assert found["domains"] == ["alfworld", "hotpotqa", "humaneval", "sums"]
    assert "programming_console_log" in found["loaders"]
    without = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert without.returncode != 0 and "unknown reflection source 'echo'; accepted: gated" in without.stderr


def test_run_py_plays_a_condition_of_the_plugins_source_on_the_plugins_backend(site: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = run_process(
        "env=hotpotqa",
        f"env.questions=[{QUESTION}]",
        "experiment.trials=2",
        "strategy=no_memory",
        "+strategy.echo.source=echo",
        "model=openai-compatible",
        "model.backend=echo",
        "llm.cache.mode=off",
        f"hydra.run.dir={run}",
        env={"PYTHONPATH": str(site)},
    )
    assert result.returncode == 0, result.stderr
    records = {(r.condition, r.trial): r for r in read_trials(run)}
    assert set(records) == {(c, t) for c in ("no_memory", "echo") for t in (0, 1)}
    assert all(call.backend == "echo:local-model" for r in records.values() for call in r.calls)
    lesson = records[("echo", 0)].reflection
    assert lesson is not None and lesson.startswith("Echo lesson")
    # The lesson reached the next trial's memory, and the backend answered differently for it.
    assert records[("echo", 1)].memory == [lesson]
    assert [records[(c, 1)].attempt_details.answer for c in ("no_memory", "echo")] == ["echo", "remembered"]
    manifest = read_manifest(run)
    assert manifest is not None
    assert [c["source"] for c in manifest.config["conditions"]] == ["no_memory", "echo"]


def test_the_plugins_critic_asks_its_own_prompt_per_domain_and_its_evidence_is_kept_and_shown(
    site: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    result = run_process(
        "env=hotpotqa", f"env.questions=[{QUESTION}]", "experiment.trials=2", "strategy=no_memory",
        "+strategy.critic.source=critic", "model=openai-compatible", "model.backend=echo", "llm.cache.mode=off",
        f"hydra.run.dir={run}", env={"PYTHONPATH": str(site)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Read as written: this process has no plugin, so it knows no `critic` kind.
    lines = [json.loads(line) for line in (run / "trials.jsonl").read_text().splitlines()]
    critic = {line["trial"]: line for line in lines if line["condition"] == "critic"}
    notes = critic[0]["reflection_details"]
    assert notes["kind"] == "critic" and notes["asked"].startswith("Critic on a question (HotpotQA):")
    assert critic[0]["reflection"] == f"Critic lesson: {notes['answered']}"
    assert critic[1]["memory"] == [critic[0]["reflection"]]
    page = (run / "report.html").read_text()
    assert "the critic&#x27;s notes" in page or "the critic's notes" in page
    # The same source on the plugin's own domain asks that domain's prompt.
    code = """
from harness.reflection import source_prompts
print(source_prompts("critic", "sums").opening)
try:
    source_prompts("critic", "alfworld")
except ValueError as error:
    print(error)
"""
    asked = python(site, code)
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.splitlines() == [
        "Critic on a sum:", "no prompts are registered for critic on alfworld; registered: critic/hotpotqa, critic/sums"
    ]


def test_a_misspelled_plugin_backend_is_refused_with_every_accepted_name(site: Path, tmp_path: Path) -> None:
    result = run_process(
        "env=hotpotqa", "model=openai-compatible", "model.backend=ecoh", f"hydra.run.dir={tmp_path / 'run'}",
        env={"PYTHONPATH": str(site)},
    )
    assert result.returncode == 2
    assert "model.backend = 'ecoh' is invalid: Input should be 'echo', 'llamacpp' or 'openai'." in result.stderr


PLAY_SUMS = """
import sys
from pathlib import Path
from pydantic import TypeAdapter
from harness.domains.registry import build_domain, mention_note, mention_rules
from harness.llm import CachedLLM, CacheStore, ModelConfig, create_backend
from harness.records import TrialLog
from harness.reflection import get_source
from harness.run.config import PROTOCOL_MEMORY_WINDOW, EnvConfig
from harness.run.loop import ConditionRun, LoopSettings, run_loop
from harness.run.progress import Progress

root = Path(sys.argv[1])
env = TypeAdapter(EnvConfig).validate_python({"name": "sums", "first_n": 1})
domain = build_domain(env)
echo = create_backend(ModelConfig(name="echo", backend="echo", model="m"))
llm = CachedLLM(echo, CacheStore(root / "c.jsonl"), "off")
window = PROTOCOL_MEMORY_WINDOW["sums"]
source = get_source("echo")(memory_window=window)
condition = ConditionRun(name="echo", source=source, actor_llm=llm, reflector_llm=llm, actor_model="echo",
                         reflector_model="echo")
run_loop(domain, [condition], TrialLog(root / "run"), LoopSettings(trials=2, max_concurrency=1, seed=0),
         Progress(2, False))
target, mentions = mention_rules("sums")
print(type(env).__name__, window, domain.task_ids(), target("sum/1"), mention_note("sums"))
"""
READ_SUMS = """
import sys
from harness.records import read_trials
records = read_trials(sys.argv[1])
print(sorted({type(r.attempt_details).__name__ for r in records}), [r.attempt_details.answer for r in records])
print("harness.domains.registry" in sys.modules)
"""


def test_the_plugins_domain_is_configured_played_and_its_records_read_without_loading_the_domain(
    site: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(site)}
    played = subprocess.run(
        [sys.executable, "-c", PLAY_SUMS, str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert played.returncode == 0, played.stderr
    assert played.stdout.split()[:4] == ["SumsEnvConfig", "2", "['sum/1']", "5"]
    assert "Sums: the object is the right total" in played.stdout
    # A fresh process that reads records only: the plugin's record model is found through its entry point.
    read = subprocess.run(
        [sys.executable, "-c", READ_SUMS, str(tmp_path / "run")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert read.returncode == 0, read.stderr
    assert read.stdout.splitlines() == ["['SumAttempt'] ['Finish[echo]', 'Finish[remembered]']", "False"]


READ_CONSOLE_LOG = """
import sys
from pathlib import Path
from harness.audit.sources import discover_sources, load_source
root = Path(sys.argv[1])
(root / "programming_runs").mkdir()
(root / "programming_runs" / "run.log").write_text("Starting run with the following parameters:\\nstrategy=reflexion\\n")
(source,) = discover_sources(root)
print(source.format, source.skip_reason, load_source(source))
"""


def test_the_plugins_audit_loader_makes_a_format_the_harness_cannot_read_readable(site: Path, tmp_path: Path) -> None:
    for name in ("with", "without"):
        (tmp_path / name).mkdir()
    with_plugin = python(site, READ_CONSOLE_LOG.replace("sys.argv[1]", repr(str(tmp_path / "with"))))
    assert with_plugin.returncode == 0, with_plugin.stderr
    assert with_plugin.stdout.split() == ["programming_console_log", "None", "[]"]
    code = READ_CONSOLE_LOG.replace("sys.argv[1]", repr(str(tmp_path / "without")))
    without = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert without.returncode != 0 and "cannot be imported: console transcript" in without.stderr


def test_the_example_plugin_imports_the_harness_through_harness_extensions_alone() -> None:
    """Every import of the harness in the plugin names `harness.extensions`, and every name it takes is exported."""
    import ast

    import harness.extensions

    imported: dict[str, set[str]] = {}
    for path in sorted((PLUGIN / "reflexion_plugin_example").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "harness":
                imported.setdefault(node.module or "", set()).update(alias.name for alias in node.names)
            if isinstance(node, ast.Import):
                assert all(alias.name.split(".")[0] != "harness" for alias in node.names), path
    assert set(imported) == {"harness.extensions"}
    assert imported["harness.extensions"] <= set(harness.extensions.__all__)
    assert all(getattr(harness.extensions, name) is not None for name in harness.extensions.__all__)
