"""A behavioural-reach study's table, from reach.json alone: per arm (with the rule, without it) the episodes that
acted on the rule's claims and those solved, with exact 95% intervals, and each episode's acting actions."""

from __future__ import annotations

from harness.records.propagation import ReachStudy
from harness.errors import visible
from harness.reflection.insights.markdown_table import markdown_table
from harness.reflection.insights.rates import rate_cell


def reach_markdown(study: ReachStudy) -> str:
    """The arms side by side, then every episode."""
    arms = []
    for arm in ("with", "without"):
        played = [e for e in study.episodes if e.arm == arm]
        arms.append([arm, str(len(played)), rate_cell(sum(bool(e.acted) for e in played), len(played)),
                     rate_cell(sum(e.success for e in played), len(played))])
    episodes = [[e.game_id.split("/")[0], e.arm, "; ".join(e.acted) or "-", "yes" if e.success else "no",
                 str(len(e.actions))] for e in study.episodes]
    lead = (f"Rule {study.rank} of the build seed={study.seed} gate={'on' if study.gate else 'off'} "
            f"plant={study.plant} ({study.study}), claiming {', '.join(study.claims)}; actor {study.model}.")
    return "\n".join([visible(lead), "", *markdown_table(["arm", "episodes", "acted on the rule", "solved"], arms), "",
                      *markdown_table(["game", "arm", "acting actions", "solved", "steps"], episodes)])
