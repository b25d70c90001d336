"""The data regenerators (`python -m harness.cli.<name>`) refuse `--help`-style mistakes without touching the
shipped file: a stray argument once rewrote data/alfworld/expert_trajectories.json."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from harness.audit.frozen import PUBLISHED_SET
from harness.cli import expert_plays, frozen_set, hotpotqa_boilerplate
from harness.domains.hotpotqa.described import BOILERPLATE_FILE
from harness.audit.expert_trajectories import EXPERT_FILE


@pytest.mark.parametrize(
    ("main", "shipped"),
    [(expert_plays.main, EXPERT_FILE), (hotpotqa_boilerplate.main, BOILERPLATE_FILE), (frozen_set.main, PUBLISHED_SET)],
)
@pytest.mark.parametrize("argv", [["--help"], ["--bogus"]])
def test_a_regenerator_answers_help_or_refuses_a_stray_argument_and_writes_nothing(
    main: Callable[[Sequence[str] | None], None], shipped: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = shipped.stat().st_mtime_ns
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == (0 if argv == ["--help"] else 2)
    out, err = capsys.readouterr()
    assert "usage:" in (out if argv == ["--help"] else err)
    assert shipped.stat().st_mtime_ns == before
