"""`python -m harness.report RUN_DIR... [--out DIR] [--html] [--semantic ...]`: report.md and PNG plots for one run or
several combined, and with --html report.html beside them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.errors import HarnessError
from harness.report._report import write_report
from harness.report._runs import ReportInputError
from harness.report.html import HTML_FILE
from harness.metrics.semantic import add_semantic_options, semantic_cache
from harness.run.run_dir import check_output_dir

EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.report", description=__doc__)
    parser.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories to report on")
    parser.add_argument("--out", type=Path, help="output folder (default: the run directory; required for several)")
    parser.add_argument(
        "--html", action="store_true", help="also write report.html: the report and every trial's reflection, one page"
    )
    add_semantic_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    try:
        if args.out is None and len(args.run_dirs) > 1:
            raise ReportInputError(
                f"{len(args.run_dirs)} run directories given without --out; say where the combined report goes."
            )
        for run_dir in args.run_dirs:
            if run_dir.exists() and not run_dir.is_dir():
                # Read as a folder, a file gave "<file>/manifest.json is not a readable manifest; move it away".
                raise ReportInputError(f"{run_dir} is a file, not a run directory; give the folder that holds it.")
        if args.out is not None:
            check_output_dir(str(args.out), "--out")
        embeddings = semantic_cache(args)
        out = args.out or args.run_dirs[0]
        path = write_report(args.run_dirs, out, embeddings, args.semantic_threshold, html=args.html)
        if embeddings is not None:
            embeddings.save()
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    print(f"wrote {path}" + (f" and {path.with_name(HTML_FILE)}" if args.html else ""))


if __name__ == "__main__":
    main()
