"""Reports of our own runs: the condition table, the plots, several runs combined, and the command line."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness.domains.alfworld.identity import record_identity
from PIL import Image

from harness.records import MANIFEST_FILE, Manifest, RunPlan, TrialLog, TrialRecord, write_manifest
from harness.metrics.intervals import wilson_interval
from harness.metrics.task_shares import task_share
from harness.report import REPORT_FILE, load_runs, write_report
from harness.cli.report import main
from harness.report.plot_files import PLOT_FILES
from harness.report._runs import ReportInputError
from harness.metrics.run import METRICS_FILE, run_metrics, write_metrics
from tests.harness.factories import make_record

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
SALT = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"
CUP = "pick_and_place_simple-Cup-None-Shelf-1/trial_T3"
SAME = "Take the Mug from desk 1."
PLAN = "Open cabinet 2, take the mug, then go to desk 1 and put it there."
RECOMPUTED = "recomputed from 13 records (no metrics.json)"
HEADER = (
    "| condition | actor / reflector | solved / tasks | first solving trial, mean (solved tasks) | on task | off task "
    "| vacuous | object mention, strict | object mention, normalized | average RRR (tasks with RRR) "
    "| frozen (RRR >= 0.5) | malformed answers |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def over_tasks(*per_task: tuple[int, int]) -> str:
    """A share of reflections' cell from each task's (count, reflections): the mean of the tasks' shares, the tasks,
    the reflections counted and the interval over tasks (Clopper-Pearson at the sum of the shares)."""
    share = task_share(per_task)
    if share.share is None:
        return f"{share.count}/{share.reflections}"
    tasks = f"{share.tasks} task" + ("" if share.tasks == 1 else "s")
    return (
        f"{share.share:.0%} over {tasks} ({share.count}/{share.reflections} reflections; "
        f"{share.low:.0%}-{share.high:.0%})"
    )


def labels(*per_task: tuple[int, int, int]) -> str:
    """The three identity cells from each task's (on, off, vacuous) reflections."""
    return " | ".join(
        over_tasks(*((task[i], sum(task)) for task in per_task)) for i in range(3)
    )


def plan_of(*conditions: str) -> RunPlan:
    """A 3-trial plan of `conditions` on any task."""
    return RunPlan(conditions=list(conditions), tasks=None, trials=3)


def _with_models(record: TrialRecord, model: str) -> TrialRecord:
    return record.model_copy(update={"actor_model": model, "reflector_model": model})


def run_a_records() -> list[TrialRecord]:
    """Three conditions on two tasks; self_diagnosis freezes on MUG."""
    return [
        *(make_record(t, SAME, task=MUG) for t in range(3)),
        make_record(0, "look for a salt shaker in drawer 1", task=SALT),
        make_record(1, None, True, task=SALT),
        *(make_record(t, None, task=MUG, condition="no_memory") for t in range(3)),
        make_record(0, None, True, task=SALT, condition="no_memory"),
        make_record(0, "The mug is in cabinet 2.", task=MUG, condition="programmatic"),
        make_record(1, PLAN, task=MUG, condition="programmatic"),
        make_record(2, None, True, task=MUG, condition="programmatic"),
        make_record(0, None, True, task=SALT, condition="programmatic"),
    ]


def run_b_records() -> list[TrialRecord]:
    """self_diagnosis under the same model as run A; no_memory under another one."""
    return [
        make_record(0, "Take the cup 1 from shelf 1.", task=CUP),
        make_record(1, "I should search the countertop before the shelf and go there first.", task=CUP),
        make_record(2, None, True, task=CUP),
        *(_with_models(make_record(t, None, task=CUP, condition="no_memory"), "tiny") for t in range(3)),
    ]


def _write_records(run_dir: Path, records: list[TrialRecord]) -> None:
    log = TrialLog(run_dir)
    for record in records:
        log.append(record)


@pytest.fixture
def run_a(tmp_path: Path) -> Path:
    """A run with a manifest and records but no metrics.json (it stopped before writing them)."""
    run_dir = tmp_path / "run_a"
    _write_records(run_dir, run_a_records())
    write_manifest(run_dir, manifest_of("alfworld", ["self_diagnosis", "no_memory", "programmatic"], trials=3))
    return run_dir


def manifest_of(domain: str, conditions: list[str], trials: int) -> Manifest:
    """The manifest of a run that stopped before writing metrics.json."""
    return Manifest(
        config={
            "env": {"name": domain},
            "conditions": [{"name": name} for name in conditions],
            "experiment": {"trials": trials},
        },
        package_versions={},
        git_commit=None,
        data_hashes={},
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status="failed",
    )


