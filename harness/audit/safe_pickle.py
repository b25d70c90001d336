"""A restricted unpickler for the published `.joblib` files: builtin data only, nothing constructed or run.

Reflexion saved these files with `joblib.dump` of plain Python objects, which joblib writes as an
ordinary pickle (protocol 4, first byte 0x80) when no compression is asked for and no numpy array is
inside. Lists, dicts, tuples, sets, strings, bytes, numbers, booleans and None each have their own
pickle opcode (sets since protocol 4), so such data never asks the unpickler for a global. Anything
else — a class, a function such as `os.system`, joblib's `NumpyArrayWrapper` — can only arrive
through a global lookup, and every lookup is refused before the object it names is imported.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path

from harness.errors import HarnessError

_PICKLE_PROTO = b"\x80"
"""Protocol 2+ pickles open with the PROTO opcode; joblib's compressed files open with zlib/gzip/... magic."""


class UnsafePickleError(HarnessError):
    """A pickle asks for a class or function; it was refused before anything was imported or called."""

    def __init__(self, *, path: Path, class_name: str) -> None:
        self.path = path
        self.class_name = class_name
        self.detail = (
            f"pickles {class_name}, which the restricted unpickler refuses (it imports nothing and builds only "
            "lists, dicts, tuples, sets, strings, bytes, numbers, booleans and None); nothing was constructed or run"
        )
        super().__init__(f"{path}: {self.detail}.")


class UnreadablePickleError(HarnessError):
    """A file is not a complete plain pickle (compressed, truncated or corrupt)."""

    def __init__(self, *, path: Path, reason: str) -> None:
        self.path = path
        self.detail = f"not a complete plain pickle: {reason}"
        super().__init__(f"{path}: {self.detail}.")


class _RestrictedUnpickler(pickle.Unpickler):
    """An unpickler whose every global lookup is refused; builtin data needs none."""

    def __init__(self, data: bytes, path: Path) -> None:
        super().__init__(io.BytesIO(data))
        self._path = path

    def find_class(self, module: str, name: str) -> type:
        raise UnsafePickleError(path=self._path, class_name=f"{module}.{name}")


def load_restricted_pickle(path: Path) -> object:
    """The builtin data pickled in `path`; raises UnsafePickleError on the first class or function it names."""
    data = path.read_bytes()
    if not data.startswith(_PICKLE_PROTO):
        raise UnreadablePickleError(
            path=path,
            reason=f"it starts with {data[:4]!r}, not a protocol 2+ pickle header (compressed joblib files are not read)",
        )
    try:
        return _RestrictedUnpickler(data, path).load()
    except (EOFError, pickle.UnpicklingError) as error:
        # A refused global raises UnsafePickleError, which is neither: only damaged bytes land here.
        raise UnreadablePickleError(path=path, reason=f"truncated or corrupt ({error})") from error
