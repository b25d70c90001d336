"""`reflexion-report RUN --format csv,latex` on real replays: every figure of the tables is metrics.json's
or effects.json's; runs read into DataFrames (harness.report.frames); an older metrics.json still reads the same."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pandas
import pytest

from harness.metrics.run import METRICS_FILE, run_metrics
from harness.metrics.task_shares import task_share
from harness.records import TRIALS_FILE, RunPlan
from harness.report._runs import load_run
from harness.report.frames import load_conditions, load_trials
from harness.report.table_files import latex_cell
from harness.report.tables import conditions_table
from tests.harness.metrics.test_repeats import two_tasks_two_repeats
from tests.harness.report.commonmark import blocks_markdown
from tests.in_process import Outcome, run_module

IDENTITY = ("on_task", "off_task", "vacuous")
REPEATS_PLAN = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=3, repeats=2)

pytestmark = pytest.mark.slow


def report(*args: str | Path) -> Outcome:
    """`reflexion-report` without PNGs: these tests read its tables."""
    return run_module("harness.cli.report", *map(str, args), "--no-plots")


@pytest.fixture(scope="module")
def runs(small_run: Path, hotpotqa_demo_run: Path, five_conditions_run: Path) -> dict[str, Path]:
    """The session's finished runs by their folder names (the DataFrames' `run` column)."""
    return {run.name: run for run in (small_run, hotpotqa_demo_run, five_conditions_run)}


@pytest.fixture(scope="module")
def five(five_conditions_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the five-condition demo with its CSV and LaTeX tables written beside its report."""
    run = Path(shutil.copytree(five_conditions_run, tmp_path_factory.mktemp("tables") / "five"))
    result = report(run, "--format", "csv,latex")
    assert result.returncode == 0, result.stderr
    return run


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def cell(value: Any) -> str:
    """A metrics.json value as the csv module writes it."""
    return "" if value is None else str(value)


def bounded(prefix: str, count: int | None, share: dict[str, Any] | None) -> dict[str, str]:
    share = share or {}
    values = (count, share.get("share"), share.get("low"), share.get("high"))
    return {k: cell(v) for k, v in zip([prefix, f"{prefix}_rate", f"{prefix}_low", f"{prefix}_high"], values)}


def over_tasks(prefix: str, per_task: list[tuple[int, int]] | None) -> dict[str, str]:
    """A share of reflections' columns over tasks, from metrics.json's per-task counts."""
    share = task_share(per_task) if per_task is not None else None
    values = (None,) * 4 if share is None else (share.tasks, share.share, share.low, share.high)
    columns = [f"{prefix}_tasks", f"{prefix}_task_mean", f"{prefix}_task_low", f"{prefix}_task_high"]
    return {k: cell(v) for k, v in zip(columns, values)}


def expected_condition(report: dict[str, Any]) -> dict[str, str]:
    t, tasks = report["totals"], report["tasks"]
    intervals, identity = t["intervals"], t["identity"]
    expected = {
        "condition": report["condition"],
        "actor_model": report["actor_model"],
        "reflector_model": report["reflector_model"],
        **{k: cell(t[k]) for k in ("tasks", "repeats", "solved_share", "rrr_defined", "mean_rrr", "frozen")},
        **{k: cell(t[k]) for k in ("frozen_share", "malformed")},
        **bounded("solved", t["solved"], intervals["solved"]),
        "reflections": cell(t["mentions"]["reflections"]),
        **bounded("mention_strict", t["mentions"]["strict"], intervals["strict"]),
        **bounded("mention_normalized", t["mentions"]["normalized"], intervals["normalized"]),
        "identity_reflections": cell(identity and identity["reflections"]),
    }
    for variant in ("strict", "normalized"):
        mentions = [(task["mentions"][variant], task["mentions"]["reflections"]) for task in tasks]
        expected |= over_tasks(f"mention_{variant}", mentions)
    for label in IDENTITY:
        expected |= bounded(label, identity and identity[label]["count"], identity and identity[label])
        labels = [(task["identity"][label], task["identity"]["reflections"]) for task in tasks] if identity else None
        expected |= over_tasks(label, labels)
    return expected


