"""The re-reflection bank (`experiment=diagnosis_bank`): reflection sources re-diagnose the same stored failed
trajectories, so every comparison between them is paired per trajectory.

1. The bank: each source run's failed trials (the first `per_task` per task), with what the reflector read about
   each (`stored_scenarios`), or an earlier bank's `bank_items.jsonl`; kept in RUN_DIR/bank_items.jsonl.
2. Each source reflects on each trajectory exactly as the loop would have asked it (the trial's memory, seed and
   step budget, the reflector model's stop strings): RUN_DIR/bank.jsonl. `self_diagnosis` sends the request the
   source run sent, byte for byte, so its cache answers it.
3. Each trajectory's ground truth, once (or an earlier bank's, for the same steps): RUN_DIR/truth.jsonl.
4. Each reflection's claims: RUN_DIR/diagnosis.jsonl; the table per domain: RUN_DIR/diagnosis.md, the report.

Every file is appended durably as it is computed: a bank stopped at any point resumes where it was.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.domains.base import Domain, ReflectionInput
from harness.domains.registry import build_domain, domain_spec
from harness.errors import HarnessError
from harness.llm import (
    CachedLLM,
    CacheStore,
    CallContext,
    ModelConfig,
    Usage,
    create_backend,
)
from harness.llm.metering import MeteredLLM
from harness.llm.naming import model_name
from harness.records import TrialRecord, read_manifest, read_trials
from harness.records.diagnosis_bank import (
    ITEMS_FILE,
    TRUTH_FILE,
    BankReflection,
    BankTrajectory,
    TrajectoryTruth,
    items_log,
    reflections_log,
    truth_log,
)
from harness.records.diagnosis_log import (
    TrialDiagnosis,
    diagnosis_log,
    trajectory_sha256,
)
from harness.records.trial import Timing
from harness.reflection import ReflectionSource, checked_reflection, get_source
from harness.run.diagnosis_bank_config import DiagnosisBankConfig
from harness.run.diagnosis_stage import DiagnosisRules, diagnosis_rules, trajectory_rows
from harness.run.lock import RunLock
from harness.run.loop import trial_seed
from harness.run.scenarios.stored_scenarios import stored_scenario


class BankDomains:
    """The domains the bank's trajectories came from, built once per env setting, for their hooks."""

    def __init__(self) -> None:
        self._built: dict[str, Domain] = {}

    def get(self, env: dict[str, Any]) -> Domain:
        key = json.dumps(env, sort_keys=True)
        if key not in self._built:
            spec = domain_spec(str(env.get("name")))
            if spec.env_config is None:
                raise ValueError(f"domain {spec.name!r} has no env config to rebuild it from")
            kept = {**env, "frozen_in": None} if "frozen_in" in env else env
            self._built[key] = build_domain(spec.env_config.model_validate(kept))
        return self._built[key]

    def close(self) -> None:
        for domain in self._built.values():
            domain.close()


def _trajectory_id(domain: str, run_dir: Path, record: TrialRecord) -> str:
    return f"{domain}/{run_dir.name}/{record.task_id}/{record.condition}/{record.trial}/{record.repeat}"


def collect(config: DiagnosisBankConfig, domains: BankDomains) -> list[BankTrajectory]:
    """The failed trajectories of the source runs, the first `per_task` per (domain, task), distinct steps only."""
    items: list[BankTrajectory] = []
    kept: dict[tuple[str, str], set[str]] = {}
    for name in config.runs:
        run_dir = Path(name)
        manifest = read_manifest(run_dir)
        if manifest is None:
            raise ValueError(f"scenario.runs names {name}, which holds no manifest.json of a run")
        env = dict(manifest.config["env"])
        domain = domains.get(env)
        seed = int(manifest.config["experiment"]["seed"])
        for record in read_trials(run_dir):
            seen = kept.setdefault((domain.name, record.task_id), set())
            sha = trajectory_sha256(record.trajectory)
            if record.success or sha in seen or len(seen) >= config.per_task:
                continue
            seen.add(sha)
            items.append(BankTrajectory(
                id=_trajectory_id(domain.name, run_dir, record), domain=domain.name, source_run=name, env=env,
                record=record, scenario=stored_scenario(record, domain), seed=trial_seed(seed, record.trial,
                record.repeat), max_steps=domain.max_steps,
            ))
    return items


