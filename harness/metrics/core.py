"""Metrics over trial records: reflection repetition (RRR), frozen memory, object mention, solved.

Pure functions: they read records and strings, never a model or a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

# difflib's SequenceMatcher compiled: the same algorithm with the same results (tests/harness/metrics/
# test_compiled_difflib.py holds them equal on the published reflections), three to four times faster, which a report
# at study size spends most of its metrics on.
from cydifflib import SequenceMatcher
from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from harness.metrics.diagnosis.row import DiagnosisRow
from harness.metrics.identity import IdentityCounts, IdentityShares, identity_shares
from harness.metrics.intervals import ConditionIntervals, share
from harness.metrics.object_mention import mentions_object
from harness.records import TrialRecord

SIMILARITY_THRESHOLD = 0.85
"""A reflection repeats an earlier one when their SequenceMatcher ratio is at least this."""

FROZEN_THRESHOLD = 0.5
"""A task's memory is frozen when its RRR is at least this."""

def is_blank(reflection: str) -> bool:
    """Empty or whitespace only: a vacuous reflection, which says nothing and so repeats nothing."""
    return not reflection.strip()


def similarity(reflection: str, earlier: str) -> float:
    """difflib's ratio at its defaults, with the later reflection first: a documented choice the study leaves unstated.

    A blank reflection (`is_blank`) is similar to nothing, 0: difflib gives two empty strings 1.0, which would count a
    reflector's silence as repetition and freeze its memory. The order matters: autojunk (on, difflib's default) drops
    characters that are frequent in the *second* string once it has 200 or more characters, so the two orders' ratios
    can differ widely for long texts. Measured on the published logs (harness/audit/paper.py): arguments swapped,
    ALFWorld's frozen tasks go 16 -> 15, WebShop's 55 -> 56 and HotpotQA's (its log with the most) 34 -> 32; autojunk
    off, WebShop 55 -> 57, HumanEval 4 -> 5 and HotpotQA 34 -> 48.
    """
    if is_blank(reflection) or is_blank(earlier):
        return 0.0
    return SequenceMatcher(None, reflection, earlier).ratio()


def pairwise_similarities(memory: Sequence[str]) -> list[list[float]]:
    """Matrix S with S[i][j] = similarity(memory[i], memory[j]), both directions, diagonal included."""
    return [[similarity(row, column) for column in memory] for row in memory]


def is_silent(memory: Sequence[str]) -> bool:
    """Two or more reflections, every one blank: a reflector that wrote nothing, whose memory neither freezes nor
    stays fresh (its RRR is undefined, and the figure catalogue counts it as silent)."""
    return len(memory) >= 2 and all(is_blank(reflection) for reflection in memory)


def reflection_repetition_rate(memory: Sequence[str], threshold: float = SIMILARITY_THRESHOLD) -> float | None:
    """Share of reflections after the first that repeat some earlier one (ratio >= threshold).

    None when the memory holds fewer than two reflections: there is nothing to repeat, and 0 would wrongly read as
    "never repeats"; None too when every reflection is blank (`is_silent`): a silent reflector repeats nothing only
    because it says nothing, and 0 would count its task as a healthy, unfrozen memory.
    """
    if len(memory) < 2 or is_silent(memory):
        return None
    return rrr_of_matches(most_similar_earlier(memory, threshold), threshold)


class EarlierMatch(BaseModel):
    """The earlier reflection most similar to a later one, and how similar: what makes the later one a repeat."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0, description="0-based position of the earlier reflection in the memory.")
    similarity: float = Field(ge=0, le=1, description="similarity(later, earlier), the direction RRR uses.")
    threshold: float = Field(SIMILARITY_THRESHOLD, gt=0, le=1, description="The run's similarity threshold.")

    @property
    def repeats(self) -> bool:
        """The later reflection counts as repeating in RRR: its most similar earlier one is >= the threshold."""
        return self.similarity >= self.threshold


def rrr_of_matches(matches: Sequence[EarlierMatch | None], threshold: float) -> float | None:
    """RRR from `most_similar_earlier`'s matches at any threshold: equal to `reflection_repetition_rate` at it, so a
    memory's ratios are computed once for many thresholds."""
    later = matches[1:]
    if not later:
        return None
    return sum(m is not None and m.similarity >= threshold for m in later) / len(later)