def test_the_condition_table_holds_metrics_json_figures_and_intervals(five: Path) -> None:
    metrics = json.loads((five / METRICS_FILE).read_text())
    rows = read_csv(five / "conditions.csv")
    assert [r["condition"] for r in rows] == [c["condition"] for c in metrics["conditions"]]
    for row, condition in zip(rows, metrics["conditions"]):
        expected = expected_condition(condition)
        assert {k: row[k] for k in expected} == expected
    # A Wilson interval is there, and bounds its share, where the replay has figures.
    assert all(float(r["solved_low"]) <= float(r["solved_rate"]) <= float(r["solved_high"]) for r in rows)
    assert any(r["on_task_low"] and 0 < float(r["on_task_low"]) < float(r["on_task_high"]) < 1 for r in rows)
    # The interval over the tasks is there for every condition that wrote a reflection (Clopper-Pearson over tasks
    # has one at any number of tasks: the gated condition's one task too); it is no narrower than Wilson's over the
    # reflections pooled, which takes a task's reflections as independent.
    over = [r for r in rows if r["on_task_task_low"]]
    assert [r["condition"] for r in over] == [r["condition"] for r in rows if r["on_task_rate"]]
    assert {r["on_task_tasks"] for r in over} == {"3", "1"}
    for row in over:
        wilson = float(row["on_task_high"]) - float(row["on_task_low"])
        assert float(row["on_task_task_high"]) - float(row["on_task_task_low"]) >= wilson
        assert float(row["on_task_task_low"]) <= float(row["on_task_task_mean"]) <= float(row["on_task_task_high"])


def test_the_frozen_share_is_frozen_tasks_over_tasks_with_an_rrr_and_blank_without_one(five: Path) -> None:
    """The condition table's denominator: not all tasks (a condition with a task of undefined RRR would read
    lower), and no_memory, which wrote no reflection, has no share at all rather than 0."""
    rows = {r["condition"]: r for r in read_csv(five / "conditions.csv")}
    for row in rows.values():
        defined = int(row["rrr_defined"])
        assert row["frozen_share"] == (str(int(row["frozen"]) / defined) if defined else "")
    assert (rows["no_memory"]["rrr_defined"], rows["no_memory"]["frozen_share"]) == ("0", "")
    assert any(0 < int(r["rrr_defined"]) < int(r["tasks"]) and int(r["frozen"]) for r in rows.values())


def test_the_tables_on_task_share_and_the_effects_on_task_rate_are_one_estimand(five: Path) -> None:
    """Issue 48: the condition table's on-task share weighted tasks by their reflections (grounded_template 40%) where
    the effects took each task once (0.333). Both are now the mean over tasks of each task's share."""
    conditions = {r["condition"]: r for r in read_csv(five / "conditions.csv")}
    rows = [r for r in read_csv(five / "effects.csv") if r["measure"] == "on_task_rate" and r["dropped"] == "0"]
    assert {r["condition"] for r in rows} >= {"grounded_template", "model_swap"}
    for row in rows:
        assert float(row["condition_mean"]) == pytest.approx(float(conditions[row["condition"]]["on_task_task_mean"]))
        assert float(row["control_mean"]) == pytest.approx(float(conditions["self_diagnosis"]["on_task_task_mean"]))
    grounded = conditions["grounded_template"]
    assert (float(grounded["on_task_task_mean"]), float(grounded["on_task_rate"])) == (pytest.approx(1 / 3), 0.4)


def test_the_task_table_holds_metrics_json_per_task_figures(five: Path) -> None:
    metrics = json.loads((five / METRICS_FILE).read_text())
    expected = [
        {
            "condition": c["condition"], "task": t["task_id"], "trials": cell(t["trials"]), "rrr": cell(t["rrr"]),
            "solved": cell(t["solved"]), "solved_trial": cell(t["solved_trial"]), "frozen": cell(t["frozen"]),
            "mention_strict": cell(t["mentions"]["strict"]), "reflections": cell(t["reflections"]),
            **{label: cell(t["identity"] and t["identity"][label]) for label in IDENTITY},
        }
        for c in metrics["conditions"]
        for t in c["tasks"]
    ]  # fmt: skip
    rows = read_csv(five / "tasks.csv")
    assert [{k: row[k] for k in e} for row, e in zip(rows, expected)] == expected
    assert len(rows) == len(expected)


def test_effects_and_exact_tests_are_effects_json_and_metrics_json(five: Path) -> None:
    effects = json.loads((five / "effects.json").read_text())
    rows = read_csv(five / "effects.csv")
    fields = ("measure", "condition", "n", "dropped", "difference", "ci_low", "ci_high", "test", "p", "p_holm")
    assert [{f: r[f] for f in fields} for r in rows] == [{f: cell(e[f]) for f in fields} for e in effects["rows"]]
    assert {r["control"] for r in rows} == {effects["control"]}
    tests = json.loads((five / METRICS_FILE).read_text())["solved_tests"]
    pairs = read_csv(five / "solved_tests.csv")
    assert len(tests) == 15  # every pair of the six conditions
    assert [(p["condition_a"], p["condition_b"], p["p"], p["p_holm"]) for p in pairs] == [
        (t["a"], t["b"], cell(t["test"]["p"]), cell(t["p_holm"])) for t in tests
    ]