def bank_items(config: DiagnosisBankConfig, run_dir: Path, domains: BankDomains) -> list[BankTrajectory]:
    """RUN_DIR/bank_items.jsonl, written once (from `items` or the source runs) and read back on a resume."""
    log = items_log(run_dir / ITEMS_FILE)
    held = log.read()
    if held:
        return held
    found = items_log(Path(config.items)).read() if config.items else collect(config, domains)
    if not found:
        raise ValueError("the bank holds no failed trajectory: its runs (or items) have no failed trial")
    log.append(found)
    return found


def reflection_input(item: BankTrajectory) -> ReflectionInput:
    """What the trajectory's reflection source was handed when the trial was played."""
    record = item.record
    return ReflectionInput(
        domain=item.domain, task_id=record.task_id, task_text=record.task_text, scenario=item.scenario,
        trajectory=record.trajectory, end_reason=record.end_reason, max_steps=item.max_steps,
        evidence=record.attempt_details, memory=record.memory, seed=item.seed,
    )


def reflect(item: BankTrajectory, source: ReflectionSource, domain: Domain, llm: CachedLLM,
            model: ModelConfig) -> BankReflection:
    """One source's reflection on one stored trajectory, as a copy of its record."""
    record = item.record
    context = CallContext(task_id=record.task_id, trial=record.trial, condition=source.name, role="reflector")
    meter = MeteredLLM(llm, context, model.reflector_stop)
    reflection = checked_reflection(lambda: source.reflect(reflection_input(item), domain.reflection, meter), source,
                                    source.name, record.task_id, record.trial)
    return BankReflection(trajectory=item.id, record=record.model_copy(update={
        "condition": source.name, "memory": record.memory, "reflection": reflection.text,
        "reflection_details": reflection.details, "reflection_identity": None, "reflector_model": model_name(model),
        "usage": meter.usage, "actor_usage": Usage(), "reflector_usage": meter.usage, "llm_calls": meter.calls,
        "cache_hits": meter.cache_hits, "retries": meter.retries, "llm_latency_s": round(meter.latency_s, 6),
        "calls": meter.call_log, "timing": Timing(llm_s=meter.wait_s),
    }))


def _sources(config: DiagnosisBankConfig, items: Sequence[BankTrajectory]) -> list[ReflectionSource]:
    sources = []
    for name in config.sources:
        cls = get_source(name)
        if cls.needs_gate or cls.swaps_models or not cls.uses_memory:
            raise ValueError(f"scenario.sources names {name!r}, which the bank cannot ask: it reflects with the run's "
                             "reflector model alone and writes to no gate (e.g. self_diagnosis, third_party)")
        window = domain_spec(items[0].domain).memory_window
        sources.append(cls(memory_window=window))
    return sources


def reflect_all(config: DiagnosisBankConfig, items: Sequence[BankTrajectory], model: ModelConfig, run_dir: Path,
                domains: BankDomains, llm: CachedLLM) -> list[BankReflection]:
    """Every source on every trajectory, source by source within a trajectory; the written ones are skipped."""
    log = reflections_log(run_dir)
    held = {r.key: r for r in log.read()}
    sources = _sources(config, items)
    for item in items:
        domain = domains.get(item.env)
        for source in sources:
            if (item.id, source.name) not in held:
                written = reflect(item, source, domain, llm, model)
                log.append([written])
                held[written.key] = written
    return [held[(item.id, source.name)] for item in items for source in sources]


def _rules(item: BankTrajectory, domains: BankDomains) -> DiagnosisRules:
    domain = domains.get(item.env)
    return diagnosis_rules(item.domain, domain.reflection, item.max_steps)


