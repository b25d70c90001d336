"""JSON Lines as the durable logs append them, and the one rule for what may follow the last newline.

Every append writes a whole line and its newline. A crash can stop it anywhere: mid-line (a torn line, which
never validates, since no proper prefix of a JSON object is one) or between the line and its newline; an editor
can also drop a file's final newline. So bytes after the last newline that validate as a whole record are that
record, missing only its newline, and everything else there is a torn write.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)


def split_lines(data: bytes) -> tuple[list[bytes], bytes]:
    """The newline-terminated lines (without their newline) and the bytes after the last newline."""
    *complete, tail = data.split(b"\n")
    return complete, tail


def whole_record(tail: bytes, model: type[Model]) -> Model | None:
    """The record in an unterminated last line when it is a whole one, None when it is torn (or empty)."""
    if not tail:
        return None
    try:
        return model.model_validate_json(tail)
    except ValueError:  # pydantic's ValidationError included
        return None


def add_final_newline(path: Path) -> None:
    """Terminate a file's last line durably, so the next append starts a line of its own."""
    with Path(path).open("ab") as handle:
        handle.write(b"\n")
        handle.flush()
        os.fsync(handle.fileno())
