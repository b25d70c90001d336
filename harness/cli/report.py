"""`reflexion-report RUN_DIR... [--out DIR] [--format md,html,csv,latex] [--html] [--semantic ...]`: report.md
and PNG plots for one run or several combined; with --html (or html in --format) report.html beside them, and with
csv or latex the condition, per-task, effects and exact-test tables as .csv or .tex files.
An experiment=propagation run (propagation.json, no trials) is reported alone, in md and html; so is an
experiment=diagnosis_bank run (bank.jsonl, no trials), with its diagnosis.md.

`reflexion-report FOLDER --index [--out DIR]`: index.html, one table of every run, sweep and audit under the
folder (harness.report.index)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from harness.errors import HarnessError, fail, visible
from harness.metrics.semantic import add_semantic_options, semantic_cache
from harness.report import (
    REPORT_FORMATS, ReportFormat, ReportInputError, holding, is_bank_run, load_runs, propagation_study, write_bank_report,
    write_formats, write_propagation_report,
)
from harness.report.index import write_index_page
from harness.records.run_dir import check_output_dir, refuse_symlink_loop, run_holding


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reflexion-report", description=__doc__)
    parser.add_argument(
        "run_dirs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories to report on (--index: one folder)"
    )
    parser.add_argument("--out", type=Path, help="output folder (default: the run directory; required for several)")
    parser.add_argument(
        "--index",
        action="store_true",
        help="write index.html instead: every run, sweep and audit under the one folder given, sortable and filterable",
    )
    parser.add_argument(
        "--html", action="store_true", help="also write report.html: the report and every trial's reflection, one page"
    )
    parser.add_argument(
        "--format",
        dest="formats",
        default="md",
        metavar="FORMATS",
        help=f"comma-separated outputs among {', '.join(REPORT_FORMATS)} (default: md)",
    )
    parser.add_argument(
        "--no-plots", dest="plots", action="store_false", help="draw no PNG plot: the same tables and numbers, faster"
    )
    add_semantic_options(parser)
    return parser


def report_formats(value: str, html: bool) -> list[ReportFormat]:
    """The --format list, with html added by --html; ReportInputError naming an unknown entry."""
    formats: list[ReportFormat] = []
    for entry in value.split(","):
        name = entry.strip()
        if name not in REPORT_FORMATS:
            raise ReportInputError(
                f"--format {value!r} names {name!r}, not a report format; accepted: {', '.join(REPORT_FORMATS)}, "
                "comma-separated."
            )
        formats.append(name)
    return list(dict.fromkeys([*formats, *(["html"] if html else [])]))  # type: ignore[list-item]  # "html" is one


def index_folder(args: argparse.Namespace) -> Path:
    """--index: the one folder given, listed in index.html (in --out when given); ReportInputError otherwise."""
    if len(args.run_dirs) != 1:
        given = len(args.run_dirs)
        raise ReportInputError(f"--index lists one folder, and {given} were given; give the one above them.")
    refuse_symlink_loop(args.run_dirs[0], str(args.run_dirs[0]))
    if args.html or args.formats != "md" or args.semantic or not args.plots:
        raise ReportInputError(
            "--index writes index.html alone; --html, --format, --no-plots and --semantic are for a report of runs."
        )
    if args.out is not None:
        check_output_dir(str(args.out), "--out")
        check_out_in_no_other_run(args.out, [], INDEX_IN_A_RUN)
    return write_index_page(args.run_dirs[0], args.out)


REPORT_OVER_ANOTHER_RUN = (
    "whose report this would replace; give an empty or new folder, a folder of reports, or the run's own directory"
)
INDEX_IN_A_RUN = "and index.html would be written among its files; give a folder outside every run directory"


def check_out_in_no_other_run(out: Path, run_dirs: Sequence[Path], consequence: str) -> None:
    """ReportInputError when `out` is, or is inside, the directory of a run other than `run_dirs`: what the command
    writes would land among that run's files without a word, even while it is still recording. `consequence` ends
    the sentence: what would happen, and what to give instead."""
    found = run_holding(out)
    if found is None or found[0] in {Path(os.path.realpath(run_dir)) for run_dir in run_dirs}:
        return
    directory, held = found
    where = "" if directory == Path(os.path.realpath(out)) else f"inside {directory}, "
    raise ReportInputError(f"--out {out} is {where}another run's directory (it holds {held}), {consequence}.")


def main(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    if args.index:
        try:
            print(f"wrote {visible(str(index_folder(args)))}")
        except HarnessError as error:
            fail(error)
        return
    try:
        formats = report_formats(args.formats, args.html)
        if args.out is None and len(args.run_dirs) > 1:
            raise ReportInputError(
                f"{len(args.run_dirs)} run directories given without --out; say where the combined report goes."
            )
        for run_dir in args.run_dirs:
            refuse_symlink_loop(run_dir, str(run_dir))
            if run_dir.exists() and not run_dir.is_dir():
                # Read as a folder, a file gave "<file>/manifest.json is not a readable manifest; move it away".
                raise ReportInputError(f"{run_dir} is a file, not a run directory; give the folder that holds it.")
        if args.out is not None:
            check_output_dir(str(args.out), "--out")
            check_out_in_no_other_run(args.out, args.run_dirs, REPORT_OVER_ANOTHER_RUN)
        out = args.out or args.run_dirs[0]
        # A plant-and-trace run holds its study record, no trials: reported alone, as md and html.
        study = propagation_study(args.run_dirs, formats, bool(args.semantic))
        embeddings = semantic_cache(args) if study is None else None
        banked = len(args.run_dirs) == 1 and is_bank_run(args.run_dirs[0])
        runs = load_runs(args.run_dirs) if study is None and not banked else []  # refused before --out is made
        with holding(out):
            if study is not None:
                written = write_propagation_report(args.run_dirs[0], out, study, formats)
            elif len(args.run_dirs) == 1 and is_bank_run(args.run_dirs[0]):  # experiment=diagnosis_bank: its tables
                written = write_bank_report(args.run_dirs[0], out)
            else:
                written = write_formats(
                    args.run_dirs, out, formats, embeddings, args.semantic_threshold, runs=runs, plots=args.plots
                )
        if embeddings is not None:
            embeddings.save()
    except HarnessError as error:
        fail(error)
    names = [visible(str(path)) for path in written]  # a path is data: it never moves the cursor or fakes a line
    print("wrote " + (f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]))


if __name__ == "__main__":
    main()
