"""Records import models, not machinery: reading a record loads no domain, sandbox, gate, LLM or actor module."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.runner import ROOT

MACHINERY = ("harness.domains", "harness.llm", "harness.gate", "envs.sandbox", "harness.run", "harness.reflection", "openai", "llama_cpp")


def test_importing_the_record_schema_loads_no_machinery() -> None:
    probe = "import json, sys, harness.records; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    assert [m for m in loaded if m.startswith(MACHINERY) or m.rsplit(".", 1)[-1] == "actor"] == []
    assert "harness.records.trial" in loaded and "harness.records.humaneval" in loaded
