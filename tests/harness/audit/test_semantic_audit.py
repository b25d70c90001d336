"""`reflexion-audit --semantic`: semantic RRR beside RRR per source, and the tasks the two rules disagree on."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from harness.audit import run_audit
from harness.cli.audit import main
from harness.audit.audit_markdown import audit_markdown
from harness.audit.sources import get_source, load_source
from harness.metrics.core import is_frozen, reflection_repetition_rate
from harness.metrics.semantic import SEMANTIC_THRESHOLD, EmbeddingCache, semantic_repetition_rate
from tests.harness.fake_embedder import FAKE_MODEL, FakeEmbedder
from tests.harness.optional_extra import needs_semantic_extra

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "data" / "reflexion-logs"
MAPPING = LOGS / "alfworld_env_to_game.json"
REFLEXION = "alfworld_runs/root/reflexion_run_logs"
BASE = "alfworld_runs/root/base_run_logs"


@pytest.fixture(scope="module")
def alfworld_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A logs folder holding only the two ALFWorld runs."""
    logs = tmp_path_factory.mktemp("logs")
    shutil.copytree(LOGS / "alfworld_runs", logs / "alfworld_runs")
    return logs


def test_both_rates_per_source_and_every_disagreement_listed(alfworld_logs: Path) -> None:
    embedder = FakeEmbedder()
    report = run_audit(alfworld_logs, MAPPING, EmbeddingCache(embedder, FAKE_MODEL), semantic_threshold=0.9)
    semantic = report.semantic
    assert semantic is not None and semantic.threshold == 0.9
    assert [row.source for row in semantic.sources] == [BASE, REFLEXION]
    for row, audit_row in zip(semantic.sources, report.sources, strict=True):
        tasks = load_source(get_source(row.source))
        cache = EmbeddingCache(FakeEmbedder(), FAKE_MODEL)
        rates = {
            t.task_id: (
                reflection_repetition_rate(t.reflections),
                semantic_repetition_rate(cache.embed(t.reflections), 0.9),
            )
            for t in tasks
        }
        only_difflib = [task for task, (d, s) in rates.items() if is_frozen(d) and not is_frozen(s)]
        only_semantic = [task for task, (d, s) in rates.items() if is_frozen(s) and not is_frozen(d)]
        c = row.comparison
        assert (c.n_with_rrr, c.n_frozen) == (audit_row.n_with_rrr, audit_row.n_frozen)
        assert c.n_frozen_semantic == sum(is_frozen(s) for _, s in rates.values())
        assert [t.task_id for t in c.frozen_only_difflib] == only_difflib
        assert [t.task_id for t in c.frozen_only_semantic] == only_semantic
    # One batch, each distinct reflection once, though the two runs share none and tasks repeat their own.
    assert len(embedder.batches) == 1
    assert len(embedder.embedded) == len(set(embedder.embedded)) == semantic.embedding.distinct


def test_the_markdown_shows_the_rule_both_rates_and_the_disagreements(alfworld_logs: Path) -> None:
    report = run_audit(alfworld_logs, MAPPING, EmbeddingCache(FakeEmbedder(), FAKE_MODEL), semantic_threshold=0.9)
    markdown = audit_markdown(report)
    section = markdown[markdown.index("## Semantic repetition beside RRR") : markdown.index("## Skipped sources")]
    assert "cosine similarity to some earlier reflection of the same task is >= 0.9" in section
    c = report.semantic.sources[1].comparison
    assert (
        f"| alfworld | `{REFLEXION}` | 31 | 0.38 | {c.mean_semantic_rrr:.2f} | 16 | {c.n_frozen_semantic} "
        f"| {c.n_frozen_both} | {c.frozen_agreement:.0%} |"
    ) in section
    disagreements = [t for row in report.semantic.sources for t in row.comparison.frozen_only_difflib]
    disagreements += [t for row in report.semantic.sources for t in row.comparison.frozen_only_semantic]
    assert disagreements
    assert f"### Tasks frozen by one rule and not the other ({len(disagreements)})" in section
    for task in disagreements:
        assert f"| {task.task_id} | {task.reflections} | {task.rrr:.2f} | {task.semantic_rrr:.2f} |" in section


def test_without_semantic_the_audit_has_no_semantic_part(alfworld_logs: Path, tmp_path: Path) -> None:
    main(["--logs", str(alfworld_logs), "--out", str(tmp_path)])
    assert json.loads((tmp_path / "audit.json").read_text())["semantic"] is None
    assert "Semantic" not in (tmp_path / "audit.md").read_text()


def test_semantic_without_the_extra_is_one_sentence_before_any_work(
    alfworld_logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(SystemExit) as exit_:
        main(["--semantic", "--logs", str(alfworld_logs), "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -e '.[semantic]'" in err
    assert not (tmp_path / "out").exists()


@needs_semantic_extra
def test_the_real_model_on_the_alfworld_runs(
    semantic_alfworld_audit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The session's audit embedded every reflection (tests/finished_runs.py); run again, it embeds none."""
    first = json.loads((semantic_alfworld_audit / "out" / "audit.json").read_text())["semantic"]
    assert first["threshold"] == SEMANTIC_THRESHOLD
    assert first["embedding"]["distinct"] == first["embedding"]["embedded"] > 0
    rows = {row["source"]: row["comparison"] for row in first["sources"]}
    reflexion = rows[REFLEXION]
    assert (reflexion["n_with_rrr"], reflexion["n_frozen"]) == (31, 16)
    assert sum(row["n_frozen_semantic"] for row in rows.values()) == pytest.approx(23, abs=2)
    cache = tmp_path / "embeddings.npz"
    shutil.copy(semantic_alfworld_audit / "embeddings.npz", cache)
    logs = semantic_alfworld_audit / "logs"
    capsys.readouterr()
    main(["--semantic", "--logs", str(logs), "--embedding-cache", str(cache), "--out", str(tmp_path / "second")])
    second = json.loads((tmp_path / "second" / "audit.json").read_text())["semantic"]
    assert second["embedding"]["embedded"] == 0
    assert second["sources"] == first["sources"]
    assert "0 embedded in 0.0 s" in capsys.readouterr().out
