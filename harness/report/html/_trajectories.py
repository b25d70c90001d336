"""The page's trajectories as one JSON block, each distinct string stored once.

A study holds thousands of trajectories whose steps repeat across trials and conditions ("Nothing happens.", the
same "go to" actions); the page keeps them as indices into one string table and its script builds a trajectory's
steps only when its <details> is opened, so they cost neither parse nor layout time until read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from harness.errors import visible_in_prose


class TrajectoryPool:
    """Trajectories added one by one, each given a number the page refers to."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._strings: list[str] = []
        self._trajectories: list[list[int]] = []

    def _intern(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self._strings)
            self._strings.append(visible_in_prose(text))  # the script sets it as text, where a bidi override acts
        return self._index[text]

    def add(self, steps: Sequence[tuple[str, str]]) -> int:
        """The trajectory's number; its steps as action, observation, action, ... indices."""
        self._trajectories.append([self._intern(text) for step in steps for text in step])
        return len(self._trajectories) - 1

    def script_json(self) -> str:
        """The JSON, safe inside <script type="application/json">: no '<' can close the element or open a comment."""
        data = {"s": self._strings, "t": self._trajectories}
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
