"""`reflexion-diagnosis FILE.jsonl`: where each failed trial was lost, and whether its reflection says so.

Reads JSON lines, one failed trial and its reflection each, and prints one JSON line per input line, in order: the
input's keys as given, then `decisive_step` (1-based index into the trial's steps, or null), `category`,
`error_steps`, `localises`, `claimed_steps`, `hit` (the reflection names the decisive step; null without one) and
`confabulated` (it states something its trial does not hold), and `unscored` (why the trial could not be scored,
or null). A key of the input with one of these names is replaced. `-` reads standard input. Extra keys are ignored.

  {"domain": "alfworld", "task": "<task folder/trial folder>", "steps": [{"action", "observation"}, ...],
   "reflection": "..."}                           (every recorded step, thoughts included: the command replays them)
  {"domain": "hotpotqa", "task", "question", "thought", "answer" (null: the action did not parse), "gold",
   "supporting_facts": [[title, sent_id, sentence], ...], "reflection"}
  {"domain": "humaneval", "task": "HumanEval/<n>", "prompt", "implementation", "feedback", "reflection"}

Every line is read before anything is printed: a bad line is one sentence naming the line and the field, exit 2.

`reflexion-diagnosis RUN_DIR` instead writes RUN_DIR/diagnosis.jsonl for a run played without
`metrics.diagnosis=true` (resuming one written part-way), which its report then shows.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from harness.domains.registry import build_domain, domain_spec, domain_specs
from harness.cli.json_lines import LineInputError, parsed_object, print_json_lines, read_lines, require_stdout
from harness.errors import HarnessError, fail
from harness.records import read_manifest, read_trials
from harness.records.diagnosis import GroundTruth, ReflectionClaims
from harness.run.diagnosis_stage import diagnose_run, diagnosis_rules

OUTPUT_KEYS = (
    "decisive_step", "category", "error_steps", "localises", "claimed_steps", "hit", "confabulated", "unscored",
)


class DiagnosisInputError(LineInputError):
    """A line of the command's input that cannot be diagnosed."""


def verdict(truth: GroundTruth, claims: ReflectionClaims) -> dict[str, Any]:
    """The command's fields for one trial's ground truth and its reflection's claims."""
    decisive = truth.decisive_step if truth.scored else None
    return {
        "decisive_step": decisive,
        "category": truth.category if truth.scored else None,
        "error_steps": truth.error_steps if truth.scored else [],
        "localises": bool(claims.claimed_steps) or claims.ambiguous,
        "claimed_steps": claims.claimed_steps,
        "hit": None if decisive is None else decisive in claims.claimed_steps,
        "confabulated": claims.confabulated,
        "unscored": None if truth.scored else truth.unscored,
    }


def diagnose_line(line: str, number: int, source: str) -> dict[str, Any]:
    """One input line with the command's fields added; DiagnosisInputError naming the line and the field."""
    where = f"{source} line {number}"
    item = parsed_object(line, where, "a trial's line", "{'domain', 'task', ..., 'reflection'}")
    domain = item.get("domain")
    ruled = [spec.name for spec in domain_specs() if spec.line_diagnosis is not None]
    if domain not in ruled:
        raise DiagnosisInputError(f"{where}: 'domain' is {domain!r}; accepted: {', '.join(ruled) or 'none'}.")
    if not isinstance(item.get("reflection"), str):
        raise DiagnosisInputError(f"{where}: 'reflection' (the reflection, a string) is missing.")
    rule = domain_spec(domain).line_diagnosis
    assert rule is not None
    try:
        truth, claims = rule.load()(item)
    except (ValueError, TypeError, KeyError) as error:
        raise DiagnosisInputError(f"{where}: {error}") from None
    return {**item, **verdict(truth, claims)}


def diagnose_lines(lines: Iterable[str], source: str) -> list[dict[str, Any]]:
    """Every non-blank line diagnosed, in order; the first bad line stops it before anything is printed."""
    return [diagnose_line(line, number, source) for number, line in enumerate(lines, start=1) if line.strip()]


def diagnose_run_dir(run_dir: Path) -> str:
    """Write RUN_DIR/diagnosis.jsonl; the sentence saying what was written."""
    manifest = read_manifest(run_dir)
    if manifest is None:
        raise DiagnosisInputError(f"{run_dir} holds no manifest.json; give a run directory or a JSON-lines file.")
    env = dict(manifest.config.get("env") or {})
    try:
        spec = domain_spec(str(env.get("name")))
        if spec.env_config is None:
            raise ValueError(f"its domain {spec.name!r} has no env config to rebuild it from")
        if "frozen_in" in env:
            env["frozen_in"] = None  # the domain is built for its parser's signals, not to choose tasks again
        domain = build_domain(spec.env_config.model_validate(env))
    except ValueError as error:
        raise DiagnosisInputError(f"{run_dir}'s manifest names no domain this harness can rebuild: {error}") from None
    try:
        rules = diagnosis_rules(spec.name, domain.reflection, domain.max_steps)
        written = diagnose_run(run_dir, read_trials(run_dir), rules)
    finally:
        domain.close()
    return f"wrote {written} diagnosis record(s) to {Path(run_dir) / 'diagnosis.jsonl'}."


def main(argv: Sequence[str] | None = None) -> None:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments in (["-h"], ["--help"]):
        _print_usage(sys.stdout)
        return
    if len(arguments) != 1:
        _print_usage(sys.stderr)
        fail(f"give one JSON-lines file (or -, or a run directory), got {len(arguments)} arguments.")
    name = arguments[0]
    require_stdout("the diagnosed lines")
    try:
        if name != "-" and Path(name).is_dir():
            print(diagnose_run_dir(Path(name)))
            return
        diagnosed = read_lines(name, diagnose_lines)
        if diagnosed is None:
            raise DiagnosisInputError(f"{name} is not a file or a run directory; give a JSON-lines file, - or a run.")
    except UnicodeDecodeError as error:
        fail(f"{name} is not UTF-8 text (byte {error.start}); give a JSON-lines file.")
    except HarnessError as error:
        fail(error)
    print_json_lines(diagnosed)


def _print_usage(stream: TextIO) -> None:
    print(__doc__.strip(), file=stream)


if __name__ == "__main__":
    main()
