"""Every process of a sandbox uid ends with one kill(-1) sent as that uid, through setpriv where it is installed."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from envs.sandbox import _uids
from envs.sandbox._uids import kill_user_processes, sandbox_uid, user_processes

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="starting processes as another uid needs root")


@pytest.mark.parametrize("setpriv", [True, False], ids=["setpriv", "subprocess switches the uid"])
def test_one_kill_as_the_uid_ends_all_its_processes(setpriv: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if setpriv and shutil.which("setpriv", path="/usr/bin:/bin") is None:
        pytest.skip("no setpriv here")
    if not setpriv:
        which = shutil.which
        monkeypatch.setattr(
            _uids.shutil, "which", lambda name, path=None: None if name == "setpriv" else which(name, path=path)
        )
    # The wait's one-by-one kills are taken away: only the kill sent as the uid can end them.
    monkeypatch.setattr(_uids.os, "kill", lambda pid, sig: None)
    with sandbox_uid() as uid:
        sleepers = [
            subprocess.Popen(["sleep", "60"], user=uid, group=uid, extra_groups=[], cwd="/", env={}) for _ in range(3)
        ]
        assert len(user_processes(uid)) == 3
        kill_user_processes(uid)
        assert [sleeper.wait(timeout=5) for sleeper in sleepers] == [-9, -9, -9]
        assert user_processes(uid) == {}