@pytest.fixture
def humaneval_run(tmp_path: Path) -> Path:
    """A HumanEval run without metrics.json: its task ids are problems, not ALFWorld task folders."""
    run_dir = tmp_path / "humaneval_run"
    _write_records(
        run_dir,
        [
            make_record(0, "assert f(1) == 2 failed: f returns x.", task="HumanEval/0"),
            make_record(1, None, True, task="HumanEval/0"),
        ],
    )
    write_manifest(run_dir, manifest_of("humaneval", ["self_diagnosis"], trials=2))
    return run_dir


@pytest.fixture
def run_b(tmp_path: Path) -> Path:
    """A finished run: its metrics.json is what the report reads."""
    run_dir = tmp_path / "run_b"
    records = run_b_records()
    _write_records(run_dir, records)
    plan = plan_of("self_diagnosis", "no_memory")
    write_metrics(run_dir, run_metrics(records, plan, {CUP: "Cup"}, identity=record_identity))
    return run_dir


def test_wilson_interval_matches_a_hand_computed_value() -> None:
    # 8 of 10, z = 1.959964 (two-sided 95%): p = 0.8, d = 1 + z^2 / 10 = 1.3841459,
    # centre = (0.8 + z^2 / 20) / d = 0.7167402, half = z / d * sqrt(0.016 + z^2 / 400) = 0.2265777,
    # so (0.4901625, 0.9433178).
    low, high = wilson_interval(8, 10)
    assert (low, high) == (pytest.approx(0.4901625, abs=1e-6), pytest.approx(0.9433178, abs=1e-6))
    low, high = wilson_interval(0, 5)
    assert low == 0.0 and high == pytest.approx(3.8415 / (5 + 3.8415), abs=1e-4)
    assert wilson_interval(5, 5)[1] == 1.0
    with pytest.raises(ValueError, match="n > 0"):
        wilson_interval(0, 0)


def test_a_run_without_metrics_json_is_recomputed_from_its_records(run_a: Path) -> None:
    (run,) = load_runs([run_a])
    targets = {MUG: "Mug", SALT: "SaltShaker"}
    plan = plan_of("self_diagnosis", "no_memory", "programmatic")
    expected = run_metrics(run_a_records(), plan, targets, identity=record_identity)
    assert run.metrics == expected
    assert (run.name, run.status, run.metrics_source) == ("run_a", "failed", RECOMPUTED)
    assert not (run_a / METRICS_FILE).exists()


def test_the_report_of_one_run_holds_the_condition_table(run_a: Path) -> None:
    path = write_report([run_a], run_a)
    assert path == run_a / REPORT_FILE
    text = path.read_text()
    table = "\n".join(
        [
            HEADER,
            # Every reflection of run A names its task's object and plans nothing else.
            # MUG's three reflections and SALT's one: two tasks, their shares' mean with its interval over them.
            # First solving trials: SALT at 1 (self_diagnosis), at 0 (no_memory); MUG at 2, SALT at 0 (programmatic).
            f"| self_diagnosis | m | 1/2 (50%) | 1.00 (1) | {labels((3, 0, 0), (1, 0, 0))} | "
            f"{over_tasks((3, 3), (0, 1))} | {over_tasks((3, 3), (1, 1))} | 1.00 (1) | 1/1 (100%) | 0 |",
            "| no_memory | m | 1/2 (50%) | 0.00 (1) | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 | undefined (0) | undefined | 0 |",
            f"| programmatic | m | 2/2 (100%) | 1.00 (2) | {labels((2, 0, 0))} | {over_tasks((0, 2))} | "
            f"{over_tasks((2, 2))} | 0.00 (1) | 0/1 (0%) | 0 |",
        ]
    )
    assert table + "\n\nOn task, off task, vacuous:" in text
    conditions = "self_diagnosis, no_memory, programmatic"
    assert f"| run_a | `run_a` (this report's folder) | failed | 3 | {conditions} | {RECOMPUTED} |" in text
    for name in PLOT_FILES:
        assert f"]({name})" in text


def test_every_plot_is_a_real_picture(run_a: Path) -> None:
    write_report([run_a], run_a)
    for name in PLOT_FILES:
        with Image.open(run_a / name) as image:
            assert image.format == "PNG"
            width, height = image.size
            assert 600 <= width <= 3000 and 400 <= height <= 2000, name
            colors = image.convert("RGB").getcolors(maxcolors=1_000_000)
            assert colors is not None and len(colors) > 50, name


