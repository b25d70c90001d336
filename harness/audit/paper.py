"""The paper against its logs: every figure of "Honest Lying" that the published logs can speak to, recomputed.

The paper's figures are data (`data/paper/honest_lying_claims.json`: each with the sentence or table row it comes
from); each check here recomputes its figure from the logs at every audit and says whether the two agree, differ, or
cannot be compared, and why (the denominator, the case-sensitive rule, the env-to-game map, an arithmetic bound).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal

from harness.audit.paper_claims import (
    ALFWORLD_RUN,
    HOTPOTQA_RUNS,
    HUMANEVAL_RUN,
    WEBSHOP_RUN,
    ClaimCheck,
    LogsEvidence,
    PaperClaim,
    PaperClaims,
    Verdict,
    load_claims,
)
from harness.audit.published import PublishedTask
from harness.audit.similarity_settings import HARNESS_SETTINGS, frozen_rrrs
from harness.audit.source_audit import SourceAudit
from harness.domains.alfworld.identity import reflection_identity
from harness.domains.alfworld.target import task_parts
from harness.domains.alfworld.vocabulary import find_names
from harness.domains.humaneval.failures import names_error_type
from harness.metrics.core import FROZEN_THRESHOLD
from harness.metrics.object_mention import mentions_object
from harness.metrics.identity import IdentityCounts, identity_counts

def _at_precision(value: float, printed: str) -> bool:
    """Whether `value` rounds to `printed` at the printed number of decimals."""
    places = -Decimal(printed).as_tuple().exponent  # type: ignore[operator]  # a printed number: a finite exponent
    return round(value, int(places)) == float(printed)


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else f"{k}/0"


def _check(claim: PaperClaim, logs: str, verdict: Verdict, reason: str) -> ClaimCheck:
    return ClaimCheck(claim=claim, logs=logs, verdict=verdict, reason=reason)


def _denominators(row: SourceAudit) -> dict[str, int]:
    return {"tasks with memory (>= 1 reflection)": row.n_with_memory, "tasks with RRR (>= 2 reflections)": row.n_with_rrr}


def _table1_row(claim: PaperClaim, row: SourceAudit | None, tasks: Sequence[PublishedTask] = ()) -> ClaimCheck:
    if row is None:
        return _check(claim, "source not found", "cannot be checked", "the source this row describes is not in the logs")
    frozen, denominator, avg = claim.values["frozen"], claim.values["denominator"], claim.values["avg_rrr"]
    over = [name for name, n in _denominators(row).items() if n == denominator]
    logs = (
        f"{row.n_frozen} frozen; {_share(row.n_frozen, row.n_with_memory)} over tasks with memory, "
        f"{_share(row.n_frozen, row.n_with_rrr)} over tasks with RRR; avg RRR {row.avg_rrr_frozen or 0:.3f} over the "
        f"frozen, {row.avg_rrr_with_rrr or 0:.3f} over tasks with RRR (`{row.source}`)"
    )
    averages = {"the frozen tasks": row.avg_rrr_frozen, "tasks with RRR": row.avg_rrr_with_rrr}
    matched_avg = [name for name, value in averages.items() if value is not None and _at_precision(value, avg)]
    if row.n_frozen == frozen and over and matched_avg:
        return _check(claim, logs, "agrees", f"the paper's denominator is {over[0]}; its average is over {matched_avg[0]}")
    near = ", ".join(f"{name} {value:.3f}" for name, value in averages.items() if value is not None)
    reason = (
        f"frozen {row.n_frozen} vs {frozen}; denominator {denominator} is "
        f"{over[0] if over else 'neither tasks with memory nor tasks with RRR'}; avg RRR {avg} vs {near}"
    )
    if tasks:
        swapped = frozen_rrrs([t.reflections for t in tasks], swapped=True)
        if swapped:
            reason += (
                f"; with SequenceMatcher's arguments swapped (earlier reflection first) {len(swapped)} are frozen, "
                f"avg {sum(swapped) / len(swapped):.3f}"
            )
    return _check(claim, logs, "differs", reason)


def _labels(counts: IdentityCounts) -> str:
    return f"on_task {counts.on_task}, off_task {counts.off_task}, vacuous {counts.vacuous} of {counts.reflections}"


def _identity(evidence: LogsEvidence, source: str, frozen_only: bool = False, whose: str = "its") -> str:
    """A sentence on the task identity of a HumanEval or HotpotQA run's reflections, for the figures about them."""
    found = evidence.identity.get(source)
    if found is None:
        return ""
    frozen = f"{whose} frozen tasks' reflections {_labels(found.frozen_identity)}"
    counts = frozen if frozen_only else f"{whose} reflections {_labels(found.identity)}; {frozen}"
    return f"; task identity (`{found.rule}`, each reflection against its own task alone): {counts}"


