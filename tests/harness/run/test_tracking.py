"""tracking=mlflow: a replayed run read back from its local MLflow store, through mlflow's own client, equals its
run directory (params from the config, metrics from metrics.json, the report files as artifacts); tracking off
writes no store and imports no mlflow; mlflow missing stops the run before it starts; a failing store costs a
warning, never the run."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.metrics.run import RunMetrics
from harness.records import read_manifest
from harness.cli.track import main
from harness.run.tracking import PARAM_VALUE_LIMIT, flat_params, solved_by_trial, track_run
from harness.run.tracking_settings import TrackingSettings
from tests.runner import ROOT, run_cli, run_process

# The test's own reads of a sqlite store meet SQLAlchemy's deprecation notices from inside mlflow.
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
needs_mlflow = pytest.mark.skipif(
    importlib.util.find_spec("mlflow") is None,
    reason="needs mlflow to read the store back (pip install -e '.[tracking]'; the test extra has it), not installed",
)

CACHE = ROOT / "tests" / "fixtures" / "hotpotqa" / "llm_cache.jsonl"
# Four questions, three trials, two conditions, replayed from the committed cache in a few seconds; Qwen answers
# one question at trial 0 (tests/fixtures/hotpotqa/README.md), so solved counts are not all 0.
REPLAY = (
    "experiment=hotpotqa_demo",
    "strategy=[self_diagnosis,no_memory]",
    "llm.cache.mode=replay",
    f"llm.cache.path={CACHE}",
    "llm.n_threads=1",
)
ARTIFACTS = {"report.md", "report.html", "metrics.json", "summary.md", "trials.jsonl", "manifest.json"}


def replay(run_dir: Path, *overrides: str, env: dict[str, str] | None = None) -> None:
    """The replay in this process, or in a new one when `env` is given (an import path only a new interpreter reads)."""
    result = (run_cli if env is None else run_process)(*REPLAY, *overrides, f"hydra.run.dir={run_dir}", env=env)
    assert result.returncode == 0, result.stderr


@pytest.fixture(autouse=True)
def offline_mlflow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's own reads as the harness makes them: no telemetry, the file store opted into."""
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")


def client(uri: str) -> Any:
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=uri)


def only_run(uri: str, experiment: str) -> Any:
    found = client(uri).get_experiment_by_name(experiment)
    assert found is not None, f"no experiment {experiment!r} in {uri}"
    [run] = client(uri).search_runs([found.experiment_id])
    return run


@pytest.fixture(scope="module")
def file_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("tracked")
    uri = f"file:{root / 'mlruns'}"
    replay(root / "run", "tracking=mlflow", f"tracking.tracking_uri={uri}", "report.plots=true")  # plots logged
    return uri, root / "run"


@needs_mlflow
def test_params_are_the_resolved_config(file_store: tuple[str, Path]) -> None:
    uri, run_dir = file_store
    run = only_run(uri, "hotpotqa/hotpotqa_demo")
    params = run.data.params
    assert params["strategy"] == "self_diagnosis,no_memory"
    assert (params["env.name"], params["experiment.trials"], params["tracking.backend"]) == ("hotpotqa", "3", "mlflow")
    assert params["conditions.no_memory.source"] == "no_memory"
    assert params == flat_params(read_manifest(run_dir).config)
    assert (run.info.run_name, run.info.status) == ("run", "FINISHED")
    assert run.data.tags["harness.run_dir"] == str(run_dir.resolve())


@needs_mlflow
def test_metrics_are_metrics_json_s_figures(file_store: tuple[str, Path]) -> None:
    uri, run_dir = file_store
    run = only_run(uri, "hotpotqa/hotpotqa_demo")
    written = RunMetrics.model_validate_json((run_dir / "metrics.json").read_text())
    assert [c.condition for c in written.conditions] == ["self_diagnosis", "no_memory"]
    assert sum(c.totals.solved for c in written.conditions) > 0, "the replay should solve something"
    for report in written.conditions:
        totals, prefix = report.totals, f"{report.condition}/"
        logged = {key.removeprefix(prefix): value for key, value in run.data.metrics.items() if key.startswith(prefix)}
        assert (logged["solved"], logged["tasks"], logged["frozen"]) == (totals.solved, totals.tasks, totals.frozen)
        defined_or_not = {
            "frozen_share": totals.frozen_share,
            "mean_rrr": totals.mean_rrr,
            "mention_strict_rate": totals.mentions.strict_rate,
            "mention_normalized_rate": totals.mentions.normalized_rate,
        }
        assert totals.identity is not None, "HotpotQA has an identity rule"
        for label in ("on_task", "off_task", "vacuous"):  # the identity figures, read back through MlflowClient
            shared = getattr(totals.identity, label)
            assert logged[f"identity_{label}"] == shared.count, label
            defined_or_not[f"identity_{label}_share"] = shared.share
        for name, figure in defined_or_not.items():  # undefined (no reflections): not logged, never as 0
            assert logged.get(name) == (None if figure is None else pytest.approx(figure)), name
        steps = client(uri).get_metric_history(run.info.run_id, f"{prefix}solved_by_trial")
        history = sorted(steps, key=lambda m: m.step)
        by_step = [m.value for m in history]
        assert [m.step for m in history] == [0, 1, 2]
        assert by_step == solved_by_trial(report, written.trial_budget)
        assert by_step[-1] == totals.solved and by_step == sorted(by_step)


