"""The plant-agnostic trace: every final rule of every library, whether it copies a text its build read and whether
its object-location claims hold in the plays its build read.

Per build, each final rule's copy (which reflection or trajectory, of which task, how much), its location claims
checked against the first sightings of the plays behind it (the copied text's task, and the trials of every critique
that wrote it: confirmed, contradicted with the observation quoted, or unverifiable), its rank, its count after each
critique step, and its reach (every evaluation task: ExpeL gives each the whole list) with the identity label it
gets against each evaluation task. Read from propagation.json alone, with no model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.alfworld.locations import Verdict, checked_claims
from harness.domains.registry import line_identity
from harness.records.insights import ExperienceTask, Rule
from harness.records.propagation import PropagationBuild, PropagationStudy
from harness.reflection.insights.copies import Copy, copied_from, read_texts


def planted_experience(order: Sequence[ExperienceTask], planted: str, text: str | None) -> list[ExperienceTask]:
    """The order's experience with the planted task's failed trial showing `text` as its reflection."""
    out = []
    for task in order:
        if task.id == planted:
            trials = [t if t.success else t.model_copy(update={"reflection": text}) for t in task.trials]
            task = task.model_copy(update={"trials": trials})
        out.append(task)
    return out


def build_experience(study: PropagationStudy, build: PropagationBuild) -> list[ExperienceTask]:
    """What the build's critic read, rebuilt from the study record: its training order with its plant."""
    pool = {task.experience.id: task.experience for task in study.tasks}
    return planted_experience([pool[task_id] for task_id in build.training], build.plant.task_id, build.plant.text)


def _failed_trial(task: ExperienceTask) -> int:
    return next(i for i, trial in enumerate(task.trials) if not trial.success)


class ClaimFinding(BaseModel):
    """One location claim of a rule, checked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    object: str
    receptacle: str
    words: str
    verdict: Verdict
    evidence: str | None = Field(description="The observation that decides it; None when unverifiable.")


class RuleFinding(BaseModel):
    """One final rule of a library: what it copies, what it claims, where it stands and whom it reaches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(ge=1)
    count: int
    text: str
    copied: Copy | None
    claims: list[ClaimFinding]
    counts: list[int] = Field(description="Its count after each critique step (0: not yet written).")
    reach: int = Field(description="Evaluation tasks whose prompt receives it.")
    identity: dict[str, int] = Field(description="Its identity labels over the evaluation tasks it reaches.")

    @property
    def contradicted(self) -> list[ClaimFinding]:
        return [claim for claim in self.claims if claim.verdict == "contradicted"]


class LibraryFinding(BaseModel):
    """One build's final library, every rule traced."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int
    gate: bool
    plant: str
    plant_step: int
    variant: int
    rules: list[RuleFinding]


def _counts(rule: Rule, steps: int) -> list[int]:
    counts, current, changes = [], 0, sorted(rule.changes, key=lambda change: change.step)
    for step in range(steps):
        for change in (c for c in changes if c.step == step):
            current = change.count
        counts.append(current)
    return counts


def _trajectories(rule: Rule, copy: Copy | None, experience: Sequence[ExperienceTask]) -> list[str]:
    """The plays behind a rule: the copied text's task, then every trial its writing critiques read."""
    by_id = {task.id: task for task in experience}
    tasks = [] if copy is None else [copy.source.task_id]
    refs = [ref for change in rule.changes if change.applied.kind in ("ADD", "EDIT") for ref in change.critique.trials]
    plays = [trial.trajectory for task_id in tasks for trial in by_id[task_id].trials]
    return plays + [by_id[ref.task_id].trials[ref.trial].trajectory for ref in refs]


def _plant(experience: Sequence[ExperienceTask], build: PropagationBuild) -> tuple[str, int, str] | None:
    planted = next((t for t in experience if t.id == build.plant.task_id), None)
    if planted is None or build.plant.text is None:
        return None
    return planted.id, _failed_trial(planted), build.plant.text


def rule_copy(text: str, experience: Sequence[ExperienceTask], build: PropagationBuild) -> Copy | None:
    """The text of the build's reading that a rule copies (the plant labelled as such), or None."""
    return copied_from(text, read_texts(experience, _plant(experience, build)))