def _with_identity(check: ClaimCheck, evidence: LogsEvidence, source: str, **how: object) -> ClaimCheck:
    identity = _identity(evidence, source, **how)  # type: ignore[arg-type]  # `how` is _identity's own keywords
    return check.model_copy(update={"logs": check.logs + identity})


def _hotpotqa_row(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    frozen, denominator, avg = claim.values["frozen"], claim.values["denominator"], claim.values["avg_rrr"]
    rows = [row for row in evidence.rows.values() if row.source.startswith(HOTPOTQA_RUNS)]
    most = max(rows, key=lambda row: row.n_frozen, default=None)
    bound = frozen * FROZEN_THRESHOLD / denominator
    logs = (
        f"most frozen in any HotpotQA log ({HARNESS_SETTINGS}): {most.n_frozen} (`{most.source}`, of "
        f"{most.n_with_memory} with memory){_identity(evidence, most.source)}"
        if most
        else "no HotpotQA log"
    )
    if float(avg) < bound:
        # The bound holds whatever the similarity; the logs' counts do not, so their sentence names its settings.
        reason = (
            f"arithmetically impossible: {frozen} tasks with RRR >= {FROZEN_THRESHOLD} put the mean over "
            f"{denominator} tasks at >= {frozen} x {FROZEN_THRESHOLD} / {denominator} = {bound:.2f}, not {avg}"
        )
        if most is not None:
            reason += f"; and {_hotpotqa_counts(frozen, rows, most, evidence.tasks.get(most.source, []))}"
        return _check(claim, logs, "differs", reason)
    return _table1_row(claim, next((row for row in rows if row.n_frozen == frozen), None))


def _hotpotqa_counts(
    frozen: int, rows: Sequence[SourceAudit], most: SourceAudit, tasks: Sequence[PublishedTask]
) -> str:
    """Which HotpotQA log has the paper's frozen count at the harness's similarity, and what the log with the most
    frozen has with autojunk off: the setting that moves HotpotQA's long reflections most."""
    having = [row.source for row in rows if row.n_frozen == frozen]
    found = (
        f"{', '.join(f'`{source}`' for source in having)} {'has' if len(having) == 1 else 'have'}"
        if having
        else "no HotpotQA log has"
    )
    sentence = f"at the harness's similarity ({HARNESS_SETTINGS}) {found} {frozen} frozen tasks"
    if not tasks:
        return sentence
    unjunked = len(frozen_rrrs([task.reflections for task in tasks], autojunk=False))
    return f"{sentence}, a count that rests on unstated settings: with autojunk off `{most.source}` has {unjunked}"


def _denominator_of(row: SourceAudit | None, denominator: int) -> str | None:
    over = [name for name, n in _denominators(row).items() if n == denominator] if row else []
    return over[0] if over else None


def _denominators_check(claim: PaperClaim, evidence: LogsEvidence, claims: Mapping[str, PaperClaim]) -> ClaimCheck:
    alf, code = evidence.rows.get(ALFWORLD_RUN), evidence.rows.get(HUMANEVAL_RUN)
    if alf is None or code is None:
        return _check(claim, "source not found", "cannot be checked", "the ALFWorld or HumanEval run is not in the logs")
    alf_over = _denominator_of(alf, claims["table1_alfworld"].values["denominator"])
    code_over = _denominator_of(code, claims["table1_humaneval"].values["denominator"])
    logs = (
        f"over tasks with memory: ALFWorld {_share(alf.n_frozen, alf.n_with_memory)}, HumanEval "
        f"{_share(code.n_frozen, code.n_with_memory)}; over tasks with RRR: ALFWorld "
        f"{_share(alf.n_frozen, alf.n_with_rrr)}, HumanEval {_share(code.n_frozen, code.n_with_rrr)}"
    )
    if alf_over == code_over:
        return _check(claim, logs, "agrees", f"both rows divide by {alf_over}")
    return _check(claim, logs, "differs", f"the rows divide by different denominators: ALFWorld by {alf_over}, HumanEval by {code_over}")


def _frozen_envs(evidence: LogsEvidence) -> list[PublishedTask]:
    frozen = {r.task_id for r in evidence.rated.get(ALFWORLD_RUN, []) if r.frozen}
    return [task for task in evidence.tasks.get(ALFWORLD_RUN, []) if task.task_id in frozen]


def _solved_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    """The Original Reflexion row's solved count: the row and the re-run sentence state one figure, the paper's re-run
    of the 16 frozen environments within `trials`, whose logs are not published; the original run's logs stand
    beside it."""
    envs = _frozen_envs(evidence)
    if not envs:
        return _check(claim, "no frozen environment", "cannot be checked", f"`{ALFWORLD_RUN}` is not in the logs")
    within = claim.values["trials"]
    solved = [t for t in envs if t.trial_solved is not None]
    early = [t for t in solved if t.trial_solved is not None and t.trial_solved < within]
    logs = (
        f"the published run solved {len(solved)}/{len(envs)} of its frozen environments in its "
        f"{max((t.trials or 0) for t in envs)} trials, {len(early)}/{len(envs)} within the first {within} "
        f"({', '.join(f'{t.task_id} at trial {t.trial_solved + 1}' for t in solved if t.trial_solved is not None)})"
    )
    reason = (
        f"the paper's {claim.values['solved']}/{claim.values['of']} can only be its own re-run of the "
        f"{claim.values['of']} for {within} trials, whose logs are not published; the published original run, "
        f"over the same first {within} trials, solved {len(early)}/{len(envs)} ({len(solved)}/{len(envs)} in all)"
    )
    return _check(claim, logs, "cannot be checked", reason)


def _frozen_reflections(evidence: LogsEvidence) -> list[tuple[str, str]]:
    """(task folder, reflection) of every reflection of the frozen environments."""
    return [
        (evidence.env_to_game[task.task_id], text)
        for task in _frozen_envs(evidence)
        if task.task_id in evidence.env_to_game
        for text in task.reflections
    ]


def _mention_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    pairs = _frozen_reflections(evidence)
    if not pairs:
        return _check(claim, "no frozen reflections", "cannot be checked", f"`{ALFWORLD_RUN}` is not in the logs")
    strict = sum(mentions_object(text, task_parts(game)[1], "strict") for game, text in pairs)
    normalized = sum(mentions_object(text, task_parts(game)[1], "normalized") for game, text in pairs)
    labels = identity_counts(reflection_identity(text, game) for game, text in pairs)
    logs = (
        f"strict {strict}/{len(pairs)}, normalized {normalized}/{len(pairs)}; identity: on_task {labels.on_task}, "
        f"off_task {labels.off_task}, vacuous {labels.vacuous}"
    )
    if strict == claim.values["mentions"] == normalized:
        return _check(claim, logs, "agrees", "no rule finds the object")
    reason = (
        f"{strict}/{len(pairs)} only under the case-sensitive rule (the CamelCase name, e.g. 'SaltShaker', as a "
        f"substring): ALFWorld writes names in lower case ('saltshaker 1'), and once case is ignored {normalized} of "
        f"{len(pairs)} name their object; {labels.on_task} are about their own task ({evidence.env_to_game_name})"
    )
    return _check(claim, logs, "differs", reason)


def _rrr_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    row = evidence.rows.get(ALFWORLD_RUN)
    if row is None or row.avg_rrr_frozen is None:
        return _check(claim, "no frozen environment", "cannot be checked", f"`{ALFWORLD_RUN}` is not in the logs")
    logs = f"mean RRR of the {row.n_frozen} frozen environments {row.avg_rrr_frozen:.3f}"
    agrees = _at_precision(row.avg_rrr_frozen, claim.values["rrr"])
    return _check(claim, logs, "agrees" if agrees else "differs", "the mean over the frozen environments")


def _spearman_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    row = evidence.rows.get(ALFWORLD_RUN)
    if row is None:
        return _check(claim, "source not found", "cannot be checked", f"`{ALFWORLD_RUN}` is not in the logs")
    results = {s.convention: s for s in row.spearman_rrr_vs_trials}
    shown = "; ".join(f"{name}: rho {s.rho:.3f} (n = {s.n})" for name, s in results.items() if s.rho is not None)
    matched = [name for name, s in results.items() if s.rho is not None and _at_precision(s.rho, claim.values["rho"])]
    if matched:
        return _check(claim, shown, "agrees", f"under the convention {matched[0]} (trials played: first solved + 1, "
                      "else every trial); under the other it differs")  # fmt: skip
    return _check(claim, shown, "differs", "no convention of the harness gives the paper's rho")


def _env22_tasks(evidence: LogsEvidence) -> PublishedTask | None:
    return next((t for t in evidence.tasks.get(ALFWORLD_RUN, []) if t.task_id == "env_22"), None)


def _map_support(evidence: LogsEvidence) -> tuple[int, int]:
    """Environments with reflections whose mapped game's object their reflections name (normalized), of all."""
    envs = [t for t in evidence.tasks.get(ALFWORLD_RUN, []) if t.reflections and t.task_id in evidence.env_to_game]
    named = sum(
        any(mentions_object(r, task_parts(evidence.env_to_game[t.task_id])[1], "normalized") for r in t.reflections)
        for t in envs
    )
    return named, len(envs)


def _env22_game_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    game = evidence.env_to_game.get("env_22")
    if game is None:
        return _check(claim, "env_22 not mapped", "cannot be checked", f"{evidence.env_to_game_name} maps no env_22")
    task_type, target, receptacle = task_parts(game)
    named, envs = _map_support(evidence)
    wanted = (claim.values["object"], claim.values["receptacle"])
    others = [env for env, g in evidence.env_to_game.items() if task_parts(g)[1:] == wanted]
    logs = f"env_22 is `{game.split('/')[0]}` ({task_type}: {target} -> {receptacle})"
    if (target, receptacle) == wanted:
        return _check(claim, logs, "agrees", f"{evidence.env_to_game_name} maps env_22 to that game")
    reason = (
        f"{evidence.env_to_game_name} maps env_22 to a {target} -> {receptacle} game, not {wanted[0]} -> {wanted[1]}"
        f" ({', '.join(others) or 'no env'} is that game); the map is supported by the logs themselves: the "
        f"reflections of {named} of {envs} environments name their mapped game's object, and env_22's plan its own task"
    )
    return _check(claim, logs, "differs", reason)


def _env22_reflections_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    task, game = _env22_tasks(evidence), evidence.env_to_game.get("env_22")
    if task is None or game is None:
        return _check(claim, "env_22 not found", "cannot be checked", "env_22 is not in the logs or the map")
    wanted = set(claim.values["types"])
    citing = sum(wanted <= {name.type for name in find_names(text)} for text in task.reflections)
    labels = identity_counts(reflection_identity(text, game) for text in task.reflections)
    logs = (
        f"{citing}/{len(task.reflections)} name {' and '.join(sorted(wanted))}; identity against "
        f"`{game.split('/')[0]}`: on_task {labels.on_task}, off_task {labels.off_task}, vacuous {labels.vacuous}"
    )
    agrees = (citing, len(task.reflections)) == (claim.values["cite"], claim.values["of"])
    reason = "the count agrees; that they are about the wrong task does not (see env_22's game)"
    return _check(claim, logs, "agrees" if agrees else "differs", reason if agrees else f"{citing} cite both")


def _memory_harmful_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    tasks = {t.task_id: t for t in evidence.tasks.get(ALFWORLD_RUN, [])}
    envs = [tasks.get(env) for env in claim.values["envs"]]
    if any(t is None for t in envs):
        return _check(claim, "environments not found", "cannot be checked", f"`{ALFWORLD_RUN}` lacks them")
    solved = [t.trial_solved for t in envs if t is not None]
    if any(n is None for n in solved):
        return _check(claim, "not solved", "differs", "the published run never solved one of them")
    played = [n + 1 for n in solved if n is not None]
    failed = [n for n in solved if n is not None]
    logs = ", ".join(
        f"{env} solved at trial {n + 1}, after {n} failed trials" for env, n in zip(claim.values["envs"], failed)
    )
    low, high = claim.values["trials"]
    readings = {"trials played": played, "failed trials before the win (reflections in memory)": failed}
    fits = [name for name, counts in readings.items() if all(low <= n <= high for n in counts)]
    if fits:
        reason = f"{low}-{high} counts the {fits[0]}; the paper's no-memory half (solved in 1 trial) published no logs"
        return _check(claim, logs, "agrees", reason)
    return _check(claim, logs, "differs", f"neither the trials played nor the failed trials fall in {low}-{high}")


def _humaneval_error_types_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    frozen = {r.task_id for r in evidence.rated.get(HUMANEVAL_RUN, []) if r.frozen}
    texts = [text for t in evidence.tasks.get(HUMANEVAL_RUN, []) if t.task_id in frozen for text in t.reflections]
    named = sum(names_error_type(text) for text in texts)
    logs = f"the published run's frozen tasks: {named}/{len(texts)} reflections name an error type"
    logs += _identity(evidence, HUMANEVAL_RUN, frozen_only=True)
    reason = "the 18 reflections are the paper's programmatic-extraction re-run, whose logs are not published"
    return _check(claim, logs, "cannot be checked", reason)


def _diagnosis_check(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    """The paper's premise measured where the logs allow it: HotpotQA's CoT logs keep each failed trial's thought and
    answer beside its reflection; ALFWorld's keep no trajectory and the programming runs no implementation."""
    read = evidence.diagnosis
    if not read:
        return _check(claim, "no HotpotQA log with context prints reflections", "cannot be checked",
                      "the only published logs that keep a failed trial beside its reflection are HotpotQA's")  # fmt: skip
    logs = "; ".join(
        f"`{log.source}`: {_share(log.hits, log.reflections)} of the reflections after a failed trial name where it "
        f"was lost ({log.tasks} questions), {_share(log.cause_agrees, log.reflections)} its cause, "
        f"{_share(log.confabulated, log.reflections)} confabulate; lost to "
        + ", ".join(f"{category} {count}" for category, count in log.categories.items())
        for log in read
    )
    reason = (
        "the paper states it for ALFWorld and HumanEval, whose published logs keep no trajectory and no "
        "implementation to diagnose; HotpotQA's CoT logs keep the thought and the answer, so every category of "
        f"`{read[0].truth_rule}` applies (`{read[0].claims_rule}` reads the reflections): there, with the failures "
        "mostly answers right in substance but not in the key's form, most reflections blame the form and are right"
    )
    return _check(claim, logs, "cannot be checked", reason)


def _rerun_only(claim: PaperClaim, evidence: LogsEvidence) -> ClaimCheck:
    return _check(claim, "no log", "cannot be checked", "a condition the paper re-ran; its logs are not published")


def paper_checks(evidence: LogsEvidence, claims: PaperClaims | None = None) -> list[ClaimCheck]:
    """Every claim of the paper, checked against the logs, in the claims file's order."""
    claims = claims or load_claims()
    by_id = {claim.id: claim for claim in claims.claims}
    checks: dict[str, Callable[[PaperClaim], ClaimCheck]] = {
        "table1_alfworld": lambda c: _table1_row(c, evidence.rows.get(ALFWORLD_RUN), evidence.tasks.get(ALFWORLD_RUN, [])),
        "table1_webshop": lambda c: _table1_row(c, evidence.rows.get(WEBSHOP_RUN), evidence.tasks.get(WEBSHOP_RUN, [])),
        "table1_hotpotqa": lambda c: _hotpotqa_row(c, evidence),
        "table1_humaneval": lambda c: _with_identity(
            _table1_row(c, evidence.rows.get(HUMANEVAL_RUN), evidence.tasks.get(HUMANEVAL_RUN, [])), evidence, HUMANEVAL_RUN
        ),
        "table1_denominators": lambda c: _denominators_check(c, evidence, by_id),
        "abstract_frozen": lambda c: _with_identity(
            _table1_row(
                c.model_copy(update={"values": {**by_id["table1_alfworld"].values, **c.values}}),
                evidence.rows.get(ALFWORLD_RUN),
            ),
            evidence, HUMANEVAL_RUN, frozen_only=True, whose="the HumanEval run's",  # its "4 analogous cases"
        ),
        "original_solved": lambda c: _solved_check(c, evidence),
        "original_mention": lambda c: _mention_check(c, evidence),
        "original_rrr": lambda c: _rrr_check(c, evidence),
        "spearman": lambda c: _spearman_check(c, evidence),
        "env22_game": lambda c: _env22_game_check(c, evidence),
        "env22_reflections": lambda c: _env22_reflections_check(c, evidence),
        "memory_harmful": lambda c: _memory_harmful_check(c, evidence),
        "humaneval_error_types": lambda c: _humaneval_error_types_check(c, evidence),
        "diagnosis_assumption": lambda c: _diagnosis_check(c, evidence),
    }
    return [checks.get(claim.id, lambda c: _rerun_only(c, evidence))(claim) for claim in claims.claims]