def most_similar_earlier(
    memory: Sequence[str], threshold: float = SIMILARITY_THRESHOLD
) -> list[EarlierMatch | None]:
    """For each reflection, the earlier one it is most similar to (ties: the earliest); None for the first.

    A reflection repeats in `reflection_repetition_rate` exactly when its match `repeats`: both compare the same
    `similarity` with the same threshold.
    """
    return [
        None if nearest is None else EarlierMatch(index=nearest[0], similarity=nearest[1], threshold=threshold)
        for nearest in _nearest_earlier(tuple(memory))
    ]


@lru_cache(maxsize=1 << 16)
def _nearest_earlier(memory: tuple[str, ...]) -> tuple[tuple[int, float] | None, ...]:
    """(index, similarity) of each reflection's most similar earlier one. Remembered per process: a report asks for
    the same memories' ratios for its metrics, effects, threshold curves and page. Exact, but cheaper than every
    ratio: quick_ratio() bounds ratio() from above, so candidates are tried from the highest bound down and the search
    stops once no bound can beat the best. A blank reflection is no candidate (`similarity`: similar to nothing)."""
    matchers = []
    for earlier in memory[:-1]:
        matcher = SequenceMatcher(None)
        matcher.set_seq2(earlier)  # SequenceMatcher indexes its second string once
        matchers.append(matcher)
    blank = [is_blank(reflection) for reflection in memory]
    matches: list[tuple[int, float] | None] = [None] * min(len(memory), 1)
    for i in range(1, len(memory)):
        bounds = []
        for j in [] if blank[i] else [j for j in range(i) if not blank[j]]:
            matchers[j].set_seq1(memory[i])
            bounds.append((-matchers[j].quick_ratio(), j))
        best: tuple[int, float] | None = None
        for negative_bound, j in sorted(bounds):
            if best is not None and -negative_bound < best[1]:
                break
            ratio = matchers[j].ratio()
            if best is None or ratio > best[1] or (ratio == best[1] and j < best[0]):
                best = (j, ratio)
        # Similar to nothing: every earlier one ties at 0, and ties go to the earliest.
        matches.append(best if best is not None and best[1] > 0 else (0, 0.0))
    return tuple(matches)


def is_frozen(rrr: float | None, threshold: float = FROZEN_THRESHOLD) -> bool:
    """Frozen memory: RRR >= the threshold (0.5 by default). An undefined RRR (fewer than two reflections) is not."""
    return rrr is not None and rrr >= threshold


FROZEN_SHARE_RULE = "frozen tasks / tasks with a defined RRR"
"""The one denominator of every frozen share (docs/metrics.md, "Frozen"): a task without a defined RRR can neither
freeze nor not, so it is left out, as from the mean RRR; a share over no such task is undefined, never 0."""


def frozen_share(frozen: int, rrr_defined: int) -> float | None:
    """Frozen tasks / tasks with a defined RRR (`FROZEN_SHARE_RULE`); None when no task has one."""
    return frozen / rrr_defined if rrr_defined else None


class MentionCounts(BaseModel):
    """How many reflections name the target object, under both matching rules."""

    model_config = ConfigDict(frozen=True)

    reflections: int = Field(ge=0, description="Reflections examined (the denominator).")
    strict: int = Field(ge=0, description="Reflections containing the CamelCase name, case-sensitive.")
    normalized: int = Field(ge=0, description="Reflections matching the case-insensitive whole-word rule.")

    @property
    def strict_rate(self) -> float | None:
        """strict / reflections; None without reflections."""
        return self.strict / self.reflections if self.reflections else None

    @property
    def normalized_rate(self) -> float | None:
        """normalized / reflections; None without reflections."""
        return self.normalized / self.reflections if self.reflections else None

    def __add__(self, other: MentionCounts) -> MentionCounts:
        return MentionCounts(
            reflections=self.reflections + other.reflections,
            strict=self.strict + other.strict,
            normalized=self.normalized + other.normalized,
        )


def object_mention(reflections: Sequence[str], target_object: str) -> MentionCounts:
    """Count the reflections that name `target_object`, strict and normalized side by side."""
    return MentionCounts(
        reflections=len(reflections),
        strict=sum(mentions_object(r, target_object, "strict") for r in reflections),
        normalized=sum(mentions_object(r, target_object, "normalized") for r in reflections),
    )


