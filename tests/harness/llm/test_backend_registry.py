"""The backend registry: optional dependencies load lazily, and a missing one is a clear error, not a crash."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import MissingAPIKeyError
from harness.llm import Backend, ModelConfig, create_backend

# Blocks both optional packages before anything imports them, as on a machine without them.
WITHOUT_OPTIONAL_PACKAGES = """
import sys
sys.modules["openai"] = None
sys.modules["llama_cpp"] = None
import harness.llm
from harness.errors import LLMError
for backend, model in (("openai", "gpt-4o-mini"), ("llamacpp", "smollm2-135m")):
    try:
        harness.llm.create_backend(harness.llm.ModelConfig(name="x", backend=backend, model=model))
    except LLMError as error:
        print(error)
"""


def test_import_and_errors_without_optional_packages() -> None:
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_OPTIONAL_PACKAGES],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert run.returncode == 0, run.stderr
    openai_line, llamacpp_line = run.stdout.strip().splitlines()
    assert "'openai'" in openai_line and "pip install openai" in openai_line
    assert "'llama_cpp'" in llamacpp_line and "pip install llama-cpp-python==0.3.36" in llamacpp_line


def test_created_backends_satisfy_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    backend = create_backend(ModelConfig(name="gpt", backend="openai", model="gpt-4o-mini", api="chat"))
    assert isinstance(backend, Backend)
    assert backend.identity == "openai/chat:gpt-4o-mini"


def test_config_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="extra"):
        ModelConfig.model_validate({"name": "x", "backend": "openai", "model": "m", "temprature": 0.5})


def test_missing_default_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY is not set"):
        create_backend(ModelConfig(name="gpt", backend="openai", model="gpt-4o-mini"))