def latex_rows(path: Path) -> list[list[str]]:
    lines = path.read_text().splitlines()
    body = lines[lines.index("\\midrule") + 1 : lines.index("\\bottomrule")]
    return [line.removesuffix(" \\\\").split(" & ") for line in [lines[2], *body]]


def is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def as_number(value: str) -> int | float:
    return int(value) if value.lstrip("-").isdigit() else float(value)


def test_the_latex_tables_say_what_the_csv_tables_say(five: Path) -> None:
    for name in ("conditions", "tasks", "effects", "solved_tests"):
        table = read_csv(five / f"{name}.csv")
        header, *rows = latex_rows(five / f"{name}.tex")
        assert header == [c.replace("_", "\\_") for c in table[0]]
        assert len(rows) == len(table)
        for row, values in zip(rows, table):
            for text, value in zip(row, values.values()):
                if value in ("", "True", "False"):
                    assert text == {"": "--", "True": "yes", "False": "no"}[value]
                else:
                    assert text == (latex_cell(as_number(value)) if is_number(value) else value.replace("_", "\\_"))


def test_a_bad_format_is_one_sentence_and_nothing_is_written(five: Path) -> None:
    before = sorted((p.name, p.stat().st_mtime_ns) for p in five.iterdir())
    result = report(five, "--format", "csv,docx")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: --format 'csv,docx' names 'docx', not a report format; accepted: md, html, csv, latex, "
        "comma-separated."
    ]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in five.iterdir()) == before


def test_a_metrics_json_without_intervals_and_tests_reads_the_same(five: Path, tmp_path: Path) -> None:
    old = shutil.copytree(five, tmp_path / "old")
    metrics = json.loads((old / METRICS_FILE).read_text())
    del metrics["solved_tests"]
    for condition in metrics["conditions"]:
        del condition["totals"]["intervals"]
    (old / METRICS_FILE).write_text(json.dumps(metrics, indent=2))
    assert load_run(old, "old").metrics_source == METRICS_FILE
    (old / TRIALS_FILE).unlink()
    alone = load_run(old, "old").metrics
    assert alone.model_dump_json(indent=2) == (five / METRICS_FILE).read_text()


def test_three_replays_as_dataframes(runs: dict[str, Path]) -> None:
    dirs = list(runs.values())
    trials = load_trials(dirs)
    for name, run in runs.items():
        lines = [json.loads(line) for line in (run / TRIALS_FILE).read_text().splitlines() if line.strip()]
        mine = trials[trials["run"] == name]
        assert len(mine) == len(lines)
        assert list(mine["success"]) == [line["success"] for line in lines]
        assert list(mine["prompt_tokens"]) == [line["usage"]["prompt_tokens"] for line in lines]
        assert [None if pandas.isna(r) else r for r in mine["reflection"]] == [line["reflection"] for line in lines]
    assert set(trials["domain"]) == {"alfworld", "hotpotqa"}

    conditions = load_conditions(dirs)
    for name, run in runs.items():
        metrics = json.loads((run / METRICS_FILE).read_text())
        mine = conditions[conditions["run"] == name]
        assert list(mine["condition"]) == [c["condition"] for c in metrics["conditions"]]
        assert list(mine["solved"]) == [c["totals"]["solved"] for c in metrics["conditions"]]
        assert list(mine["solved_high"]) == [c["totals"]["intervals"]["solved"]["high"] for c in metrics["conditions"]]
        solved = trials[(trials["run"] == name) & trials["success"]]
        assert list(mine["solved"]) == [
            solved[solved["condition"] == c["condition"]]["task"].nunique() for c in metrics["conditions"]
        ]


def test_the_condition_tables_frozen_cell_counts_tasks_not_chains() -> None:
    """Two tasks of two repeats, each frozen by the mean RRR of its chains though half its chains froze: the cell
    is 2/2 with its share, as metrics.json's frozen_share, with no second share of chains beside it."""
    report = run_metrics(two_tasks_two_repeats(), REPEATS_PLAN, {"a": "SaltShaker", "b": "SaltShaker"})
    table = blocks_markdown(conditions_table(report.conditions, ["A rule."])).splitlines()
    assert table[2].split(" | ")[-2] == "2/2 (100%)"
    assert report.conditions[0].totals.frozen_share == 1.0
