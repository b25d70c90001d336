"""`reflexion-audit`: the audit over every shipped source, object mention via the mapping, and `show`."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from harness.cli.audit import main
from harness.audit.paper_claims import HUMANEVAL_RUN
from harness.audit.sources import discover_sources
from harness.domains.hotpotqa.identity import RULE as HOTPOTQA_RULE
from harness.domains.humaneval.identity import RULE as HUMANEVAL_RULE
from tests.harness.report.commonmark import tables
from tests.in_process import run_module

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "data" / "reflexion-logs"
MAPPING = LOGS / "alfworld_env_to_game.json"
REFLEXION = "alfworld_runs/root/reflexion_run_logs"
REFLEXION_DIR = LOGS / REFLEXION


@pytest.fixture(scope="module")
def audit(published_audit: Path) -> tuple[dict, str]:
    """audit.json (parsed) and audit.md of one run of the command over all shipped sources (the session's)."""
    return json.loads((published_audit / "audit.json").read_text()), (published_audit / "audit.md").read_text()


def _row(report: dict, source: str) -> dict:
    (row,) = [row for row in report["sources"] if row["source"] == source]
    return row


def _raw_trials() -> list[dict[str, dict]]:
    """The published run's trial files, read without the importer."""
    files = sorted(REFLEXION_DIR.glob("env_results_trial_*.json"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    return [{entry["name"]: entry for entry in json.loads(path.read_text())} for path in files]


def _simple_rrr(memory: list[str]) -> float | None:
    """RRR written out from its definition, independently of harness.metrics.core."""
    if len(memory) < 2:
        return None
    repeats = 0
    for i in range(1, len(memory)):
        ratios = [difflib.SequenceMatcher(None, memory[i], memory[j]).ratio() for j in range(i)]
        repeats += max(ratios) >= 0.85
    return repeats / (len(memory) - 1)


def test_the_alfworld_reflexion_row_matches_the_study(audit: tuple[dict, str]) -> None:
    row = _row(audit[0], REFLEXION)
    assert (row["n_tasks"], row["n_with_memory"], row["n_with_rrr"], row["n_frozen"]) == (134, 50, 31, 16)


def test_the_alfworld_reflexion_row_agrees_with_a_recount_from_the_raw_files(audit: tuple[dict, str]) -> None:
    row = _row(audit[0], REFLEXION)
    trials = _raw_trials()
    final = trials[-1]
    rates = {env: _simple_rrr(entry["memory"]) for env, entry in final.items()}
    played = {env: next((n + 1 for n, t in enumerate(trials) if t[env]["is_success"]), len(trials)) for env in final}
    defined = {env: rate for env, rate in rates.items() if rate is not None}
    frozen = {env: rate for env, rate in defined.items() if rate >= 0.5}
    assert row["frozen_ratio_over_memory"] == pytest.approx(16 / 50)
    assert row["frozen_ratio_over_rrr"] == pytest.approx(16 / 31)
    assert row["avg_rrr_frozen"] == pytest.approx(sum(frozen.values()) / len(frozen))
    assert row["avg_rrr_with_rrr"] == pytest.approx(sum(defined.values()) / len(defined))
    assert row["reflections_in_frozen"] == sum(len(final[env]["memory"]) for env in frozen)
    over_rrr, over_memory = row["spearman_rrr_vs_trials"]
    expected = spearmanr(list(defined.values()), [played[env] for env in defined])
    assert over_rrr["n"] == 31
    assert (over_rrr["rho"], over_rrr["p"]) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))
    with_memory = [env for env, entry in final.items() if entry["memory"]]
    expected = spearmanr([defined.get(env, 0.0) for env in with_memory], [played[env] for env in with_memory])
    assert (over_memory["n"], over_memory["rho"]) == (50, pytest.approx(expected.statistic))


def test_every_row_is_consistent_and_ratios_without_a_denominator_are_null(audit: tuple[dict, str]) -> None:
    for row in audit[0]["sources"]:
        assert row["n_frozen"] <= row["n_with_rrr"] <= row["n_with_memory"] <= row["n_tasks"], row["source"]
        assert (row["frozen_ratio_over_memory"] is None) == (row["n_with_memory"] == 0)
        assert (row["frozen_ratio_over_rrr"] is None) == (row["n_with_rrr"] == 0)
        assert (row["avg_rrr_frozen"] is None) == (row["n_frozen"] == 0)
    webshop = _row(audit[0], "webshop_runs/reflexion_run_logs_2")
    assert (webshop["n_with_memory"], webshop["n_with_rrr"], webshop["frozen_ratio_over_rrr"]) == (67, 0, None)


def test_programming_runs_report_spearman_as_not_available(audit: tuple[dict, str]) -> None:
    row = _row(audit[0], "programming_runs/root/reflexion_mbpp_rs/mbpp-rs._reflexion_5_gpt-4_pass_at_k_1_rs.jsonl")
    for result in row["spearman_rrr_vs_trials"]:
        assert result["rho"] is None and result["p"] is None
        assert result["reason"] == f"no trial count for {result['n']} of {result['n']} tasks"
    assert "n/a, n=100: no trial count for 100 of 100 tasks" in audit[1]


def test_every_source_is_either_a_row_or_skipped_with_its_reason(audit: tuple[dict, str]) -> None:
    report, markdown = audit
    sources = discover_sources()
    skipped = {s.name: s.skip_reason for s in sources if s.skip_reason}
    assert {s["source"]: s["reason"] for s in report["skipped"]} == skipped
    assert {row["source"] for row in report["sources"]} == {s.name for s in sources if not s.skip_reason}
    assert len(skipped) == 27
    # The last table, as a markdown reader reads it: a reason is data, shown as written.
    shown = {row[0]: row[3] for row in tables(markdown)[-1][1:]}
    assert shown == skipped


def test_the_markdown_groups_rows_by_domain_and_states_the_conventions(audit: tuple[dict, str]) -> None:
    markdown = audit[1]
    assert (
        "| alfworld | `alfworld_runs/root/reflexion_run_logs` | 134 | 50 | 31 | 16 | 0.52 (16/31) | 0.32 (16/50) "
        "| 0.64 | 0.38 | 121 | rho 0.59, p 0.000416, n=31 | rho 0.81, p 1.35e-12, n=50 |"
    ) in markdown
    assert "RRR is undefined, not 0, for a task with fewer than two reflections" in markdown
    assert "frozen / memory = frozen tasks / tasks with memory" in markdown
    domains = [row["domain"] for row in audit[0]["sources"]]
    assert domains == sorted(domains)


def test_object_mention_and_the_frozen_environments_of_the_published_run(audit: tuple[dict, str]) -> None:
    (mention,) = [m for m in audit[0]["object_mention"] if m["source"] == REFLEXION]
    final = _raw_trials()[-1]
    assert mention["all_reflections"]["reflections"] == sum(len(e["memory"]) for e in final.values()) == 200
    assert mention["all_reflections"]["strict"] <= mention["all_reflections"]["normalized"]
    assert mention["frozen_reflections"]["reflections"] == _row(audit[0], REFLEXION)["reflections_in_frozen"]
    lines = (ROOT / "data/alfworld/sets/frozen_published.txt").read_text().splitlines()
    expected = [tuple(reversed(line.split("  # "))) for line in lines if not line.startswith("#")]
    assert [(e["env"], e["game"]) for e in mention["frozen_envs"]] == expected
    game = "pick_cool_then_place_in_recep-Tomato-None-Microwave-10/trial_T20190909_102608_318800"
    assert f"| env_22 | `{game}` | Tomato |" in audit[1]
    assert "| `alfworld_runs/root/reflexion_run_logs` | 188 / 12 / 0 | 0/200 (0%) | 197/200 (98%) |" in audit[1]
    identity = mention["all_identity"]
    assert identity["reflections"] == 200 == identity["on_task"] + identity["off_task"] + identity["vacuous"]


@pytest.fixture
def alfworld_logs(tmp_path: Path) -> Path:
    """A logs folder holding only the two ALFWorld runs, so a second audit takes a moment."""
    logs = tmp_path / "logs"
    shutil.copytree(LOGS / "alfworld_runs", logs / "alfworld_runs")
    return logs


def _mention(out: Path) -> dict:
    report = json.loads((out / "audit.json").read_text())
    (mention,) = [m for m in report["object_mention"] if m["source"] == REFLEXION]
    return mention


def test_another_mapping_changes_object_mention(alfworld_logs: Path, tmp_path: Path) -> None:
    mapping = json.loads(MAPPING.read_text())
    tomato = mapping["env_0"]
    other = tmp_path / "every_env_is_env_0.json"
    other.write_text(json.dumps({env: tomato for env in mapping}))
    main(["run", "--logs", str(alfworld_logs), "--out", str(tmp_path / "shipped")])
    main(["run", "--logs", str(alfworld_logs), "--out", str(tmp_path / "other"), "--env-to-game", str(other)])
    shipped, changed = _mention(tmp_path / "shipped"), _mention(tmp_path / "other")
    assert shipped["all_reflections"]["normalized"] == 197
    assert changed["all_reflections"]["normalized"] < shipped["all_reflections"]["normalized"]
    assert {e["game"] for e in changed["frozen_envs"]} == {tomato}
    assert str(other) in (tmp_path / "other" / "audit.md").read_text()


def test_a_mapping_missing_an_env_with_reflections_is_one_sentence(
    alfworld_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = json.loads(MAPPING.read_text())
    del mapping["env_22"]
    other = tmp_path / "mapping.json"
    other.write_text(json.dumps(mapping))
    with pytest.raises(SystemExit) as exit_:
        main(["--logs", str(alfworld_logs), "--out", str(tmp_path / "out"), "--env-to-game", str(other)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err == (
        f"error: {other} maps no game for env_22; every environment with reflections in "
        "alfworld_runs/root/base_run_logs needs one.\n"
    )
    assert not (tmp_path / "out").exists()


def test_an_out_that_is_a_file_is_refused_before_the_audit_runs(tmp_path: Path) -> None:
    out = tmp_path / "audit.md"
    out.write_text("kept\n")
    result = run_module("harness.cli.audit", "--out", str(out))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"error: --out={out} is a file, not a directory; name a directory.\n"
    assert out.read_text() == "kept\n"


def test_an_out_in_a_run_directory_is_refused_before_the_audit_runs(tmp_path: Path) -> None:
    """'reflexion-audit --out <a run's directory> writes audit.json and audit.md among the run's files (the
    report and the index refuse such a folder now; the audit should too).'"""
    run = tmp_path / "run"
    run.mkdir()
    (run / "trials.jsonl").write_text("")
    for out, where in ((run, ""), (run / "audit", f"inside {run}, ")):
        result = run_module("harness.cli.audit", "--out", str(out))
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr == (
            f"error: --out {out} is {where}a run's directory (it holds trials.jsonl), and audit.json and audit.md "
            "would be written among its files; give a folder outside every run directory, e.g. results/audit.\n"
        )
    assert sorted(path.name for path in run.iterdir()) == ["trials.jsonl"]


def test_show_prints_a_frozen_environment_with_its_similarities(capsys: pytest.CaptureFixture[str]) -> None:
    main(["show", REFLEXION, "env_22"])
    out = capsys.readouterr().out
    memory = _raw_trials()[-1]["env_22"]["memory"]
    assert len(memory) == 14
    for number, reflection in enumerate(memory, start=1):
        assert f"#{number}: {reflection}\n" in out
    assert "similarity(later, earlier), the direction RRR uses" in out
    later_earlier = difflib.SequenceMatcher(None, memory[5], memory[3]).ratio()
    matrix_row = next(line for line in out.splitlines() if line.startswith("#6  "))
    assert f"{later_earlier:.2f}*" in matrix_row
    assert "#6: repeats #4, #5\n" in out
    assert "#2: new (repeats no earlier one)\n" in out
    assert out.rstrip().endswith("RRR = 8 repeating / 13 after the first = 0.62: frozen (frozen means RRR >= 0.5).")


def test_show_names_an_unknown_task_and_its_close_matches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["show", REFLEXION, "env_222"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err == f"error: source {REFLEXION} has no task 'env_222'. Closest: env_22, env_122, env_2.\n"


def test_show_an_unknown_source_exits_2_with_one_line() -> None:
    result = run_module("harness.cli.audit", "show", "alfworld_runs/root/reflexion_run_log", "env_22")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "'alfworld_runs/root/reflexion_run_log'" in result.stderr
    assert "Closest: alfworld_runs/root/reflexion_run_logs" in result.stderr


def test_the_humaneval_and_hotpotqa_runs_report_task_identity_beside_rrr(audit: tuple[dict, str]) -> None:
    report, markdown = audit
    by_source = {identity["source"]: identity for identity in report["identity"]}
    code = by_source["programming_runs/root/reflexion_humaneval_py_pass_at_1/reflexion_humaneval_py_pass_at_1.jsonl"]
    assert code["rule"] == HUMANEVAL_RULE and code["identity"]["reflections"] > 100
    assert code["frozen_identity"]["reflections"] == _row(report, code["source"])["reflections_in_frozen"]
    hotpotqa = [identity for identity in report["identity"] if identity["domain"] == "hotpotqa"]
    assert hotpotqa and all(identity["rule"] == HOTPOTQA_RULE for identity in hotpotqa)
    assert any(identity["identity"]["reflections"] > 200 for identity in hotpotqa)
    assert "## Task identity in the HumanEval and HotpotQA runs" in markdown
    checks = {check["claim"]["id"]: check for check in report["paper"]}
    for claim in ("table1_hotpotqa", "table1_humaneval", "abstract_frozen", "humaneval_error_types"):
        assert "task identity (`" in checks[claim]["logs"], claim


def test_the_identity_sections_frozen_column_is_over_tasks_with_rrr(audit: tuple[dict, str]) -> None:
    """The frozen share's one denominator, tasks with RRR; HumanEval's published run has tasks with one reflection,
    so tasks with memory (its 4/30) would read otherwise."""
    report, markdown = audit
    (identity,) = [table for table in tables(markdown) if "tasks labelled" in table[0]]
    frozen = identity[0].index("frozen")
    cells = {row[1].strip("`"): row[frozen] for row in identity[1:]}
    rows = {row["source"]: row for row in report["sources"] if row["source"] in cells}
    assert rows and all(cells[s] == f"{r['n_frozen']}/{r['n_with_rrr']}" for s, r in rows.items())
    assert cells[HUMANEVAL_RUN] == "4/23"
