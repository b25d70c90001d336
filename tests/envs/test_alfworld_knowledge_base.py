"""textworld's knowledge base, parsed by the first process that imports textworld with a translations folder and
read from the folder by the next: the same logic either way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A fresh process: import the engine with the translations folder argv[1] (or none), then print what its knowledge
# base holds and whether it was read from the folder or parsed.
IMPORT = """
import json, sys
from pathlib import Path
from envs.alfworld_engine import load_engine
from envs.alfworld_knowledge_base import PersistedLogic
from envs.alfworld_memos import keep_translations_in
keep_translations_in(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
load_engine()
import textworld.logic
from tests.envs.test_alfworld_knowledge_base import described
load = textworld.logic.GameLogic.load.__func__
reads, writes = (load.reads, load.writes) if isinstance(load, PersistedLogic) else (None, None)
print(json.dumps({"kb": described(), "reads": reads, "writes": writes}))
"""

def described() -> dict:
    """The knowledge base's logic as text: its document, rules, types and constraints."""
    from textworld.generator.data import KB

    return {
        "document": KB.logic.serialize(),
        "rules": {name: str(rule) for name, rule in KB.rules.items()},
        "constraints": {name: str(rule) for name, rule in KB.constraints.items()},
        "types": sorted(str(t) for t in KB.logic.types),
    }


def imported(*folder: Path) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", IMPORT, *map(str, folder)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_next_process_reads_the_knowledge_base_the_first_parsed(tmp_path: Path) -> None:
    folder = tmp_path / "translations"
    plain, first, second = imported(), imported(folder), imported(folder)
    assert plain["reads"] is None, "without a folder textworld's own load was replaced"
    assert (first["reads"], first["writes"]) == (0, 1), "the first process did not keep its parse"
    assert (second["reads"], second["writes"]) == (1, 0), "the next process parsed again"
    assert plain["kb"] == first["kb"] == second["kb"]
    assert [p.name for p in folder.iterdir()] == ["knowledge_base"], "kept beside the translations' own pickles"


def test_a_torn_knowledge_base_is_parsed_again(tmp_path: Path) -> None:
    folder = tmp_path / "translations"
    first = imported(folder)
    (kept,) = (folder / "knowledge_base").iterdir()
    kept.write_bytes(kept.read_bytes()[:100])
    again = imported(folder)
    assert (again["reads"], again["writes"]) == (0, 1)
    assert again["kb"] == first["kb"]
