"""`reflexion-audit [run] [--out DIR] [--env-to-game FILE] [--logs DIR] [--html] [--semantic ...]` and
`reflexion-audit show SOURCE TASK`.

Without a subcommand the audit runs, so the short form writes audit.json and audit.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from harness.audit.alfworld_mention import DEFAULT_ENV_TO_GAME
from harness.audit.audit_html import write_audit_html
from harness.audit.audit_report import DEFAULT_OUT, run_audit, write_audit
from harness.audit.paper_claims import paper_lines
from harness.audit.sources import DEFAULT_ROOT, get_source, load_source
from harness.audit.task_inspection import find_task, inspect_task, render_inspection
from harness.errors import HarnessError, fail
from harness.metrics.semantic import add_semantic_options, semantic_cache
from harness.records.run_dir import check_in_no_run, check_output_dir

COMMANDS = ("run", "show")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reflexion-audit", description="Audit the published Reflexion logs.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="write audit.json and audit.md (the default)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: results/audit)")
    run.add_argument("--env-to-game", type=Path, default=DEFAULT_ENV_TO_GAME, help="env_N -> game mapping (JSON)")
    run.add_argument("--logs", type=Path, default=DEFAULT_ROOT, help="folder of the published logs")
    run.add_argument("--html", action="store_true", help="also write audit.html: every task's reflections, one page")
    add_semantic_options(run)
    show = commands.add_parser("show", help="print one task's reflections, similarities, repeats and RRR")
    show.add_argument("source", help="source name, its path under the logs folder (see audit.md)")
    show.add_argument("task", help="task id in that source, e.g. env_22")
    show.add_argument("--logs", type=Path, default=DEFAULT_ROOT, help="folder of the published logs")
    return parser


def _run(args: argparse.Namespace) -> None:
    start = time.perf_counter()
    check_output_dir(str(args.out), "--out")  # before the audit's work, not after it
    check_in_no_run(args.out, "--out", "and audit.json and audit.md would be written among its files; give a folder "
                    "outside every run directory, e.g. results/audit")  # fmt: skip
    # The model is loaded before any log is read, so a missing extra costs a sentence, not an audit's time.
    embeddings = semantic_cache(args)
    report = run_audit(args.logs, args.env_to_game, embeddings, args.semantic_threshold)
    json_path, md_path = write_audit(report, args.out)
    if embeddings is not None:
        embeddings.save()
    html = f" and {write_audit_html(report, args.logs, args.env_to_game, args.out)}" if args.html else ""
    print(
        f"wrote {json_path} and {md_path}{html}: {len(report.sources)} sources, {len(report.skipped)} skipped, "
        f"in {time.perf_counter() - start:.1f} s"
    )
    print(paper_lines(report.paper))
    if report.semantic is not None:
        e = report.semantic.embedding
        print(f"semantic RRR: {e.distinct} distinct reflections, {e.embedded} embedded in {e.embed_seconds:.1f} s")


def _show(args: argparse.Namespace) -> None:
    source = get_source(args.source, args.logs)
    task = find_task(load_source(source), args.task, source.name)
    print(render_inspection(inspect_task(task)))


def main(argv: Sequence[str] | None = None) -> None:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0] not in (*COMMANDS, "-h", "--help"):
        arguments.insert(0, "run")
    args = _parser().parse_args(arguments)
    try:
        _run(args) if args.command == "run" else _show(args)
    except HarnessError as error:
        fail(error)


if __name__ == "__main__":
    main()
