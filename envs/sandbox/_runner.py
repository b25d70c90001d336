"""The child side of the sandbox: isolate this process, run the code, run the tests, report.

Started by `_run.py` as `python -I _runner.py <payload fd>`. It imports only the standard library
because it runs beside the code under test, in the same interpreter. Every result goes to the report
pipe as one JSON line tagged with the parent's nonce and this process's pid; nothing goes to stdout,
which belongs to the code.
"""

import ast
import errno
import importlib.util
import json
import linecache
import os
import reprlib
import sys
import traceback
import types

IMPLEMENTATION_FILE = "<implementation>"
TESTS_FILE = "<tests>"
PREAMBLE_FILE = "<preamble>"
# Failing asserts are rewritten to bind their operands to these names, so the values that made the
# assert fail are reported as computed, without calling the code a second time.
ACTUAL_NAME = "_sandbox_actual_"
EXPECTED_NAME = "_sandbox_expected_"
MAX_REPR = 500
MAX_TEXT = 1000
SETUP_FAILED_EXIT = 70

def _load_sibling(name: str) -> types.ModuleType:
    """A module file beside this one, by path: under `python -I` this directory is not on sys.path."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"sandbox{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CONFINE = _load_sibling("_confine")
_HOST_CHANNELS = _load_sibling("_host_channels")


# ---------------------------------------------------------------- the report channel


class _Channel:
    """JSON lines on the report pipe; the parent ignores lines without its nonce or from another pid."""

    def __init__(self, fd: int, nonce: str) -> None:
        self._fd = fd
        self._nonce = nonce
        self._pid = os.getpid()

    def send(self, event: str, **fields: object) -> None:
        # A process forked by the code continues in this runner; it must not speak for it.
        if os.getpid() != self._pid:
            return
        data = (json.dumps({"event": event, "nonce": self._nonce, "pid": self._pid, **fields}) + "\n").encode()
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:
            pass  # the code closed the pipe; the parent then finds no "done" and says so


# ---------------------------------------------------------------- describing values and exceptions


_repr = reprlib.Repr()
_repr.maxlevel = 6
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdeque = _repr.maxarray = 100
_repr.maxdict = 50
_repr.maxstring = _repr.maxlong = _repr.maxother = MAX_REPR


def _cut(text: str, limit: int) -> str:
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates would break the JSON report
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short_repr(value: object) -> str:
    try:
        return _cut(_repr.repr(value), MAX_REPR)
    except Exception as error:  # a __repr__ of the code's own may raise anything
        return f"<unrepresentable {type(value).__name__}: {type(error).__name__}>"


def _short_str(value: object) -> str:
    try:
        return _cut(str(value), MAX_REPR)
    except Exception as error:  # a __str__ of the code's own may raise anything
        return f"<unprintable {type(value).__name__}: {type(error).__name__}>"


def _frames(error: BaseException) -> list[tuple[types.FrameType, int]]:
    frames, tb = [], error.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _deepest(frames: list[tuple[types.FrameType, int]], filename: str) -> tuple[types.FrameType, int] | None:
    for frame, line in reversed(frames):
        if frame.f_code.co_filename == filename:
            return frame, line
    return None


def _source_line(lines: list[str], number: int | None) -> dict | None:
    if number is None or not 1 <= number <= len(lines):
        return None
    return {"line": number, "text": _cut(lines[number - 1].strip(), MAX_TEXT)}


def _resource_limit(error: BaseException) -> str | None:
    """The limit an exception stands for: how RLIMIT_AS, _FSIZE, _NPROC and the tmpfs size show up in Python."""
    if isinstance(error, MemoryError):
        return "memory"
    if isinstance(error, OSError) and error.errno == errno.EFBIG:
        return "file_size"
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "disk_space"
    if isinstance(error, OSError) and error.errno == errno.EAGAIN:
        return "processes"  # fork() or clone() over RLIMIT_NPROC
    if isinstance(error, RuntimeError) and "can't start new thread" in str(error):
        return "processes"
    return None


def _describe(error: BaseException, code_lines: list[str], test_lines: list[str] | None) -> dict:
    """Type, message, and where it was raised: in the implementation, and in the test script if any."""
    try:
        message = str(error)
    except Exception:
        message = f"<unprintable {type(error).__name__}>"
    frames = _frames(error)
    implementation = _deepest(frames, IMPLEMENTATION_FILE)
    implementation_line = _source_line(code_lines, implementation[1] if implementation else None)
    if isinstance(error, SyntaxError) and error.filename == IMPLEMENTATION_FILE:
        implementation_line = _source_line(code_lines, error.lineno)
    test_line = None
    if test_lines is not None:
        test = _deepest(frames, TESTS_FILE)
        test_line = _source_line(test_lines, test[1] if test else None)
    return {
        "type": type(error).__name__,
        "message": _cut(message, MAX_TEXT),
        "implementation_line": implementation_line,
        "test_line": test_line,
        "resource_limit": _resource_limit(error),
        "system_exit": isinstance(error, SystemExit),
    }


# ---------------------------------------------------------------- running tests


class _BindOperands(ast.NodeTransformer):
    """Rewrite `assert a == b` as `assert (ACTUAL := a) == (EXPECTED := b)`, `assert x` as `assert (ACTUAL := x)`."""

    @staticmethod
    def _bind(name: str, value: ast.expr) -> ast.expr:
        return ast.copy_location(ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=value), value)

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        test = node.test
        if isinstance(test, ast.Compare):
            test.left = self._bind(ACTUAL_NAME, test.left)
            test.comparators[0] = self._bind(EXPECTED_NAME, test.comparators[0])
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test.operand = self._bind(ACTUAL_NAME, test.operand)
        else:
            node.test = self._bind(ACTUAL_NAME, test)
        return node


def _compile_tests(source: str) -> tuple[types.CodeType, list[ast.Assert]]:
    """The instrumented code of a test source, and its asserts as written (for their text and lines)."""
    asserts = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Assert)]
    tree = ast.fix_missing_locations(_BindOperands().visit(ast.parse(source)))
    return compile(tree, TESTS_FILE, "exec", dont_inherit=True), asserts


def _failed_assert(error: AssertionError, source: str, asserts: list[ast.Assert]) -> dict | None:
    """The failing assert of the tests, with the values of its operands; None if the code itself raised it."""
    frames = _frames(error)
    if not frames or frames[-1][0].f_code.co_filename != TESTS_FILE:
        return None
    frame, line = frames[-1]
    enclosing = [node for node in asserts if node.lineno <= line <= (node.end_lineno or node.lineno)]
    node = max(enclosing, key=lambda n: n.lineno, default=None)
    text = ast.get_source_segment(source, node) if node else source.splitlines()[line - 1]
    names = frame.f_locals
    compared = node is not None and isinstance(node.test, ast.Compare)
    return {
        "line": line,
        "source": _cut(" ".join((text or "").split()), MAX_TEXT),
        "actual": _short_repr(names[ACTUAL_NAME]) if ACTUAL_NAME in names else None,
        "actual_str": _short_str(names[ACTUAL_NAME]) if ACTUAL_NAME in names else None,
        "expected": _short_repr(names[EXPECTED_NAME]) if compared and EXPECTED_NAME in names else None,
    }


def _result(source: str, line: int | None, outcome: str, **details: object) -> dict:
    return {"source": _cut(source, MAX_TEXT), "line": line, "outcome": outcome, **details}


def _run_assert(statement: str, namespace: dict, code_lines: list[str]) -> dict:
    """One statement of an assert list, alone."""
    try:
        code, asserts = _compile_tests(statement)
        exec(code, namespace)
    except AssertionError as error:
        failure = _failed_assert(error, statement, asserts)
        if failure is not None:
            return _result(
                statement,
                None,
                "failed",
                actual=failure["actual"],
                actual_str=failure["actual_str"],
                expected=failure["expected"],
            )
        return _result(statement, None, "error", error=_describe(error, code_lines, None))
    except BaseException as error:
        return _result(statement, None, "error", error=_describe(error, code_lines, None))
    finally:
        namespace.pop(ACTUAL_NAME, None)
        namespace.pop(EXPECTED_NAME, None)
    return _result(statement, None, "passed")


def _run_check_script(script: str, entry_point: str, namespace: dict, code_lines: list[str]) -> dict:
    """A test script defining check(candidate), then check(<entry point>); the first failing assert ends it."""
    call = f"check({entry_point})"
    test_lines = script.splitlines()
    try:
        code, asserts = _compile_tests(script)
        exec(code, namespace)
        if entry_point not in namespace:
            raise NameError(f"the code defines no {entry_point!r} for the tests to call")
        if "check" not in namespace:
            raise NameError("the test script defines no check(candidate) function")
        namespace["check"](namespace[entry_point])
    except AssertionError as error:
        failure = _failed_assert(error, script, asserts)
        if failure is not None:
            return _result(
                failure["source"], failure["line"], "failed", actual=failure["actual"], expected=failure["expected"]
            )
        return _result(call, None, "error", error=_describe(error, code_lines, test_lines))
    except BaseException as error:
        return _result(call, None, "error", error=_describe(error, code_lines, test_lines))
    return _result(call, None, "passed")


def _run(payload: dict, channel: _Channel) -> None:
    """Load the code as module `solution`, then run each test, reporting as it goes."""
    code = payload["code"]
    code_lines = code.splitlines()
    # So tracebacks and inspect.getsource inside the code can show its lines.
    linecache.cache[IMPLEMENTATION_FILE] = (len(code), None, code.splitlines(True), IMPLEMENTATION_FILE)
    module = types.ModuleType("solution")
    sys.modules["solution"] = module
    try:
        if payload.get("preamble"):
            exec(compile(payload["preamble"], PREAMBLE_FILE, "exec", dont_inherit=True), module.__dict__)
        exec(compile(code, IMPLEMENTATION_FILE, "exec", dont_inherit=True), module.__dict__)
    except BaseException as error:
        channel.send("loaded", error=_describe(error, code_lines, None))
        return
    channel.send("loaded", error=None)
    tests = payload["tests"]
    if tests["kind"] == "asserts":
        for statement in tests["asserts"]:
            channel.send("test", result=_run_assert(statement, module.__dict__, code_lines))
    else:
        channel.send(
            "test", result=_run_check_script(tests["script"], tests["entry_point"], module.__dict__, code_lines)
        )


def main() -> None:
    with os.fdopen(int(sys.argv[1]), "rb") as handle:
        payload = json.loads(handle.read())
    channel = _Channel(payload["report_fd"], payload.pop("nonce"))
    try:
        isolation = _CONFINE.isolate(payload, _HOST_CHANNELS.shut)
    except Exception:
        channel.send("setup_failed", detail=traceback.format_exc(limit=4))
        os._exit(SETUP_FAILED_EXIT)
    channel.send("ready", isolation=isolation)
    _CONFINE.install_audit_hook(payload["workdir"])
    _run(payload, channel)
    channel.send("done")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # the code may have closed or replaced them
            pass
    # Skip atexit handlers and non-daemon threads the code may have left behind.
    os._exit(0)


if __name__ == "__main__":
    main()