def truths(config: DiagnosisBankConfig, items: Sequence[BankTrajectory], run_dir: Path,
           domains: BankDomains) -> dict[str, TrajectoryTruth]:
    """Each trajectory's ground truth and rows: RUN_DIR/truth.jsonl, an earlier bank's for the same steps, or
    computed (ALFWorld: a replay through the engine)."""
    log = truth_log(run_dir / TRUTH_FILE)
    held = {t.trajectory: t for t in log.read()}
    earlier = {t.trajectory: t for t in truth_log(Path(config.truths)).read()} if config.truths else {}
    for item in items:
        if item.id in held:
            continue
        sha = trajectory_sha256(item.record.trajectory)
        found = earlier.get(item.id)
        if found is None or found.trajectory_sha256 != sha:
            rules = _rules(item, domains)
            truth = rules.truth(item.record)
            found = TrajectoryTruth(trajectory=item.id, trajectory_sha256=sha, truth=truth,
                                    rows=trajectory_rows(item.record, truth, rules))
        log.append([found])
        held[item.id] = found
    return held


def diagnose_all(reflections: Sequence[BankReflection], items: Sequence[BankTrajectory],
                 truth: dict[str, TrajectoryTruth], run_dir: Path) -> list[TrialDiagnosis]:
    """Each reflection's claims against its trajectory's truth: RUN_DIR/diagnosis.jsonl."""
    log = diagnosis_log(run_dir)
    held = {d.key: d for d in log.read()}
    by_id = {item.id: item for item in items}
    claims_rules = {item.domain: domain_spec(item.domain).claims for item in items}
    for reflection in reflections:
        record, known = reflection.record, truth[reflection.trajectory]
        key = (record.task_id, record.condition, record.trial, record.repeat, reflection.trajectory)
        if key in held:
            continue
        rule = claims_rules[by_id[reflection.trajectory].domain]
        assert rule is not None  # the truth step refused a domain without its rules
        claims = rule.load()(record, known.truth) if record.reflection is not None else None
        found = TrialDiagnosis(
            task_id=record.task_id, condition=record.condition, trial=record.trial, repeat=record.repeat,
            trajectory=reflection.trajectory, trajectory_sha256=known.trajectory_sha256, truth=known.truth,
            claims=claims, rows=known.rows,
        )
        log.append([found])
        held[key] = found
    return list(held.values())


def run_diagnosis_bank(config: DiagnosisBankConfig, model: ModelConfig, run_dir: Path,
                       llm: CachedLLM | None = None) -> list[TrialDiagnosis]:
    """The whole bank into `run_dir`; its diagnosis records. `llm`: the reflector (default: `model` behind the
    bank's cache)."""
    if bool(config.runs) == bool(config.items):
        raise ValueError("the bank takes its trajectories from scenario.runs or from scenario.items: give one")
    lock = RunLock.acquire(run_dir)
    domains = BankDomains()
    try:
        items = bank_items(config, run_dir, domains)
        if llm is None:
            llm = CachedLLM(create_backend(model), CacheStore(Path(config.cache.path)), config.cache.mode)
        reflections = reflect_all(config, items, model, run_dir, domains, llm)
        truth = truths(config, items, run_dir, domains)
        return diagnose_all(reflections, items, truth, run_dir)
    finally:
        domains.close()
        lock.release()


class BankError(HarnessError):
    """The bank's settings or its source runs cannot make a bank."""


def bank_study(config: DiagnosisBankConfig, model: ModelConfig, run_dir: Path) -> str:
    """The bank run, then its report (diagnosis.md, report.md, report.html); the table it prints."""
    from harness.report import bank_diagnosis, bank_table, write_bank_report

    try:
        run_diagnosis_bank(config, model, run_dir)
    except ValueError as error:
        raise BankError(str(error)) from None
    write_bank_report(run_dir, run_dir)
    return bank_table(bank_diagnosis(run_dir))
