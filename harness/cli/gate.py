"""`reflexion-gate {review,verify,show} STORE`: the owner's side of the memory gate.

A reflection's memory items reach the store's pile only if they quote an outside turn (user, environment,
tests) exactly; they become live memory only through an APPROVE decision appended to the store's hash
chain (decisions.jsonl). The chain is tamper-evident, not signed: an edited, deleted, inserted or reordered
line, or lines cut from the end, are detected, but anyone who can write the store's files can rewrite the
whole chain consistently and verify will not notice.
"""

from __future__ import annotations

import argparse
import getpass
import io
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from harness.errors import EXIT_BAD_INPUT, EXIT_BROKEN, EXIT_INTERRUPTED, EXIT_PIPE_CLOSED, HarnessError, fail, visible
from harness.gate import (
    CONFIRM, GENESIS, Decision, DecisionLine, GateChainError, GateDecisionError, GateStore, InvalidGateStoreError,
    interactive_review, normalize_quote, scripted_review,
)

_DONE = {Decision.APPROVE: "approved", Decision.REJECT: "rejected"}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one `error:` line like every other error."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message}; see {self.prog} --help.")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reflexion-gate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{review,verify,show}")
    store_help = "the gate store directory (holding store.json)"

    verify = commands.add_parser(
        "verify",
        help="check the decision chain",
        description="Check every line of the decision chain, the links between them and decisions.head. Exit 0 "
        "if intact, 1 at the first bad line. The chain is tamper-evident, not signed: a consistent rewrite of the "
        "whole chain by anyone who can write the store passes.",
    )
    verify.add_argument("store", type=Path, metavar="STORE", help=store_help)

    show = commands.add_parser(
        "show",
        help="print live memory, the pending pile and the dropped log",
        description="Print live memory (from the chain alone), the pending proposals and the dropped log. "
        "Exit 1, without live memory, if the chain is broken.",
    )
    show.add_argument("store", type=Path, metavar="STORE", help=store_help)
    show.add_argument("--scope", metavar="S", help="only this scope (a task id, or 'conversation')")

    review = commands.add_parser(
        "review",
        usage="%(prog)s STORE [--scope S] [--approve ID ...] [--reject ID ...] [--yes] [--reviewer NAME] [--note TEXT]",
        help="approve or reject pending proposals",
        description="Decide pending proposals. Without --approve/--reject: one at a time at a terminal, each "
        f"approval confirmed by typing {CONFIRM}. With them: the named ids, checked before anything is "
        "appended; --approve needs --yes. Each decision is appended to the hash chain (tamper-evident, not "
        "signed).",
    )
    review.add_argument("store", type=Path, metavar="STORE", help=store_help)
    review.add_argument("--scope", metavar="S", help="only proposals of this scope")
    review.add_argument(
        "--approve", nargs="+", action="extend", default=[], metavar="ID", help="make these proposals live memory"
    )
    review.add_argument("--reject", nargs="+", action="extend", default=[], metavar="ID", help="reject these proposals")
    review.add_argument("--yes", action="store_true", help="confirm --approve (required with it)")
    review.add_argument("--reviewer", metavar="NAME", help="who decides (default: the login name)")
    review.add_argument("--note", default="", metavar="TEXT", help="a note stored with each decision")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            # Lessons and quotes are any Unicode; a terminal that cannot show a character must not cost a traceback.
            stream.reconfigure(errors="backslashreplace")
    args = _parser().parse_args(argv)
    try:
        store = GateStore.open(args.store)
        _recover(store)
        if args.command == "verify":
            return _verify(store)
        if args.command == "show":
            return _show(store, args.scope)
        return _review(store, args)
    except HarnessError as error:
        print(f"error: {visible(str(error))}", file=sys.stderr)
        bad_input = isinstance(error, (InvalidGateStoreError, GateDecisionError))
        return EXIT_BAD_INPUT if bad_input else EXIT_BROKEN
    except BrokenPipeError:
        # The reader is gone; point stdout at nothing so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
    except OSError as error:
        print(f"error: {visible(str(error))}", file=sys.stderr)
        return EXIT_BROKEN
    except KeyboardInterrupt:
        print("\nerror: interrupted; every decision made so far is kept.", file=sys.stderr)
        return EXIT_INTERRUPTED