def test_two_runs_pool_conditions_with_the_same_models_and_keep_the_others_apart(
    run_a: Path, run_b: Path, tmp_path: Path
) -> None:
    out = tmp_path / "combined"
    text = write_report([run_a, run_b], out).read_text()
    table = "\n".join(
        [
            HEADER,
            # run B's "search the countertop before the shelf" names no object: vacuous.
            # Three tasks, MUG, SALT and CUP: the shares are their mean, with intervals over them.
            # First solving trials: SALT at 1 and CUP at 2 (self_diagnosis); run B's no_memory solves nothing.
            f"| self_diagnosis | m | 2/3 (67%) | 1.50 (2) | {labels((3, 0, 0), (1, 0, 0), (1, 0, 1))} | "
            f"{over_tasks((3, 3), (0, 1), (0, 2))} | {over_tasks((3, 3), (1, 1), (1, 2))} | 0.50 (2) | 1/2 (50%) | 0 |",
            "| no_memory (run_a) | m | 1/2 (50%) | 0.00 (1) | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 | undefined (0) "
            "| undefined | 0 |",
            "| no_memory (run_b) | tiny | 0/1 (0%) | undefined (0) | 0/0 | 0/0 | 0/0 | 0/0 | 0/0 | undefined (0) "
            "| undefined | 0 |",
            f"| programmatic | m | 2/2 (100%) | 1.00 (2) | {labels((2, 0, 0))} | {over_tasks((0, 2))} | "
            f"{over_tasks((2, 2))} | 0.00 (1) | 0/1 (0%) | 0 |",
        ]
    )
    assert table in text
    assert "pooled (their tasks counted together) when they ran in the same domain with the same actor and reflector models" in text
    assert "Pooled here: self_diagnosis pooled from run_a, run_b." in text
    assert "Kept apart here (models differ): no_memory (run_a); no_memory (run_b)." in text
    assert "| run_b | [../run_b](../run_b) | no manifest | 3 | self_diagnosis, no_memory | metrics.json |" in text
    assert all((out / name).is_file() for name in PLOT_FILES)


def test_runs_with_the_same_folder_name_are_told_apart_by_their_parents(tmp_path: Path) -> None:
    first, second = tmp_path / "sweep1" / "0", tmp_path / "sweep2" / "0"
    _write_records(first, run_a_records())
    _write_records(second, run_a_records())
    assert [run.name for run in load_runs([first, second])] == ["sweep1/0", "sweep2/0"]


def test_reading_a_run_still_recording_leaves_its_torn_last_line_alone(run_a: Path) -> None:
    trials = run_a / "trials.jsonl"
    torn = trials.read_bytes() + b'{"task_id": "pick'
    trials.write_bytes(torn)
    (run,) = load_runs([run_a])
    assert run.metrics_source == RECOMPUTED
    assert trials.read_bytes() == torn


def test_the_command_writes_into_the_single_run_directory(run_b: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(run_b)])
    assert capsys.readouterr().out == f"wrote {run_b / REPORT_FILE}\n"
    assert sorted(p.name for p in run_b.glob("*.png")) == sorted(PLOT_FILES)


