"""`python -m envs.sandbox --code FILE --tests FILE`: run code against tests, print the verdict as JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envs.sandbox import (
    AssertTests,
    CheckScript,
    SandboxError,
    SandboxLimits,
    TestSuite,
    run_tests,
)

EPILOG = """\
The tests file is read in one of two ways:
  without --entry-point  a list of asserts: every top-level statement of the file is one test, run
                         alone in the code's namespace, so one failure does not hide the others
                         (e.g. lines such as `assert add(1, 2) == 3`);
  with --entry-point     a test script such as HumanEval's `test` field: it must define
                         check(candidate); it runs, then check(NAME) is called, and the first failing
                         assert is named by its line within the script.
Exit status: 0 if the verdict is passed, 1 for any other verdict, 2 for bad arguments or files,
3 if the sandbox itself failed.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m envs.sandbox",
        description="Run untrusted Python code against tests in the sandbox and print the verdict as JSON.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--code", required=True, type=Path, metavar="FILE", help="the implementation (Python source)")
    parser.add_argument("--tests", required=True, type=Path, metavar="FILE", help="the tests (see below)")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="wall-time limit in seconds (10)")
    parser.add_argument("--entry-point", metavar="NAME", help="read the tests as a check() script; call check(NAME)")
    return parser


def _read(parser: argparse.ArgumentParser, path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        parser.exit(2, f"Cannot read the {what} file {path}: {error}.\n")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.exit(2, f"--timeout must be a positive number of seconds, got {args.timeout:g}.\n")
    code = _read(parser, args.code, "code")
    source = _read(parser, args.tests, "tests")
    tests: TestSuite
    if args.entry_point:
        tests = CheckScript(script=source, entry_point=args.entry_point)
    else:
        try:
            tests = AssertTests.from_source(source)
        except SyntaxError as error:
            parser.exit(2, f"The tests file {args.tests} is not valid Python (line {error.lineno}: {error.msg}).\n")
        except ValueError:
            parser.exit(2, f"The tests file {args.tests} holds no statements; write one assert per line.\n")
    try:
        verdict = run_tests(code, tests, SandboxLimits(timeout_s=args.timeout))
    except SandboxError as error:
        print(f"The sandbox failed: {error}", file=sys.stderr)
        return 3
    print(verdict.model_dump_json(indent=2))
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    sys.exit(main())
