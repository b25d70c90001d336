"""harness/errors.py: the one `error:` line shows the control characters of its sentence instead of sending them."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError, fail
from tests.harness.control_characters import acting


def test_fail_prints_one_line_with_every_control_character_shown(capsys: pytest.CaptureFixture[str]) -> None:
    sentence = "bad \x1b[31mvalue\u202e\u2066 \x85 and\nerror: a line of its own\r\t\x00\x7f"
    with pytest.raises(SystemExit) as exit_:
        fail(ConfigError(sentence))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "error: bad ␛[31mvalue<U+202E><U+2066> <U+0085> and␊error: a line of its own␍␉␀␡\n"
    )
    assert acting(err) == [] and err.count("\n") == 1
