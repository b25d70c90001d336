"""`env.frozen_in` as a setting of every domain's env config: the selection run's directory, made absolute.

The resolved config is what the manifest records and what a resumption is compared with: a relative path would
name another directory, or none, once the same run is resumed from elsewhere. An empty value is refused rather than
read as the current directory. Light on purpose: every env config imports it; reading the selection run and choosing
its frozen tasks is harness/run/held_out.py's.
"""

from __future__ import annotations

import os
from typing import Annotated

from pydantic import AfterValidator


def absolute_run_dir(value: str | None) -> str | None:
    """`value` as an absolute, normalised path (`~` expanded), None kept; ValueError for an empty one."""
    if value is None:
        return None
    if not value.strip():
        raise ValueError("it is empty: name the selection run's directory, or leave env.frozen_in unset (null)")
    return os.path.abspath(os.path.expanduser(value))


FrozenIn = Annotated[str | None, AfterValidator(absolute_run_dir)]
"""The type of every env config's `frozen_in`."""
