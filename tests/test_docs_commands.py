"""Every shell command of README.md and docs/*.md is either run here and exits 0, or skipped with its reason: a page
that gains a command fails until the command is placed in RUN or SKIP, so the table stays complete."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.doc_pages import PAGES, all_commands, bash_blocks, commands
from tests.finished_runs import FIVE, HOTPOTQA, HUMANEVAL, INSIGHTS_PLANT
from tests.in_process import Outcome, run_in_process, run_module
from tests.runner import ROOT

PUBLISHED_COT = (
    "reflexion-hotpotqa-runs "
    "data/reflexion-logs/hotpotqa_runs/root/CoT/context/last_trial_and_reflexion/100_questions_5_trials.txt "
    "results/published_cot"
)

# Run, in this order, in one workspace: each command with the commands whose outputs it reads. About 110 s here.
RUN: dict[str, tuple[str, ...]] = {
    FIVE: (),
    "reflexion-report results/runs/five --html": (FIVE,),
    "reflexion-report results/runs/five --format csv,latex --out results/tables": (FIVE,),
    "reflexion-gate show results/runs/five/gate/gated": (FIVE,),
    "reflexion-gate verify results/runs/five/gate/gated": (FIVE,),
    "reflexion-audit": (),
    "reflexion-audit show alfworld_runs/root/reflexion_run_logs env_22": (),
    HOTPOTQA: (),
    PUBLISHED_COT: (),
    "reflexion-report results/runs/hotpotqa results/published_cot --out results/side_by_side": (
        HOTPOTQA,
        PUBLISHED_COT,
    ),
    "python run.py --help": (),
    "python run.py experiment=five_conditions --cfg job": (),
    "reflexion-report --help": (),
    "reflexion-gate --help": (),
    "reflexion-report results/ --index": (FIVE, HOTPOTQA),
    "reflexion-report results/ --index --out site": (FIVE, HOTPOTQA),
}

INSTALL = "installs the package and compiles llama.cpp (4-8 minutes); CI runs the test command through .ci/run"
EMBEDDED = "plays the embedded model: 10 minutes to hours on two cores"
API = "asks OpenAI's API: needs a key and the network"
LOCAL_SERVER = "needs a model file and a server of the reader's"
CLUSTER = "needs a SLURM or Ray cluster and a shared filesystem (tests/harness/cli/test_sweeps.py runs submitit_local and ray)"
BENCHMARK = "a measurement run by hand, minutes on a quiet machine (tests/benchmarks/ checks it at smoke sizes)"
READERS_FILE = "runs on a file of the reader's, named by a placeholder"
OWNER_RUN = "reads the store of the owner-policy run above, which plays the embedded model"
REPLAYED = "replayed from the same committed answers by {test}; {seconds} s here, over this test's time budget"
HELD_OUT = REPLAYED.format(test="tests/harness/run/test_held_out_demo.py", seconds=10)
HUMANEVAL_REPLAYED = REPLAYED.format(test="tests/harness/domains/humaneval/test_humaneval_replay.py", seconds=14)

SKIP: dict[str, str] = {
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" '
    "pip install -e . && python run.py": INSTALL,
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" '
    'pip install -e ".[test,semantic,sweeps]" && python -m pytest -ra': INSTALL,
    # docs/insights.md
    INSIGHTS_PLANT: "the same words are played by the insights_plant_run fixture (tests/finished_runs.py) and checked by "
    "tests/harness/run/test_insights_plant.py",
    # docs/audit.md
    "reflexion-audit --env-to-game my_mapping.json --out results/audit-alt": READERS_FILE,
    "reflexion-audit --html": "the audit above again plus audit.html, 37 s here; tests/harness/audit/"
    "test_audit_html.py writes and checks the page",
    # docs/local-servers.md
    "python -m llama_cpp.server --model /path/to/model.gguf --n_ctx 8192 --host 127.0.0.1 --port 8000 "
    "--model_alias local-model --n_threads 4": LOCAL_SERVER,
    "OPENAI_API_KEY=none python run.py model=openai-compatible model.base_url=http://127.0.0.1:8000/v1 "
    "model.model=local-model $'model.reflector_stop=[\"You are in the middle of a room\",\"\\n> \",\"\\nSTATUS:\","
    "\"\\nNew plan:\"]'": LOCAL_SERVER,
    # docs/tracking.md
    'pip install -e ".[tracking]"': INSTALL,
    "python run.py tracking=mlflow": EMBEDDED,
    "mlflow ui --backend-store-uri sqlite:///results/mlflow.db": "serves a "
    "page until stopped; tests/harness/run/test_tracking.py reads the store back with MLflow's client",
    "reflexion-track results/runs/2026-12-03_10-17-18": READERS_FILE,
    "reflexion-track RUN_DIR --tracking-uri sqlite:///results/mlflow.db --run-name again": READERS_FILE,
    # docs/benchmarks.md
    "python -m benchmarks.run_all": BENCHMARK,
    "python -m benchmarks.throughput": BENCHMARK,
    "python -m benchmarks.throughput --study --profile": BENCHMARK,
    "python -m benchmarks.engine_memos": BENCHMARK,
    "python -m benchmarks.replay_overhead": BENCHMARK,
    "python -m benchmarks.llama_speed": BENCHMARK,
    "python -m benchmarks.peak_rss": BENCHMARK,
    "python -m benchmarks.report_html": BENCHMARK,
    "python -m benchmarks.diagnosis_truth": "a measurement run by hand, minutes on a quiet machine (its parts: "
    "tests/harness/domains/alfworld/test_diagnosis_truth.py)",
    "python -m benchmarks.identity_length": BENCHMARK,
    # docs/conditions.md
    "export OPENAI_API_KEY=sk-...": "sets the reader's key for the API commands after it",
    "python run.py experiment=reflexion hydra.run.dir=results/runs/stage1": API,
    "python run.py experiment=five_conditions env.set=null env.frozen_in=results/runs/stage1 "
    "hydra.run.dir=results/runs/stage2": API,
    "python run.py experiment=reflexion actor_model=null reflector_model=null env.task_types=[put] env.max_steps=30 "
    "experiment.trials=4 experiment.max_concurrency=1 hydra.run.dir=results/runs/stage1": EMBEDDED,
    "python run.py experiment=five_conditions actor_model=null reflector_model=null "
    "'strategy=[self_diagnosis,no_memory,grounded_template,programmatic,model_swap]' env.set=null "
    "env.frozen_in=results/runs/stage1 env.max_steps=30 experiment.trials=4 experiment.max_concurrency=1 "
    "hydra.run.dir=results/runs/stage2": EMBEDDED,
    # docs/configuration.md
    "python run.py env.set=smoke experiment.trials=3": EMBEDDED,
    "python run.py env.set=null env.task_types=[cool,heat] env.first_n=4": EMBEDDED,
    "python run.py env.set=null env.games=[pick_and_place_simple-Mug-None-Desk-308]": EMBEDDED,
    "python run.py strategy=no_memory": EMBEDDED,
    "python run.py 'strategy=[self_diagnosis,programmatic]'": EMBEDDED,
    "python run.py model=smollm2-135m": EMBEDDED,
    "python run.py actor_model=smollm2-135m reflector_model=qwen2.5-coder-1.5b": EMBEDDED,
    "python run.py llm.n_threads=2 experiment.max_concurrency=2": EMBEDDED,
    "python run.py experiment.max_concurrency=16 env.engine_workers=4": EMBEDDED,
    "python run.py -m strategy=self_diagnosis,no_memory": EMBEDDED,
    # docs/held-out-and-repeats.md
    "python run.py sampling.actor.temperature=0.7 sampling.reflector.temperature=0.7 "
    "sampling.actor.top_p=0.95": EMBEDDED,
    "python run.py experiment.repeats=3 sampling.actor.temperature=0.7": EMBEDDED,
    "python run.py experiment=held_out_select hydra.run.dir=results/runs/select": EMBEDDED,
    "python run.py experiment=held_out env.frozen_in=results/runs/select hydra.run.dir=results/runs/held_out": EMBEDDED,
    "python run.py experiment=hotpotqa_held_out_select llm.n_threads=1 hydra.run.dir=results/runs/hq_select": EMBEDDED,
    "python run.py experiment=hotpotqa_held_out env.frozen_in=results/runs/hq_select llm.n_threads=1 "
    "hydra.run.dir=results/runs/hq_held_out": EMBEDDED,
    "python run.py experiment=hotpotqa_held_out_select llm.cache.mode=replay "
    "llm.cache.path=tests/fixtures/held_out/llm_cache.jsonl hydra.run.dir=results/runs/hq_select_replay": HELD_OUT,
    "python run.py experiment=hotpotqa_held_out env.frozen_in=results/runs/hq_select_replay llm.cache.mode=replay "
    "llm.cache.path=tests/fixtures/held_out/llm_cache.jsonl hydra.run.dir=results/runs/hq_held_out_replay": HELD_OUT,
    # docs/hotpotqa.md
    "python run.py env=hotpotqa env.first_n=5 experiment.trials=5": EMBEDDED,
    "python run.py env=hotpotqa env.questions=[5a7613c15542994ccc9186bf] "
    "'strategy=[self_diagnosis,programmatic]'": EMBEDDED,
    "python run.py env=hotpotqa env.types=[comparison] env.first_n=3": EMBEDDED,
    "python run.py experiment=hotpotqa_demo": EMBEDDED,
    "python run.py env=hotpotqa model=gpt-3.5-turbo experiment.trials=5": API,
    # docs/humaneval.md
    "python run.py env=humaneval env.first_n=5 'strategy=[self_diagnosis,programmatic]' experiment.trials=3": EMBEDDED,
    "python run.py env=humaneval env.problems=[HumanEval/0,HumanEval/2] strategy=grounded_template": EMBEDDED,
    "python run.py experiment=humaneval_demo": EMBEDDED,
    "python run.py env=humaneval env.first_n=5 env.max_tests=6 env.test_filter=strict env.feedback=repr "
    "env.code_extraction=repair strategy.self_diagnosis.memory_window=3": EMBEDDED,
    HUMANEVAL: HUMANEVAL_REPLAYED,
    "python -m envs.sandbox --code solution.py --tests tests.py --timeout 5": READERS_FILE,
    "python -m envs.sandbox --code solution.py --tests check.py --entry-point add": READERS_FILE,
    # docs/memory-gate.md
    "python run.py 'strategy=[self_diagnosis,gated]' strategy.gated.options.policy=owner "
    "hydra.run.dir=results/runs/g": EMBEDDED,
    "reflexion-gate show results/runs/g/gate/gated": OWNER_RUN,
    "reflexion-gate review results/runs/g/gate/gated": OWNER_RUN + "; and it waits for a terminal",
    "reflexion-gate review STORE --approve ID --reject ID2 --yes": READERS_FILE,
    "reflexion-gate verify results/runs/g/gate/gated": OWNER_RUN,
    "python run.py 'strategy=[self_diagnosis,gated]' strategy.gated.options.policy=owner experiment.trials=3 "
    "hydra.run.dir=results/runs/g": EMBEDDED,
    "python run.py experiment=planted_refusal": REPLAYED.format(test="tests/harness/run/test_planted_refusal.py", seconds=10),
    # docs/diagnosis.md
    "python run.py metrics.diagnosis=true": EMBEDDED,
    "reflexion-diagnosis results/runs/2026-12-03_10-17-18": READERS_FILE,
    "reflexion-diagnosis lines.jsonl": READERS_FILE,
    "python run.py experiment=diagnosis_bank": REPLAYED.format(
        test="tests/harness/run/test_diagnosis_bank_recorded.py", seconds=15),
    "python run.py experiment=diagnosis_bank scenario.items=null scenario.truths=null "
    "'scenario.runs=[results/runs/a,results/runs/b]' scenario.cache.mode=auto "
    "scenario.cache.path=results/llm_cache.jsonl": EMBEDDED,
    # docs/metrics.md
    "reflexion-identity reflections.jsonl": READERS_FILE,
    # docs/openai.md
    "python run.py model=gpt-4o-mini": API,
    "python run.py model=gpt-3.5-turbo-instruct": API,
    "python -m llama_cpp.server --model /path/to/model.gguf --host 127.0.0.1 --port 8000 &": LOCAL_SERVER,
    "OPENAI_API_KEY=none python run.py model=openai-compatible model.base_url=http://127.0.0.1:8000/v1 "
    "model.model=local-model model.api=completion": LOCAL_SERVER,
    # docs/sweeps.md
    "python run.py -m 'strategy=self_diagnosis,no_memory' hydra/launcher=joblib hydra.launcher.n_jobs=2 "
    "llm.n_threads=1": EMBEDDED,
    "python run.py -m 'strategy=self_diagnosis,no_memory' hydra/launcher=submitit_slurm hydra.launcher.partition=cpu "
    "hydra.launcher.timeout_min=240 hydra.launcher.cpus_per_task=4 hydra.launcher.mem_gb=8 llm.n_threads=4 "
    "hydra.sweep.dir=/shared/reflexion/sweeps/s1": CLUSTER,
    "python run.py -m 'strategy=self_diagnosis,no_memory' hydra/launcher=ray_cluster "
    "hydra.launcher.ray.init.address=HEAD_HOST:6379 hydra.sweep.dir=/shared/reflexion/sweeps/s1": CLUSTER,
}

# Small read-only trees the workspace links to; everything else is copied, so that code which finds the project
# from its own file (the audit's default --out) writes into the workspace, never into the checkout.
LINKED = ("data", "tests")
LEFT_OUT = (".git", "results")


def test_every_documented_command_is_run_or_skipped_with_a_reason() -> None:
    documented = all_commands()
    missing = [command for command in documented if command not in RUN and command not in SKIP]
    assert missing == [], "place each in RUN or in SKIP with its reason"
    stale = [command for command in (*RUN, *SKIP) if command not in documented]
    assert stale == [], "no page has these commands any more"
    assert set(RUN).isdisjoint(SKIP)
    assert all(SKIP.values())


def test_the_table_reads_commands_as_a_shell_does() -> None:
    block = "python run.py a=1 \\\n    'b=[x,y]'   # two words\n# a comment line\n\npython -m m 'q#r'\n"
    assert commands(block) == ["python run.py a=1 'b=[x,y]'", "python -m m 'q#r'"]


def test_the_readme_opens_with_the_two_commands_and_ci_runs_the_second_verbatim() -> None:
    readme = PAGES[0]
    first, second = (block.strip() for block in bash_blocks(readme)[:2])
    assert first.endswith("pip install -e . && python run.py")
    assert second.endswith('pip install -e ".[test,semantic,sweeps]" && python -m pytest -ra')
    assert readme.read_text().index(first) < readme.read_text().index("\n## ")
    assert second in (ROOT / ".ci" / "run").read_text().splitlines()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout's code, linked to its data, where `results/` starts empty."""
    root = tmp_path_factory.mktemp("docs")
    for entry in ROOT.iterdir():
        if entry.name in LEFT_OUT or entry.name.startswith(".pytest") or entry.name.endswith(".egg-info"):
            continue
        if entry.name in LINKED:
            (root / entry.name).symlink_to(entry)
        elif entry.is_dir():
            shutil.copytree(entry, root / entry.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(entry, root / entry.name)
    (root / "no-models").mkdir()
    return root


# Commands a session's fixture has played (tests/finished_runs.py): what it wrote is copied into the workspace where
# the command writes it. The runs are these very words; the audit is `reflexion-audit --html`, the same tables and
# one page more, played once for the suite instead of twice.
PLAYED = {FIVE: "five_conditions_run", HOTPOTQA: "hotpotqa_demo_run", "reflexion-audit": "published_audit"}


def _written_to(command: str) -> str:
    """Where a played command writes: its hydra.run.dir, or the audit's default --out."""
    runs = [w.split("=", 1)[1] for w in shlex.split(command) if w.startswith("hydra.run.dir=")]
    return runs[0] if runs else "results/audit"
# Run in this process: the command line and the report and gate commands, which read and write only what their
# arguments and working directory name. Others run in a shell (the audit finds its default --out from its own file).
IN_PROCESS = ("python run.py ", "reflexion-report ", "reflexion-gate ")


def _run_here(command: str, workspace: Path, env: dict[str, str]) -> Outcome:
    words = shlex.split(command)
    if words[1] == "run.py":
        return run_in_process(*words[2:], env=env, cwd=workspace)
    # A console script's front is harness/cli/<its name without reflexion->.py (pyproject.toml's [project.scripts]).
    return run_module(f"harness.cli.{words[0].removeprefix('reflexion-')}", *words[1:], env=env, cwd=workspace)


@pytest.fixture(scope="module")
def run_documented(workspace: Path, request: pytest.FixtureRequest) -> Callable[[str], Outcome | subprocess.CompletedProcess[str]]:
    """`run(command)`: runs it once in the workspace, after the commands it needs; returns how it ended."""
    done: dict[str, Outcome | subprocess.CompletedProcess[str]] = {}
    # `python` is this interpreter; no embedded model can load and no API key is set, so nothing slow or remote runs.
    env = {key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}
    env |= {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"}
    env |= {"REFLEXION_HARNESS_MODEL_DIR": str(workspace / "no-models")}
    # A console script imports the harness it finds first: the workspace's copy, as `python -m` from there would.
    env |= {"PYTHONPATH": str(workspace)}

    def run(command: str) -> Outcome | subprocess.CompletedProcess[str]:
        if command not in done:
            for needed in RUN[command]:
                assert run(needed).returncode == 0, f"{needed!r}, which {command!r} needs, failed"
            if command in PLAYED:
                played: Path = request.getfixturevalue(PLAYED[command])
                shutil.copytree(played, workspace / _written_to(command), symlinks=True)
                done[command] = Outcome(shlex.split(command), 0, "", "")
            elif command.startswith(IN_PROCESS):
                done[command] = _run_here(command, workspace, {"REFLEXION_HARNESS_MODEL_DIR": env["REFLEXION_HARNESS_MODEL_DIR"]})
            else:
                done[command] = subprocess.run(
                    ["bash", "-c", command], cwd=workspace, env=env, capture_output=True, text=True, timeout=600
                )
        return done[command]

    return run


@pytest.mark.slow
@pytest.mark.parametrize("command", list(RUN), ids=lambda command: command[:70])
def test_a_documented_command_exits_0(
    command: str, run_documented: Callable[[str], subprocess.CompletedProcess[str]]
) -> None:
    result = run_documented(command)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
