"""`reflexion-hotpotqa-runs LOG RUN_DIR`: a published HotpotQA CoT log written as a run directory of the live domain
(harness/audit/hotpotqa_runs.py), for the report to read beside the harness's own runs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from harness.audit.hotpotqa_runs import write_published_run
from harness.errors import HarnessError, fail


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="reflexion-hotpotqa-runs", description=__doc__)
    parser.add_argument("log", type=Path, help="a published CoT log (data/reflexion-logs/hotpotqa_runs/root/CoT/...)")
    parser.add_argument("run_dir", type=Path, help="where to write trials.jsonl and manifest.json")
    args = parser.parse_args(argv)
    try:
        count = write_published_run(args.log, args.run_dir)
    except (HarnessError, OSError, ValueError) as error:
        fail(error)
    print(f"wrote {count} records of {args.log} into {args.run_dir}")


if __name__ == "__main__":
    main()
