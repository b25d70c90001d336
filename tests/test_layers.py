"""The packages of harness/ in layers: each imports only its own layer or those below, and no packages form a loop.

Lazy imports, `if TYPE_CHECKING:` imports and module names in strings all count (see tests/layers.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.layers import arrows, cycles, layer_violations
from tests.runner import ROOT

# Bottom to top. Units in one layer may import each other, as long as they form no loop.
LAYERS = (
    ("records", "errors"),
    ("llm",),
    ("metrics",),
    ("domains", "gate"),
    ("reflection",),
    ("report",),
    ("audit",),
    ("run",),
    ("cli", "extensions"),
)


def test_no_package_of_harness_imports_one_above_it() -> None:
    assert layer_violations(arrows(ROOT, "harness"), LAYERS) == []


def test_the_packages_of_harness_form_no_cycle() -> None:
    assert cycles(arrows(ROOT, "harness")) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


FAKE_LAYERS = (("low",), ("high",))


def test_a_lazy_import_of_a_higher_layer_is_named_with_its_module_and_line(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/base.py": "def helper():\n    from pkg.high.top import thing\n    return thing\n",
        "pkg/high/__init__.py": "",
        "pkg/high/top.py": "from pkg.low.base import helper\nthing = 1\n",
    })
    found = arrows(root, "pkg")
    assert layer_violations(found, FAKE_LAYERS) == [
        "pkg.low.base (line 2) imports pkg.high.top: low (layer 0) may not import high (layer 1)"
    ]
    assert cycles(found) == [
        "cycle among high, low: pkg.high.top (line 1) imports pkg.low.base; pkg.low.base (line 2) imports pkg.high.top"
    ]


def test_a_type_checking_import_and_a_module_named_in_a_string_count(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import top\n",
        "pkg/low/table.py": 'MODULES = ("pkg.high.top",)\n',
        "pkg/high/__init__.py": "",
        "pkg/high/top.py": "",
    })
    assert layer_violations(arrows(root, "pkg"), FAKE_LAYERS) == [
        "pkg.low (line 3) imports pkg.high.top: low (layer 0) may not import high (layer 1)",
        "pkg.low.table (line 1) imports pkg.high.top: low (layer 0) may not import high (layer 1)",
    ]


def test_a_cycle_within_one_layer_and_a_package_in_no_layer_fail(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "from . import helpers\n",
        "pkg/low/helpers.py": "from pkg.side import extra\n",
        "pkg/side/__init__.py": "",
        "pkg/side/extra.py": "from ..low import helpers\n",
    })
    found = arrows(root, "pkg")
    assert cycles(found) == [
        "cycle among low, side: pkg.low.helpers (line 1) imports pkg.side.extra; "
        "pkg.side.extra (line 1) imports pkg.low.helpers"
    ]
    assert layer_violations(found, (("low", "side"),)) == []
    assert "side is in no layer" in layer_violations(found, FAKE_LAYERS)[0]


def test_a_main_module_is_its_package_s_module_like_any_other(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/__main__.py": "from pkg.high import top\n",
        "pkg/high/__init__.py": "",
        "pkg/high/top.py": "",
    })
    assert layer_violations(arrows(root, "pkg"), FAKE_LAYERS) == [
        "pkg.low.__main__ (line 1) imports pkg.high.top: low (layer 0) may not import high (layer 1)"
    ]
