"""ExpeL's insight stage (LeapLabTHU/ExpeL, Apache-2.0), its faithful core: training experience turned into one
global rule library by a critic, every rule with the critiques, trials and reflections that made it.

`plan_critiques` lists ExpeL's critiques over a fold's training tasks in its order; `critique_messages` builds each
request from `prompts/expel/`; `parse_operations` and `update_rules` read and count the critic's answer as ExpeL's
parse_rules and update_rules do; `apply_answer`, `replay` and `extract` fold a sequence of answers into an
`InsightsLedger` (`harness/records/insights.py`); `rules_message` is what goes before every evaluation task.
`experience_tasks` reads a run's own records as experience, `split_folds` is ExpeL's training/evaluation split; the
run's insight stage (`harness/run/insights_stage.py`) wires them into a run, and `run_libraries` reads a run's
libraries back from its insights.jsonl.
"""

from __future__ import annotations

from harness.reflection.insights._counting import screen, update_rules
from harness.reflection.insights._experience import experience_tasks, trial_text
from harness.reflection.insights._folds import outcome, split_folds
from harness.reflection.insights._ledger import apply_answer, extract, replay
from harness.reflection.insights._operations import parse_operations
from harness.reflection.insights._plan import (
    ExpelDomain,
    InsightsOptions,
    PlannedCritique,
    plan_critiques,
    success_chunks,
)
from harness.reflection.insights._prompt import critique_messages, rules_message
from harness.reflection.insights._run_libraries import run_libraries

__all__ = [
    "ExpelDomain",
    "InsightsOptions",
    "PlannedCritique",
    "apply_answer",
    "critique_messages",
    "experience_tasks",
    "extract",
    "parse_operations",
    "plan_critiques",
    "replay",
    "rules_message",
    "run_libraries",
    "screen",
    "split_folds",
    "success_chunks",
    "outcome",
    "trial_text",
    "update_rules",
]