def _recover(store: GateStore) -> None:
    """Finish what a decision killed mid-way left (a torn last line, a line without its newline, a head one line
    behind), as a run does before using the store: a review cut short by a crash is no tampering, and would
    otherwise stop verify, show and review until a run came by. A reviewer who may not write reads it as it is."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the log's own warnings: recover() says the same in its sentence
            repaired = store.recover()
    except (OSError, HarnessError):
        return  # what cannot be read or repaired (a device or a folder in a file's place) the command itself names
    if repaired:
        print(f"repaired {visible(str(store.path))}: {repaired}.", file=sys.stderr)


def _verify(store: GateStore) -> int:
    report = store.verify()
    if not report.ok:
        print(f"chain broken at line {report.first_bad_line}: {report.reason}")
        return EXIT_BROKEN
    print(
        f"chain ok: {report.decisions} decisions ({report.approved} approved, {report.rejected} rejected), "
        f"head {(report.head or GENESIS)[:12]}"
    )
    return 0


def _show(store: GateStore, scope: str | None) -> int:
    if scope is not None:
        # A misspelt scope would show "pending (0)": the owner would read that nothing awaits review.
        scopes = sorted({item.scope for item in [*store.proposals(), *store.dropped()]})
        if scope not in scopes:
            raise InvalidGateStoreError(
                f"--scope {visible(scope)!r} is no scope of {store.path}; its scopes: "
                f"{', '.join(visible(s) for s in scopes) or 'none yet'}."
            )
    report = store.verify()
    if report.ok:
        approvals = [line for line in store.decisions() if line.decision is Decision.APPROVE]
        approvals = [line for line in approvals if scope is None or line.item.scope == scope]
        print(f"live memory ({len(approvals)}):")
        for line in approvals:
            _print_live(line)
        if not approvals:
            print("  (none)")
        pending = store.pending(scope)
        print(f"\npending ({len(pending)}):")
    else:
        print(f"live memory: not shown, the chain is broken at line {report.first_bad_line}: {report.reason}")
        pending = store.proposals(scope)
        print(f"\npile ({len(pending)}; which of these are decided is unknown while the chain is broken):")
    for proposal in pending:
        print(f"  {visible(proposal.id)}  {visible(proposal.lesson)}")
        print(f"      quote: {visible(normalize_quote(proposal.evidence.quote))}")
    if not pending:
        print("  (none)")
    dropped = store.dropped(scope)
    print(f"\ndropped ({len(dropped)}):")
    for drop in dropped:
        print(f"  {visible(drop.reason)}: {visible(drop.detail)} ({visible(drop.scope)}, {visible(drop.origin)})")
    if not dropped:
        print("  (none)")
    return 0 if report.ok else EXIT_BROKEN


def _print_live(line: DecisionLine) -> None:
    item = line.item
    quote = visible(normalize_quote(item.evidence.quote))
    print(f"  - {visible(item.lesson)}")
    print(f"      evidence: turn {item.evidence.turn} ({visible(item.quoted_turn.role)}): {quote}")
    print(
        f"      approved by {visible(line.reviewer)} at {line.at:%Y-%m-%d %H:%M} UTC (chain line {line.seq}, "
        f"id {visible(item.id)})"
    )


def _review(store: GateStore, args: argparse.Namespace) -> int:
    if args.approve and not args.yes:
        raise GateDecisionError("--approve makes proposals live memory, so it needs --yes to confirm.")
    scripted = bool(args.approve or args.reject)
    if not scripted and not sys.stdin.isatty():
        raise GateDecisionError(
            "interactive review needs a terminal on stdin; without one, decide by id with --approve ID --yes "
            "or --reject ID."
        )
    report = store.verify()
    if not report.ok:
        raise GateChainError(
            f"the decision chain of {store.path} is broken at line {report.first_bad_line} ({report.reason}); "
            "nothing can be decided until it is repaired."
        )
    reviewer = args.reviewer or _login_name()
    if scripted:
        for line in scripted_review(store, args.approve, args.reject, reviewer, args.note, args.scope):
            print(f"{_DONE[line.decision]} {visible(line.item.id)} (chain line {line.seq})")
        return 0
    if not store.pending(args.scope):
        print(f"nothing pending in {store.path}.")
        return 0
    outcome = interactive_review(store, reviewer, args.note, args.scope, _ask, print)
    approved = sum(line.decision is Decision.APPROVE for line in outcome.decided)
    print(f"\napproved {approved}, rejected {len(outcome.decided) - approved}, left pending {len(outcome.skipped)}.")
    return 0


def _ask(prompt: str) -> str | None:
    """The typed line without its ending, or None at the end of input."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    typed = sys.stdin.readline()
    return typed.rstrip("\r\n") if typed else None


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment and no passwd entry for this uid
        raise GateDecisionError("cannot tell who is reviewing; name the reviewer with --reviewer NAME.") from None


if __name__ == "__main__":
    sys.exit(main())