def test_the_runs_table_names_the_reports_own_folder_as_text_and_links_the_others(
    run_a: Path, run_b: Path, tmp_path: Path
) -> None:
    """Issue 28: the directory column was a link labelled "." (to the page itself), all but invisible."""
    write_report([run_b], run_b, plots=False)
    page = (run_b / "report.html").read_text()
    runs = page.split("<h2>Runs</h2>", 1)[1].split("</table>", 1)[0]
    assert "<td>run_b</td><td><code>run_b</code> (this report&#x27;s folder)</td>" in runs
    assert "<a " not in runs
    write_report([run_a, run_b], tmp_path / "out", plots=False)
    runs = (tmp_path / "out" / "report.html").read_text().split("<h2>Runs</h2>", 1)[1].split("</table>", 1)[0]
    assert '<a href="../run_a">../run_a</a>' in runs and '<a href="../run_b">../run_b</a>' in runs


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["{a}", "{b}"], "error: 2 run directories given without --out; say where the combined report goes.\n"),
        (["{missing}"], "error: {missing} is not a run directory: it holds neither metrics.json nor trials.jsonl.\n"),
        (["{a}", "{a}", "--out", "{out}"], "error: a run directory is given twice; give each once.\n"),
        (["{a}", "--out", "{file}"], "error: --out={file} is a file, not a directory; name a directory.\n"),
    ],
)
def test_the_command_refuses_bad_input_in_one_sentence(
    run_a: Path, run_b: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    paths = {"a": run_a, "b": run_b, "missing": tmp_path / "nothing", "out": tmp_path / "out", "file": tmp_path / "f"}
    paths["file"].write_text("kept\n")
    with pytest.raises(SystemExit) as exit_:
        main([argument.format(**paths) for argument in arguments])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == message.format(**paths)
    assert not (tmp_path / "out").exists() and paths["file"].read_text() == "kept\n"


def test_a_file_given_as_a_run_directory_is_named_as_a_file(
    run_a: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """h5 hostile try: "`reflexion-report RUN/trials.jsonl` says `RUN/trials.jsonl/manifest.json is not a
    readable manifest (Not a directory); restore it, or move it away`", a path that cannot exist and advice to move
    the manifest away."""
    records = run_a / "trials.jsonl"
    before = records.read_bytes()
    with pytest.raises(SystemExit) as exit_:
        main([str(records)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == f"error: {records} is a file, not a run directory; give the folder that holds it.\n"
    assert records.read_bytes() == before and not (run_a / REPORT_FILE).exists()


def test_a_truncated_manifest_is_named_in_one_sentence(
    humaneval_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(humaneval_run, run)
    manifest = run / MANIFEST_FILE
    manifest.write_text(manifest.read_text()[:200])
    with pytest.raises(SystemExit) as exit_:
        main([str(run), "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {manifest} is not a readable manifest (Invalid JSON"), err
    assert not (tmp_path / "out").exists()


def test_a_humaneval_run_without_metrics_json_is_measured_by_its_own_domain(humaneval_run: Path) -> None:
    [run] = load_runs([humaneval_run])
    assert run.domain == "humaneval" and run.metrics_source == "recomputed from 2 records (no metrics.json)"
    [condition] = run.metrics.conditions
    assert condition.totals.solved == 1 and condition.tasks[0].target_object == "a failed test case"


def test_runs_of_two_domains_are_never_pooled_into_one_row(run_a: Path, humaneval_run: Path, tmp_path: Path) -> None:
    text = write_report([run_a, humaneval_run], tmp_path / "combined", plots=False).read_text()
    assert "| self_diagnosis (run_a) |" in text and "| self_diagnosis (humaneval_run) |" in text


def test_a_report_mixing_domains_says_the_domains_differ_not_the_models(
    run_a: Path, run_b: Path, humaneval_run: Path, tmp_path: Path
) -> None:
    """Issue 26: "a report mixing domains says the models differ when only the domains do"."""
    text = write_report([run_a, humaneval_run, run_b], tmp_path / "combined", plots=False).read_text()
    assert (
        "Kept apart here (domains differ): self_diagnosis (run_a + run_b); self_diagnosis (humaneval_run)."
    ) in text
    assert "Kept apart here (models differ): no_memory (run_a); no_memory (run_b)." in text
    only_domains = write_report([run_a, humaneval_run], tmp_path / "two", plots=False).read_text()
    assert "models differ" not in only_domains
    assert "Kept apart here (domains differ): self_diagnosis (run_a); self_diagnosis (humaneval_run)." in only_domains


def manifest_planning(tasks: list[str], trials: int, status: str = "running") -> Manifest:
    """The manifest of a self_diagnosis run on `tasks`, as the run writes it."""
    return manifest_of("alfworld", ["self_diagnosis"], trials).model_copy(update={"tasks": tasks, "status": status})


def test_metrics_json_older_than_the_records_is_recomputed(tmp_path: Path) -> None:
    """A run finished at 2 trials, resumed to 3 and killed before writing metrics.json again."""
    run_dir = tmp_path / "run"
    first = [make_record(t, f"reflection {t}", task=task) for task in (MUG, SALT) for t in range(2)]
    _write_records(run_dir, first)
    plan = RunPlan(conditions=["self_diagnosis"], tasks=[MUG, SALT], trials=2)
    write_metrics(run_dir, run_metrics(first, plan, {MUG: "Mug", SALT: "SaltShaker"}))
    third = [make_record(2, "reflection 2", task=task) for task in (MUG, SALT)]
    _write_records(run_dir, third)
    write_manifest(run_dir, manifest_planning([MUG, SALT], trials=3))
    [run] = load_runs([run_dir])
    assert run.metrics_source == (
        "recomputed from 6 records (metrics.json was written for 2 trial(s), the run now plans 3)"
    )
    assert run.metrics.trial_budget == 3 and [t.trials for t in run.metrics.conditions[0].tasks] == [3, 3]
    assert run.usage["self_diagnosis"].calls == 6, "the cost table and the metrics count the same records"
    # The same budget but fewer records (killed before the third trial's metrics): recomputed too.
    write_metrics(run_dir, run_metrics(first, plan.model_copy(update={"trials": 3}), {MUG: "Mug", SALT: "SaltShaker"}))
    [run] = load_runs([run_dir])
    assert run.metrics_source.startswith("recomputed from 6 records (metrics.json covers 4 record(s) and disagrees")


def test_a_hand_edited_metrics_json_is_not_reported_as_the_runs_figures(tmp_path: Path) -> None:
    """Issue 26, hostile try 26: metrics.json forged to claim 1/1 solved over records that solved nothing."""
    run_dir = tmp_path / "run"
    records = [make_record(t, "I failed.", task=MUG) for t in range(2)]
    _write_records(run_dir, records)
    write_manifest(run_dir, manifest_planning([MUG], trials=2, status="finished"))
    honest = load_runs([run_dir])[0].metrics  # as the run measures them, with its domain's mention rules
    write_metrics(run_dir, honest)
    assert load_runs([run_dir])[0].metrics_source == METRICS_FILE, "the run's own metrics.json is named"
    condition = honest.conditions[0]
    forged = condition.model_copy(update={"totals": condition.totals.model_copy(update={"solved": 1})})
    write_metrics(run_dir, honest.model_copy(update={"conditions": [forged]}))
    [run] = load_runs([run_dir])
    assert run.metrics_source == "recomputed from 2 records (metrics.json disagrees with what its records measure)"
    assert run.metrics == honest
    assert "| self_diagnosis | m | 0/1 (0%) |" in write_report([run_dir], run_dir, plots=False).read_text()


def test_recomputed_metrics_are_measured_at_the_thresholds_the_manifest_records(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    records = [make_record(t, "I failed to find the mug.", task=MUG) for t in range(3)]
    _write_records(run_dir, records)
    manifest = manifest_planning([MUG], trials=3)
    config = {**manifest.config, "metrics": {"similarity_threshold": 0.9, "frozen_threshold": 0.4}}
    write_manifest(run_dir, manifest.model_copy(update={"config": config}))
    [run] = load_runs([run_dir])
    assert (run.metrics.thresholds.similarity_threshold, run.metrics.thresholds.frozen_threshold) == (0.9, 0.4)
    write_manifest(run_dir, manifest.model_copy(update={"config": {**config, "metrics": {"frozen_threshold": 2}}}))
    with pytest.raises(ReportInputError, match="metrics settings .* are not thresholds this harness reads"):
        load_runs([run_dir])


def test_records_outside_the_plan_are_named_and_counted_nowhere(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    planned = [make_record(t, f"reflection {t}", task=MUG) for t in range(2)]
    beyond = make_record(7, "edited by hand", task=MUG)  # `trial: 7` in a 2-trial run
    other_task = make_record(0, "an adopted record", task=SALT)
    other_condition = make_record(0, None, task=MUG, condition="no_memory")
    _write_records(run_dir, [*planned, beyond, other_task, other_condition])
    write_manifest(run_dir, manifest_planning([MUG], trials=2))
    [run] = load_runs([run_dir])
    [condition] = run.metrics.conditions
    [task] = condition.tasks
    assert (condition.condition, condition.totals.tasks, task.trials, task.reflections) == ("self_diagnosis", 1, 2, 2)
    assert [(o.task_id, o.condition, o.trial) for o in run.outside_plan] == [
        (MUG, "self_diagnosis", 7),
        (SALT, "self_diagnosis", 0),
        (MUG, "no_memory", 0),
    ]
    assert run.usage["self_diagnosis"].calls == 2
    text = write_report([run_dir], run_dir, plots=False).read_text()
    assert (
        f"- run: 3 record(s) outside the run's plan, kept but not counted: {MUG} / self_diagnosis / trial 7 (trial "
        f"beyond the run's 2); {SALT} / self_diagnosis / trial 0 (task not one of the run's 1); {MUG} / no_memory / "
        "trial 0 (condition not one of the run's: self_diagnosis)."
    ) in text


def test_finished_runs_of_two_domains_are_never_pooled_into_one_row(
    run_a: Path, humaneval_run: Path, tmp_path: Path
) -> None:
    """Both with metrics.json, so only the domain tells them apart (the issue's 0/7 row)."""
    for run_dir in (run_a, humaneval_run):
        write_metrics(run_dir, load_runs([run_dir])[0].metrics)
        assert load_runs([run_dir])[0].metrics_source == METRICS_FILE
    text = write_report([run_a, humaneval_run], tmp_path / "combined", plots=False).read_text()
    assert "| self_diagnosis (run_a) | m | 1/2 (50%) |" in text
    assert "| self_diagnosis (humaneval_run) | m | 1/1 (100%) |" in text
    assert "| self_diagnosis | m | 2/3" not in text