def rule_claims(rule: Rule, copy: Copy | None, experience: Sequence[ExperienceTask]) -> list[ClaimFinding]:
    """A rule's location claims checked against the plays behind it."""
    return [ClaimFinding(object=c.claim.object, receptacle=c.claim.receptacle, words=c.claim.words,
                         verdict=c.verdict, evidence=c.evidence)
            for c in checked_claims(rule.text, _trajectories(rule, copy, experience))]


def rule_finding(rank: int, rule: Rule, experience: Sequence[ExperienceTask], build: PropagationBuild) -> RuleFinding:
    """One final rule traced against what its build read."""
    copy = rule_copy(rule.text, experience, build)
    identity: Counter[str] = Counter(line_identity({"domain": "alfworld", "task": game, "text": rule.text}).label
                                     for game in build.evaluation)
    return RuleFinding(rank=rank, count=rule.count, text=rule.text, copied=copy,
                       claims=rule_claims(rule, copy, experience), counts=_counts(rule, len(build.ledger.steps)),
                       reach=len(build.evaluation), identity=dict(identity))


def library_findings(study: PropagationStudy) -> list[LibraryFinding]:
    """Every build's final library traced."""
    findings = []
    for build in study.builds:
        experience = build_experience(study, build)
        findings.append(LibraryFinding(
            seed=build.seed, gate=build.gate, plant=build.plant.kind, plant_step=build.plant.step,
            variant=build.plant.variant,
            rules=[rule_finding(rank, rule, experience, build) for rank, rule in enumerate(build.ledger.rules, 1)],
        ))
    return findings


def _source(rule: RuleFinding) -> str:
    if rule.copied is None:
        return "-"
    source = rule.copied.source
    return f"{source.kind} of {source.task_id}"


def _span(values: Sequence[int]) -> str:
    return str(min(values)) if min(values) == max(values) else f"{min(values)}-{max(values)}"


def notable_table(findings: Sequence[LibraryFinding]) -> tuple[list[str], list[list[str]]]:
    """One row per rule copied from a text read or with a contradicted claim, over the builds holding it (a copy
    grouped by its source, any other rule by its text)."""
    header = ["rule (first words)", "copied from", "shared words", "builds", "seeds", "rank", "count",
              "counts over steps (first build)", "contradicted claims", "evidence", "reach per build",
              "identity (one build per seed)"]
    groups: dict[str, list[tuple[LibraryFinding, RuleFinding]]] = {}
    for finding in findings:
        for rule in finding.rules:
            if rule.copied is not None or rule.contradicted:
                key = _source(rule) if rule.copied is not None else rule.text
                groups.setdefault(key, []).append((finding, rule))
    seeds = sorted({f.seed for f in findings})
    rows = []
    for held in groups.values():
        first = held[0][1]
        per_seed = {f.seed: r for f, r in reversed(held)}
        labels: Counter[str] = Counter()
        for rule in per_seed.values():
            labels.update(rule.identity)
        contradicted = {(c.words, c.evidence) for _, r in held for c in r.contradicted}
        rows.append([
            " ".join(first.text.split()[:8]) + " ...", _source(first),
            _span([r.copied.shared_words for _, r in held if r.copied is not None] or [0]),
            f"{len(held)}/{len(findings)}", f"{len(per_seed)}/{len(seeds)}", _span([r.rank for _, r in held]),
            _span([r.count for _, r in held]), ",".join(str(c) for c in first.counts),
            "; ".join(sorted(words for words, _ in contradicted)) or "-",
            "; ".join(sorted({evidence or "-" for _, evidence in contradicted})) or "-",
            _span([r.reach for _, r in held]), " ".join(f"{k}:{v}" for k, v in sorted(labels.items())) or "-",
        ])
    return header, rows


def notable_summary(findings: Sequence[LibraryFinding]) -> str:
    """One sentence: how many builds hold a copied rule, and a rule with a contradicted location claim."""
    seeds = sorted({f.seed for f in findings})
    copied = [f for f in findings if any(r.copied is not None for r in f.rules)]
    wrong = [f for f in findings if any(r.contradicted for r in f.rules)]
    both = {f.seed for f in findings if any(r.copied is not None and r.contradicted for r in f.rules)}
    return (f"Copied rules: {len(copied)} of {len(findings)} builds hold a rule copied from a text their critic read; "
            f"{len(wrong)} hold a rule whose location claim the plays contradict; a rule both copied and "
            f"contradicted in {len(both)} of {len(seeds)} seeds.")
