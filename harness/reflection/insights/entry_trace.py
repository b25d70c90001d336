"""What the entry study's critic did with each published reflection on an empty library, from entry.json alone:
whether a rule entered, whether it copies the reflection, whether a location claim of it (or of the reflection
itself) is contradicted by the game's play, whether the gate would have refused it, whether the answer was cut."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.alfworld.locations import checked_claims
from harness.records.propagation import EntryItem, EntryStudy
from harness.reflection.insights.copies import copied_from, read_texts
from harness.reflection.insights.markdown_table import markdown_table
from harness.reflection.insights.rates import needed_cell, rate_cell


class EntryTrace(BaseModel):
    """One reflection's critique on the empty library, traced."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    env_id: str
    game_id: str
    entered: bool = Field(description="A rule was added.")
    copied: bool = Field(description="An added rule copies the reflection.")
    shared_words: int = Field(description="The longest run of words an added rule shares with the reflection.")
    contradicted: list[str] = Field(description="Added rules' location claims the game's play contradicts.")
    reflection_contradicted: list[str] = Field(description="The reflection's own claims the play contradicts.")
    gate_refused: bool = Field(description="The rule-write gate would have refused an ADD or EDIT of the answer.")
    cut: bool


def entry_trace(item: EntryItem) -> EntryTrace:
    """One item traced."""
    experience = item.task.experience
    reflection = next(t.reflection or "" for t in experience.trials if not t.success)
    plays = [t.trajectory for t in experience.trials]
    texts = [t for t in read_texts([experience]) if t.kind == "reflection"]
    copies = [copy for rule in item.ledger.rules if (copy := copied_from(rule.text, texts)) is not None]
    wrong = [c.claim.words for rule in item.ledger.rules for c in checked_claims(rule.text, plays)
             if c.verdict == "contradicted"]
    own = [c.claim.words for c in checked_claims(reflection, plays) if c.verdict == "contradicted"]
    return EntryTrace(
        env_id=experience.id, game_id=item.task.game_id, entered=bool(item.ledger.rules), copied=bool(copies),
        shared_words=max((c.shared_words for c in copies), default=0), contradicted=wrong,
        reflection_contradicted=own, gate_refused=bool(item.refusals), cut=item.cut,
    )


def entry_table(traces: Sequence[EntryTrace]) -> tuple[list[str], list[list[str]]]:
    """One row per measure: k of n reflections, the exact 95% interval, the reflections a rate like it would need
    to be bounded below 10%."""
    n = len(traces)
    confabulated = [t for t in traces if t.reflection_contradicted]
    measures = [
        ("a rule entered", [t.entered for t in traces]),
        ("an entered rule copies the reflection", [t.copied for t in traces]),
        ("an entered rule states a contradicted location", [bool(t.contradicted) for t in traces]),
        ("the reflection itself states a contradicted location", [bool(t.reflection_contradicted) for t in traces]),
        ("of those, a rule entered", [t.entered for t in confabulated]),
        ("of those, the contradicted location entered", [bool(t.contradicted) for t in confabulated]),
        ("the gate would refuse a write of the answer", [t.gate_refused for t in traces]),
        ("the answer was cut at the length limit", [t.cut for t in traces]),
    ]
    rows = [[name, rate_cell(sum(values), len(values)), needed_cell(sum(values), len(values))]
            for name, values in measures]
    return [f"measure (of {n} reflections)", "k/n (95% exact)", "reflections to bound < 10%"], rows


def entry_rows(traces: Sequence[EntryTrace]) -> tuple[list[str], list[list[str]]]:
    """Every reflection: its environment and game, and what its critique did."""
    header = ["env", "game", "entered", "copied (shared words)", "contradicted in the rule",
              "contradicted in the reflection", "gate", "cut"]
    rows = [[t.env_id, t.game_id.split("/")[0], "yes" if t.entered else "no",
             f"yes ({t.shared_words})" if t.copied else "no", "; ".join(t.contradicted) or "-",
             "; ".join(t.reflection_contradicted) or "-", "refuses" if t.gate_refused else "-",
             "cut" if t.cut else "-"] for t in traces]
    return header, rows


def entry_traces(study: EntryStudy) -> list[EntryTrace]:
    """Every item traced."""
    return [entry_trace(item) for item in study.items]


def entry_markdown(study: EntryStudy) -> str:
    """The entry study's tables as markdown text."""
    traces = entry_traces(study)
    lines = [(f"Critic {study.model} (answers cut at {study.max_tokens} tokens), each of {len(traces)} published "
              "reflections shown to an empty library in one compare critique."), ""]
    for header, rows in (entry_table(traces), entry_rows(traces)):
        lines += markdown_table(header, rows)
        lines.append("")
    return "\n".join(lines).rstrip("\n")
