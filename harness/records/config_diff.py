"""Which settings of two resolved run configs differ in a way that would change finished trials, and in words."""

from __future__ import annotations

from typing import Any, Final

# Settings that may change between a run and its resumption without changing any finished trial. More trials or
# repeats only add trials (fewer leave records outside the plan, kept and named, never counted). Tracking only copies
# a finished run elsewhere; the report is written again from the records.
RESUMABLE_KEYS = (
    "experiment.trials",
    "experiment.repeats",
    "experiment.max_concurrency",
    "env.engine_workers",
    "env.translation_cache",
    "env.prefetch_translations",
    "llm",
    "metrics",
    "progress",
    "progress_interval_s",
    "report",
    "resume",
    "tracking",
)
# Model settings that pace, bound, retry or price calls but never change an answer (so a run stopped by a slow
# server resumes with a longer model.timeout_s); a run started before some of them existed lacks them. The answer
# bounds only refuse (and retry) answers no recorded trial holds.
# `n_threads` is llm.n_threads copied into every role: the run's `llm` section is resumable, so its copies are.
MODEL_KEYS_NOT_SHAPING = (
    *("requests_per_minute", "tokens_per_minute", "price"),
    *("timeout_s", "max_retries", "retry_max_wait_s"),
    *("max_answer_chars_per_token", "max_answer_chars"),
    "n_threads",
    "prefix_store_mb",
)
LATER_DEFAULTS: Final[dict[str, Any]] = {
    "sampling": {role: {"temperature": None, "top_p": None} for role in ("actor", "reflector")},
    "experiment.held_out": False,
    "env.frozen_similarity_threshold": 0.85,
    "env.frozen_rrr_threshold": 0.5,
    "memory": {"scope": "trial"},
    "insights": {
        "max_num_rules": 20, "success_critique_num": 8, "read_reflections": False, "folds": 2, "fold_seed": 42,
        "only_fold": None, "critic_max_tokens": 512, "plant": None,
    },
}
"""Settings added after runs were recorded (dotted keys), at the values those runs were played with: written out,
as a later default must not change how an earlier run is read."""
SHOWN_WITH_VALUES = 3
"""A refusal shows this many changed settings with their values, then names the rest."""
_LONGEST_VALUE = 60


class _Absent:
    def __repr__(self) -> str:
        return "unset"


ABSENT: Final = _Absent()
"""A setting one of the two configs does not have."""


def _named(items: list[Any]) -> dict[str, Any] | None:
    """A list of mappings with unique names (the conditions) keyed by name, so a change is named by condition."""
    names = [name for item in items if isinstance(item, dict) and isinstance(name := item.get("name"), str)]
    if len(names) != len(items) or len(set(names)) != len(names):
        return None
    return dict(zip(names, items))


def _differences(old: Any, new: Any, key: str) -> dict[str, tuple[Any, Any]]:
    """{dotted key: (was, now)} for every leaf that differs; a subtree on one side only is one entry."""
    if isinstance(old, list) and isinstance(new, list):
        old_named, new_named = _named(old), _named(new)
        if old_named is not None and new_named is not None:
            old, new = old_named, new_named
    if isinstance(old, dict) and isinstance(new, dict):
        found: dict[str, tuple[Any, Any]] = {}
        for part in list(old) + [k for k in new if k not in old]:
            found.update(_differences(old.get(part, ABSENT), new.get(part, ABSENT), f"{key}.{part}" if key else part))
        return found
    return {} if old == new else {key: (old, new)}


def _without_pacing_and_price(config: dict[str, Any]) -> dict[str, Any]:
    """The config with MODEL_KEYS_NOT_SHAPING dropped from the run's models and every condition's."""

    def roles(tree: dict[str, Any]) -> dict[str, Any]:
        return {
            key: {k: v for k, v in value.items() if k not in MODEL_KEYS_NOT_SHAPING}
            if key in ("actor", "reflector") and isinstance(value, dict)
            else value
            for key, value in tree.items()
        }

    conditions = [roles(c) if isinstance(c, dict) else c for c in config.get("conditions", [])]
    return {**roles(config), **({"conditions": conditions} if "conditions" in config else {})}


def _with_later_defaults(config: dict[str, Any]) -> dict[str, Any]:
    """The config with the settings added after it was written at their defaults, which is how it was played."""
    filled = dict(config)
    for dotted, value in LATER_DEFAULTS.items():
        *sections, key = dotted.split(".")
        tree = filled
        for section in sections:
            if not isinstance(tree.get(section), dict):
                break
            tree[section] = dict(tree[section])
            tree = tree[section]
        else:
            tree.setdefault(key, value)
    return filled


def shaping_changes(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Settings that shape finished trials and differ: {dotted key: (was, now)}, sorted by key; ABSENT marks a side
    that does not have the setting."""
    changed = _differences(
        _without_pacing_and_price(_with_later_defaults(previous)),
        _without_pacing_and_price(_with_later_defaults(current)),
        "",
    )
    return {
        key: values
        for key, values in sorted(changed.items())
        if not any(key == k or key.startswith(k + ".") for k in RESUMABLE_KEYS)
    }


def recordable(value: Any) -> Any:
    """A side of a change as the manifest's JSON records it: ABSENT as null."""
    return None if value is ABSENT else value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _LONGEST_VALUE else text[: _LONGEST_VALUE - 3] + "..."


def describe_changes(changes: dict[str, tuple[Any, Any]]) -> str:
    """`key=was, not now` for the first few changes, then the other keys by name: a sentence, not a config dump."""
    items = list(changes.items())
    shown = [f"{key}={_shown(was)}, not {_shown(now)}" for key, (was, now) in items[:SHOWN_WITH_VALUES]]
    rest = [key for key, _ in items[SHOWN_WITH_VALUES:]]
    more = f"; and {len(rest)} more setting(s) differ: {', '.join(rest)}" if rest else ""
    return "; ".join(shown) + more
