"""A config folder Hydra could not read (`--config-dir`, `hydra.searchpath`) and a command line Hydra's argparse
cannot read are refused in one sentence naming the value, exit 2, before Hydra writes anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.cli.test_bad_input import assert_one_sentence, files_under
from tests.in_process import run_in_process

CASES = {
    "config dir missing, --config-dir=": (
        ("--config-dir={tmp}/nonexistent/x",), ("--config-dir={tmp}/nonexistent/x", "does not exist")
    ),
    "config dir missing, --config-dir": (("--config-dir", "{tmp}/absent"), ("--config-dir={tmp}/absent",)),
    "config dir missing, -cd": (("-cd", "{tmp}/absent"), ("--config-dir={tmp}/absent", "does not exist")),
    "config dir a file": (("-cd", "{tmp}/a-file"), ("--config-dir={tmp}/a-file", "is not a directory")),
    "config dir after an override": (
        ("progress=false", "--config-dir", "{tmp}"),
        ("unrecognized arguments: ", "before the overrides"),
    ),
    "an option's value not accepted": (("--cfg", "bogus"), ("'bogus'", "--hydra-help")),
    "search path not a list": (("hydra.searchpath=notalist",), ("hydra.searchpath=notalist is not a list",)),
    "search path folder missing": (
        ("hydra.searchpath=[file://{tmp}/nonexistent]",), ("file://{tmp}/nonexistent does not exist",)
    ),
    "search path plain folder missing": (("hydra.searchpath=[{tmp}/absent]",), ("{tmp}/absent does not exist",)),
    "search path folder a file": (("hydra.searchpath=[file://{tmp}/a-file]",), ("{tmp}/a-file is not a directory",)),
    "search path package missing": (
        ("hydra.searchpath=[pkg://no_such_pkg.configs]",), ("pkg://no_such_pkg.configs is not an importable package",)
    ),
    "search path of strings only": (("hydra.searchpath=[1,2]",), ("hydra.searchpath=[1,2] is not a list of folders",)),
    "search path scheme unknown": (("hydra.searchpath=[fle://{tmp}]",), ("fle://{tmp} has a scheme",)),
}


@pytest.mark.parametrize(("args", "needles"), CASES.values(), ids=CASES.keys())
def test_a_config_folder_hydra_cannot_read_is_one_sentence(
    tmp_path: Path, args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    (tmp_path / "a-file").write_text("x")
    before = files_under(tmp_path)
    run_dir = tmp_path / "run"
    filled = [arg.format(tmp=tmp_path) for arg in args]
    # Hydra's options first, as they must come (the refused order is one of the cases, spelled out in its args).
    result = run_in_process(*filled, "progress=false", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "HYDRA_FULL_ERROR" not in result.stderr, result.stderr
    assert result.stdout == ""
    assert_one_sentence(result.stderr, [needle.format(tmp=tmp_path) for needle in needles])
    assert not run_dir.exists()
    assert files_under(tmp_path) == before