def _one_chain_solved_share(data: Any, total: str | None = None) -> Any:
    """metrics.json written before repeats has one chain per task: solved_share follows from the solved count."""
    if not isinstance(data, dict):
        return data
    denominator = max(data.get(total, 1), 1) if total else 1
    return {"solved_share": float(data.get("solved", 0)) / denominator} | data


class TaskMetrics(BaseModel):
    """Metrics of one task under one condition, over all its recorded trials: one chain (a repeat of the task), or
    its chains pooled (harness.metrics.repeats), the task counted once."""

    model_config = ConfigDict(frozen=True)

    task_id: str = Field(description="Game folder name or problem id.")
    condition: str = Field(description="Condition name.")
    target_object: str = Field(description="What object mention looks for, e.g. 'SaltShaker' or 'a failed test case'.")
    repeats: int = Field(1, ge=1, description="Chains of trials pooled here (experiment.repeats); 1 for one chain.")
    trials: int = Field(ge=1, description="Trials recorded for the task, over its chains.")
    reflections: int = Field(ge=0, description="Reflections written, |M|, over its chains.")
    rrr: float | None = Field(
        description="Reflection repetition rate of the chain (with repeats: the mean over chains where it is "
        "defined); None when no chain has two reflections."
    )
    frozen: bool = Field(description="rrr >= the frozen threshold (0.5 by default); False when rrr is None.")
    solved: bool = Field(description="Some recorded trial (of some chain) was won.")
    solved_trial: int | None = Field(description="0-based index of the first won trial (earliest of its chains).")
    solved_share: float = Field(ge=0, le=1, description="Share of the task's chains won: 0 or 1 with one chain.")
    mentions: MentionCounts = Field(description="Reflections naming the target object.")
    identity: IdentityCounts | None = Field(
        None, description="Reflections by task-identity label (on_task, off_task, vacuous); None without a rule."
    )
    malformed: int = Field(0, ge=0, description="Answers the grounded_template parser rejected (0 for other sources).")
    figures: dict[str, float | None] = Field(
        default_factory=dict,
        description="The task's values of the figures measured from each chain's records (harness.metrics.figures), "
        "its chains pooled; a metrics.json written before a figure existed lacks it.",
    )

    @model_validator(mode="before")
    @classmethod
    def _solved_share(cls, data: Any) -> Any:
        return _one_chain_solved_share(data)


def _malformed(record: TrialRecord) -> bool:
    details = record.reflection_details
    return details is not None and details.kind == "grounded_template" and details.malformed


def task_metrics(
    records: Sequence[TrialRecord],
    target_object: str,
    mentions: MentionCounts | None = None,
    identity: IdentityCounts | None = None,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    frozen_threshold: float = FROZEN_THRESHOLD,
) -> TaskMetrics:
    """Metrics from the records of one chain: one task under one condition in one repeat (any order; sorted by
    trial here).

    The memory M is every reflection written, in trial order, not only the actor's window. Object mention
    is counted by name (ALFWorld's rule) unless the domain counted it already (`mentions`); `identity` is the
    domain's identity labels of the reflections, counted.
    """
    if not records:
        raise ValueError("task_metrics needs at least one record.")
    keys = {(r.task_id, r.condition, r.repeat) for r in records}
    if len(keys) > 1:
        raise ValueError(f"records of one task and condition, in one repeat, expected, got {sorted(keys)}.")
    ordered = sorted(records, key=lambda r: r.trial)
    trials = [r.trial for r in ordered]
    if len(set(trials)) != len(trials):
        raise ValueError(f"trial indices repeat in the records of {ordered[0].task_id}: {trials}.")
    memory = [r.reflection for r in ordered if r.reflection is not None]
    rrr = reflection_repetition_rate(memory, similarity_threshold)
    won = [r.trial for r in ordered if r.success]
    return TaskMetrics(
        task_id=ordered[0].task_id,
        condition=ordered[0].condition,
        target_object=target_object,
        trials=len(ordered),
        reflections=len(memory),
        rrr=rrr,
        frozen=is_frozen(rrr, frozen_threshold),
        solved=bool(won),
        solved_trial=won[0] if won else None,
        solved_share=float(bool(won)),
        mentions=mentions if mentions is not None else object_mention(memory, target_object),
        identity=identity,
        malformed=sum(_malformed(r) for r in ordered),
    )


