"""The one registry: entries load on first use, unknown names are refused with the accepted ones, and entry points
add entries without replacing the harness's own or stopping it when one is broken."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from harness.records import registry as registry_module
from harness.records.registry import Lazy, Registry, RegistryLoadError, UnknownNameError, choices, load_reference

GROUP = "reflexion_harness.test_only"


@pytest.fixture
def module_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module nobody has imported yet, holding `VALUE` and a nested `Box.inner`."""
    name = f"registry_probe_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text("VALUE = 41\nclass Box:\n    inner = 'in'\nBROKEN = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_a_reference_is_imported_only_when_its_name_is_first_looked_up(module_on_path: str) -> None:
    numbers: Registry[int] = Registry("number", entries={"answer": f"{module_on_path}:VALUE"})
    assert numbers.names() == ["answer"] and module_on_path not in sys.modules
    assert numbers.get("answer") == 41 and module_on_path in sys.modules
    assert load_reference(f"{module_on_path}:Box.inner") == "in"
    assert Lazy.of("module:attr").load() == "module:attr"  # a value given as itself is never imported


def test_an_unknown_name_is_one_sentence_listing_the_accepted_ones() -> None:
    numbers: Registry[int] = Registry("number", entries={"one": 1, "two": 2})
    with pytest.raises(UnknownNameError, match=r"^'three' is not a number; accepted: one, two\.$") as caught:
        numbers.get("three")
    assert caught.value.accepted == ["one", "two"] and isinstance(caught.value, ValueError)
    assert choices(["a", "b", "c"]) == "'a', 'b' or 'c'" and choices(["a"]) == "'a'"


def test_a_reference_that_does_not_load_or_fails_the_check_says_which_and_why(module_on_path: str) -> None:
    numbers: Registry[int] = Registry(
        "number",
        entries={"gone": "no_such_module_anywhere:VALUE", "bad": f"{module_on_path}:BROKEN", "ok": 3},
        check=lambda name, value: None if isinstance(value, int) else "is not an int",
    )
    with pytest.raises(RegistryLoadError, match="number 'gone' could not be loaded from 'no_such_module_anywhere:V"):
        numbers.get("gone")
    with pytest.raises(RegistryLoadError, match=r"number 'bad' \(.*:BROKEN\) is not an int\."):
        numbers.get("bad")
    assert numbers.get("ok") == 3


def entry_points_of(points: list[EntryPoint]):  # type: ignore[no-untyped-def]
    return lambda group: [p for p in points if p.group == group]


def test_entry_points_add_names_but_never_replace_the_harnesss_own(
    module_on_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        registry_module,
        "entry_points",
        entry_points_of(
            [
                EntryPoint("extra", f"{module_on_path}:VALUE", GROUP),
                EntryPoint("own", f"{module_on_path}:VALUE", GROUP),
                EntryPoint("elsewhere", f"{module_on_path}:VALUE", "another.group"),
            ]
        ),
    )
    numbers: Registry[int] = Registry("number", group=GROUP, entries={"own": 1})
    with pytest.warns(UserWarning, match="number 'own' is ignored: that name is taken"):
        assert numbers.ordered() == ["own", "extra"]
    assert numbers.get("own") == 1 and numbers.get("extra") == 41


def test_a_broken_entry_point_is_warned_about_left_out_and_explained_when_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        registry_module, "entry_points", entry_points_of([EntryPoint("broken", "no_such_plugin_module:X", GROUP)])
    )
    numbers: Registry[int] = Registry("number", group=GROUP, entries={"one": 1})
    with pytest.warns(UserWarning, match="number 'broken' could not be loaded"):
        assert numbers.load_all() == {"one": 1}
    assert "broken" not in numbers
    with pytest.raises(RegistryLoadError, match="no_such_plugin_module"):
        numbers.get("broken")


def test_discovery_runs_once_before_the_first_lookup_and_may_register() -> None:
    calls: list[int] = []
    numbers: Registry[int] = Registry("number", discover=lambda: (calls.append(1), numbers.register("found", 7)))
    assert calls == []
    assert numbers.get("found") == 7 and numbers.names() == ["found"] and calls == [1]
    numbers.unregister("found")
    assert "found" not in numbers and calls == [1]


def test_a_keyboard_interrupt_a_plugin_raises_itself_is_its_failure_but_a_ctrl_c_stays_the_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'A module raising KeyboardInterrupt at import is reported as the user's Ctrl-C'; a SIGINT that arrives while
    a plugin imports still stops the command."""
    prefix = f"registry_interrupt_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{prefix}_raises.py").write_text("raise KeyboardInterrupt\n")
    (tmp_path / f"{prefix}_pressed.py").write_text(
        "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [EntryPoint(kind, f"{prefix}_{kind}:X", GROUP) for kind in ("raises", "pressed")]
    monkeypatch.setattr(registry_module, "entry_points", entry_points_of(points))
    numbers: Registry[int] = Registry("number", group=GROUP)
    with pytest.warns(UserWarning, match="'raises' could not be loaded .*it raised KeyboardInterrupt as it was imp"):
        assert "raises" not in numbers
    with pytest.raises(KeyboardInterrupt):
        numbers.get("pressed")
