"""Object mention in the published ALFWorld runs, through the env_N -> game mapping.

The logs name environments only `env_N`; the mapping (data/reflexion-logs/alfworld_env_to_game.json
by default) gives each its game, and the game's task folder gives the target object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.errors import EnvMappingError
from harness.audit.published import PublishedTask
from harness.audit.sources import DEFAULT_ROOT
from harness.audit.task_rrr import TaskRRR
from harness.metrics.core import MentionCounts, object_mention
from harness.metrics.identity import IdentityCounts, identity_counts
from harness.domains.alfworld.identity import reflection_identity
from harness.domains.alfworld.target import target_object

DEFAULT_ENV_TO_GAME = DEFAULT_ROOT / "alfworld_env_to_game.json"
ALFWORLD = "alfworld"
MAPPED_DOMAINS = frozenset({ALFWORLD})
"""Published domains whose environments the env_N -> game map names, so object mention can be measured."""


class FrozenEnv(BaseModel):
    """One environment whose memory froze, with the game the mapping gives it."""

    model_config = ConfigDict(frozen=True)

    env: str = Field(description="The log's name, env_N.")
    game: str = Field(description="<task folder>/<trial folder> from the mapping.")
    target_object: str = Field(description="Second field of the task folder, e.g. 'Mug'.")
    rrr: float = Field(description="Its reflection repetition rate (>= 0.5).")
    mentions: MentionCounts = Field(description="Its reflections naming the target object.")
    identity: IdentityCounts = Field(description="Its reflections by task-identity label against the mapped game.")


class AlfworldMention(BaseModel):
    """Object mention in one published ALFWorld source."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="Path relative to the logs root.")
    all_reflections: MentionCounts = Field(description="Over every reflection of every environment.")
    frozen_reflections: MentionCounts = Field(description="Over the reflections of frozen environments.")
    all_identity: IdentityCounts = Field(description="Task-identity labels over every reflection of every environment.")
    frozen_identity: IdentityCounts = Field(description="Task-identity labels over the frozen environments' reflections.")
    frozen_envs: list[FrozenEnv] = Field(description="The frozen environments, in log order.")


def read_env_to_game(path: Path) -> dict[str, str]:
    """The mapping file as {env_N: game id}; EnvMappingError when it is not a JSON object of strings."""
    try:
        mapping = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise EnvMappingError(f"cannot read the env-to-game mapping {path}: {error}.") from error
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise EnvMappingError(f"{path} is not a JSON object mapping env_N to '<task folder>/<trial folder>'.")
    return mapping


def env_targets(tasks: Sequence[PublishedTask], mapping: Mapping[str, str], mapping_name: str) -> dict[str, str]:
    """The target object of every environment with reflections; EnvMappingError when the mapping lacks one.

    Checked before anything is measured, so a wrong mapping costs a sentence, not an audit's time.
    """
    source = tasks[0].source if tasks else ""
    missing = [t.task_id for t in tasks if t.reflections and t.task_id not in mapping]
    if missing:
        raise EnvMappingError(
            f"{mapping_name} maps no game for {', '.join(missing)}; every environment with reflections in {source} "
            "needs one."
        )
    targets = {}
    for env in (t.task_id for t in tasks if t.reflections):
        try:
            targets[env] = target_object(mapping[env])
        except ValueError as error:
            raise EnvMappingError(f"{mapping_name} maps {env} to {mapping[env]!r}: {error}") from error
    return targets


def alfworld_mention(
    tasks: Sequence[PublishedTask], rated: Sequence[TaskRRR], mapping: Mapping[str, str], targets: Mapping[str, str]
) -> AlfworldMention:
    """Mentions over all reflections and over frozen environments.

    `rated` holds `tasks`' figures; `targets` is `env_targets` of the same tasks.
    """
    counts = {t.task_id: object_mention(t.reflections, targets[t.task_id]) for t in tasks if t.reflections}
    labels = {
        t.task_id: identity_counts(reflection_identity(r, mapping[t.task_id]) for r in t.reflections)
        for t in tasks
        if t.reflections
    }
    frozen_envs = [
        FrozenEnv(
            env=r.task_id,
            game=mapping[r.task_id],
            target_object=targets[r.task_id],
            rrr=r.rrr,
            mentions=counts[r.task_id],
            identity=labels[r.task_id],
        )
        for r in rated
        if r.frozen and r.rrr is not None
    ]
    empty = MentionCounts(reflections=0, strict=0, normalized=0)
    return AlfworldMention(
        source=tasks[0].source if tasks else "",
        all_reflections=sum(counts.values(), empty),
        frozen_reflections=sum((env.mentions for env in frozen_envs), empty),
        all_identity=sum(labels.values(), IdentityCounts()),
        frozen_identity=sum((env.identity for env in frozen_envs), IdentityCounts()),
        frozen_envs=frozen_envs,
    )