class ConditionMetrics(BaseModel):
    """Metrics of one condition over its tasks."""

    model_config = ConfigDict(frozen=True)

    condition: str = Field(description="Condition name.")
    tasks: int = Field(ge=1, description="Tasks played under the condition, each counted once however many repeats.")
    repeats: int = Field(1, ge=1, description="Most chains (experiment.repeats) of any task; 1 without repeats.")
    solved: int = Field(ge=0, description="Tasks won within the trial budget (in some chain).")
    rrr_defined: int = Field(ge=0, description="Tasks with at least two reflections, so a defined RRR.")
    mean_rrr: float | None = Field(description="Mean RRR under `mean_rrr_convention`; None when no RRR is defined.")
    mean_rrr_convention: Literal["over_defined_only"] = Field(
        "over_defined_only",
        description="Tasks with an undefined RRR are left out of the mean, never counted as 0.",
    )
    frozen: int = Field(
        ge=0, description="Tasks whose memory is frozen (their RRR >= the frozen threshold), out of `rrr_defined`."
    )
    solved_share: float = Field(ge=0, le=1, description="Mean over tasks of each one's share of chains won.")
    mentions: MentionCounts = Field(description="Object mentions summed over every task's reflections.")
    identity: IdentityShares | None = Field(
        None,
        description="Task-identity labels over every task's reflections, each with its 95% Wilson interval over "
        "reflections; None when the domain has no identity rule.",
    )
    malformed: int = Field(0, ge=0, description="Answers the grounded_template parser rejected, over all tasks.")
    diagnosis: DiagnosisRow | None = Field(
        None, description="Whether its reflections name where their trials were lost (diagnosis.jsonl); None without."
    )

    @model_validator(mode="before")
    @classmethod
    def _solved_share(cls, data: Any) -> Any:
        return _one_chain_solved_share(data, "tasks")

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form over a property
        description="frozen / rrr_defined: the one frozen share (FROZEN_SHARE_RULE); None when no task has a defined "
        "RRR. From the counts, so a metrics.json written when it was a mean over all tasks of each one's share of "
        "chains frozen reads under this definition."
    )
    @property
    def frozen_share(self) -> float | None:
        return frozen_share(self.frozen, self.rrr_defined)

    @computed_field(  # type: ignore[prop-decorator]  # pydantic's documented form over a property
        description="Solved / tasks (95% Clopper-Pearson over tasks) and object mention / reflections (95% Wilson "
        "over reflections), from the counts (so a metrics.json written before it reads the same)."
    )
    @property
    def intervals(self) -> ConditionIntervals:
        m = self.mentions
        return ConditionIntervals(
            solved=share(self.solved, self.tasks, "clopper-pearson"),
            strict=share(m.strict, m.reflections),
            normalized=share(m.normalized, m.reflections),
        )


def condition_metrics(per_task: Sequence[TaskMetrics]) -> ConditionMetrics:
    """Aggregate the per-task metrics of one condition (one entry per task: repeats pooled already)."""
    if not per_task:
        raise ValueError("condition_metrics needs at least one task.")
    conditions = {t.condition for t in per_task}
    if len(conditions) > 1:
        raise ValueError(f"tasks of one condition expected, got {sorted(conditions)}.")
    defined = [t.rrr for t in per_task if t.rrr is not None]
    # Counted only when every task was labelled: a pooled old run without labels must not shrink the denominator.
    labelled = [t.identity for t in per_task if t.identity is not None]
    labelled = labelled if len(labelled) == len(per_task) else []
    return ConditionMetrics(
        condition=per_task[0].condition,
        tasks=len(per_task),
        repeats=max(t.repeats for t in per_task),
        solved=sum(t.solved for t in per_task),
        rrr_defined=len(defined),
        mean_rrr=sum(defined) / len(defined) if defined else None,
        frozen=sum(t.frozen for t in per_task),
        solved_share=sum(t.solved_share for t in per_task) / len(per_task),
        mentions=sum((t.mentions for t in per_task), MentionCounts(reflections=0, strict=0, normalized=0)),
        identity=identity_shares(sum(labelled, IdentityCounts())) if labelled else None,
        malformed=sum(t.malformed for t in per_task),
    )
