"""Characters that would act instead of show, made visible: in report tables, pages and the gate's terminal alike.

The table lives in harness/errors.py, below records in the layers, so that the one `error:` line can use it too.
"""

from __future__ import annotations

from harness.errors import visible, visible_in_prose

__all__ = ["visible", "visible_in_prose"]