@needs_mlflow
def test_the_report_files_are_artifacts(file_store: tuple[str, Path], tmp_path: Path) -> None:
    uri, run_dir = file_store
    run = only_run(uri, "hotpotqa/hotpotqa_demo")
    logged = {artifact.path for artifact in client(uri).list_artifacts(run.info.run_id)}
    plots = {path.name for path in run_dir.glob("*.png")}
    assert plots and ARTIFACTS | plots <= logged
    copy = Path(client(uri).download_artifacts(run.info.run_id, "metrics.json", str(tmp_path)))
    assert copy.read_bytes() == (run_dir / "metrics.json").read_bytes()


@needs_mlflow
def test_a_sqlite_store_with_named_experiment_and_run(tmp_path: Path) -> None:
    """The default kind of store, with its artifacts beside it (not in ./mlruns of the working directory)."""
    uri = f"sqlite:///{tmp_path / 'store' / 'mlflow.db'}"
    replay(
        tmp_path / "run",
        "tracking=mlflow",
        f"tracking.tracking_uri={uri}",
        "tracking.experiment_name=study",
        "tracking.run_name=first",
    )
    run = only_run(uri, "study")
    assert run.info.run_name == "first" and run.data.params["env.name"] == "hotpotqa"
    assert run.info.artifact_uri.startswith((tmp_path / "store" / "mlartifacts").as_uri())
    assert ARTIFACTS <= {a.path for a in client(uri).list_artifacts(run.info.run_id)}


def _python_path(directory: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))}


def test_tracking_off_writes_no_store_and_imports_no_mlflow(tmp_path: Path) -> None:
    decoy = tmp_path / "decoy" / "mlflow"
    decoy.mkdir(parents=True)
    marker = tmp_path / "mlflow-imported"
    (decoy / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise ImportError('decoy')\n")
    store = tmp_path / "store"
    replay(tmp_path / "run", f"tracking.tracking_uri=sqlite:///{store / 'mlflow.db'}", env=_python_path(decoy.parent))
    assert not marker.exists(), "a run with tracking off imported mlflow"
    assert not store.exists()
    assert not {"mlruns", "mlartifacts", "mlflow.db"} & {p.name for p in (tmp_path / "run").iterdir()}


def test_tracking_on_without_mlflow_stops_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mlflow", None)  # as if not installed: `import mlflow` fails, find_spec is None
    run_dir = tmp_path / "run"
    result = run_cli(*REPLAY, "tracking=mlflow", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: tracking=mlflow ") and "pip install -e .[tracking]" in line
    assert not run_dir.exists()


@needs_mlflow
def test_a_store_that_fails_at_the_end_is_a_warning(
    file_store: tuple[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _, run_dir = file_store
    manifest = read_manifest(run_dir)
    in_a_file = tmp_path / "a-file"
    in_a_file.write_text("")
    settings = TrackingSettings(backend="mlflow", tracking_uri=f"sqlite:///{in_a_file / 'mlflow.db'}")
    metrics = RunMetrics.model_validate_json((run_dir / "metrics.json").read_text())
    before = sorted(p.name for p in run_dir.iterdir())
    with caplog.at_level(logging.WARNING, logger="harness.run.tracking"):
        assert track_run(settings, manifest.config, run_dir, metrics) is None
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "the run is complete in" in warning and str(in_a_file) in warning
    assert f"reflexion-track {run_dir}" in warning
    assert sorted(p.name for p in run_dir.iterdir()) == before


@needs_mlflow
def test_a_finished_run_logs_again_from_its_directory(
    file_store: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uri, run_dir = file_store
    again = f"sqlite:///{tmp_path / 'again.db'}"
    main([str(run_dir), "--tracking-uri", again, "--run-name", "later"])
    assert capsys.readouterr().out.startswith(f"logged {run_dir} to {again} as run ")
    first, second = only_run(uri, "hotpotqa/hotpotqa_demo"), only_run(again, "hotpotqa/hotpotqa_demo")
    assert second.info.run_name == "later"
    assert (second.data.params, second.data.metrics) == (first.data.params, first.data.metrics)
    assert second.data.tags["mlflow.source.git.commit"] == read_manifest(run_dir).git_commit


@pytest.mark.parametrize(
    ("files", "needle"),
    [({}, "holds no manifest.json"), ({"manifest.json": "{"}, "is not a readable manifest")],
)
def test_logging_again_refuses_what_is_no_finished_run(
    files: dict[str, str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path)])
    assert stopped.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ") and needle in line


@needs_mlflow
def test_logging_again_refuses_a_run_that_did_not_finish(
    file_store: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, run_dir = file_store
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "status": "interrupted"}))
    (tmp_path / "metrics.json").write_bytes((run_dir / "metrics.json").read_bytes())
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path)])
    assert stopped.value.code == 2
    assert f"{tmp_path} is interrupted, not finished" in capsys.readouterr().err


def test_a_long_value_is_cut_to_mlflow_s_limit() -> None:
    games = [f"game-{n:04d}" for n in range(100)]
    params = flat_params({"env": {"games": games}, "conditions": [{"name": "a", "source": "b", "options": {}}]})
    assert len(json.dumps(games)) > PARAM_VALUE_LIMIT
    assert len(params["env.games"]) == PARAM_VALUE_LIMIT and params["env.games"].endswith("...")
    assert json.dumps(games).startswith(params["env.games"].removesuffix("..."))
    assert (params["conditions.a.source"], params["conditions.a.options"], params["strategy"]) == ("b", "{}", "a")
