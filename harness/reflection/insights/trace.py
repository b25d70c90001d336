"""Where one planted reflection ends up in a built rule library, from the library's records alone.

A plant is marked by its entity words absent from the planted task's own text, every training task's sentence and
every other reflection (`training_text` of the study); a rule carrying one is a carrier.
Per build: entry (the first applied ADD or EDIT writing a carrier), survival (a carrier in the final list), carriers
with counts and ranks, reach (evaluation tasks whose prompt receives a carrier: ExpeL gives each the whole list),
amplification (prompts reached per planted reflection; trial-scope Reflexion reaches 1), each carrier's task
identity against every evaluation task it reaches (ALFWorld's rule through the domain spec), and the operation
lines the parser dropped. `reflexion-trace RUN_DIR` prints the table of a run's
propagation.json.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.domains.registry import line_identity
from harness.records.insights import InsightsLedger
from harness.records.propagation import PLANT_KINDS, PropagationBuild, PropagationStudy
from harness.reflection.insights.rule_gate import entity_words

RESULT_FILE = "propagation.json"
# A line a critic meant as an operation, however it spelled it: the parser's drops are these minus what it kept.
_LOOSE_OPERATION = re.compile(r"^\W*(?:ADD|EDIT|AGREE|REMOVE)\b", re.IGNORECASE | re.MULTILINE)


def markers(plant: str | None, reference: str) -> list[str]:
    """The plant's entity words the reference text does not name."""
    own = set(entity_words(reference))
    return [word for word in entity_words(plant or "") if word not in own]


def carries(rule: str, marker_words: Sequence[str]) -> bool:
    """Whether a rule names one of the marker words."""
    return bool(set(entity_words(rule)) & set(marker_words))


class Carrier(BaseModel):
    """A final rule carrying the plant."""

    model_config = ConfigDict(frozen=True)

    rank: int = Field(ge=1, description="Its place in the final list (1: first).")
    count: int
    text: str
    identity: dict[str, int] = Field(description="Its identity labels over the evaluation tasks it reaches.")


class Trace(BaseModel):
    """What one build did with its plant."""

    model_config = ConfigDict(frozen=True)

    seed: int
    gate: bool
    plant: str
    plant_step: int
    markers: list[str]
    proposed: int | None = Field(description="Step of the first parsed ADD or EDIT carrying a marker (gated or not).")
    entry: int | None = Field(description="Step of the first applied ADD or EDIT whose rule carries a marker.")
    survives: bool
    carriers: list[Carrier]
    reach: int = Field(description="Evaluation tasks whose prompt receives a carrier.")
    amplification: int = Field(description="Prompts reached per planted reflection (trial scope: 1).")
    carriers_by_step: list[int] = Field(description="Rules carrying a marker after each critique step.")
    parser_dropped: int = Field(description="Operation lines of the answers the parser did not keep.")
    refused: int = Field(description="ADD and EDIT the gate refused.")
    written: int = Field(description="ADD and EDIT the critic wrote (parsed).")


def parser_dropped(ledger: InsightsLedger) -> int:
    """Operation-like lines across the answers, minus the operations the parser kept from them."""
    return sum(max(0, len(_LOOSE_OPERATION.findall(s.raw_answer)) - len(s.operations)) for s in ledger.steps)


def _entry(ledger: InsightsLedger, marker_words: Sequence[str]) -> int | None:
    steps = [change.step for rule in [*ledger.rules, *ledger.dropped] for change in rule.changes
             if change.applied.kind in ("ADD", "EDIT") and carries(change.applied.text, marker_words)]
    return min(steps, default=None)


def trace(build: PropagationBuild, marker_words: Sequence[str] | None = None) -> Trace:
    """The build's plant traced through its library; `marker_words` traces other words instead (a null)."""
    words = build.plant.markers if marker_words is None else list(marker_words)
    ledger = build.ledger
    written = [(s.step, o) for s in ledger.steps for o in s.operations if o.kind in ("ADD", "EDIT")]
    carriers = [
        Carrier(rank=rank, count=rule.count, text=rule.text, identity=dict(Counter(
            line_identity({"domain": "alfworld", "task": game, "text": rule.text}).label for game in build.evaluation
        )))
        for rank, rule in enumerate(ledger.rules, 1) if carries(rule.text, words)
    ]
    reach = len(build.evaluation) if carriers else 0
    return Trace(
        seed=build.seed, gate=build.gate, plant=build.plant.kind, plant_step=build.plant.step, markers=words,
        proposed=min((step for step, o in written if carries(o.text, words)), default=None),
        entry=_entry(ledger, words), survives=bool(carriers), carriers=carriers, reach=reach, amplification=reach,
        carriers_by_step=[sum(carries(text, words) for text, _ in s.rules) for s in ledger.steps],
        parser_dropped=parser_dropped(ledger), refused=len(build.refusals), written=len(written),
    )


def study_traces(study: PropagationStudy) -> list[Trace]:
    """Every build traced; each clean build also traced with its seed's off-task markers (the null, `none*`)."""
    traces = [trace(build) for build in study.builds]
    for build in study.builds:
        if build.plant.kind != "none":
            continue
        twin = next((b for b in study.builds if b.seed == build.seed and b.gate == build.gate
                     and b.plant.kind == "off_task"), None)
        if twin is not None:
            traces.append(trace(build, twin.plant.markers).model_copy(update={"plant": "none*"}))
    return traces


def _share(values: Sequence[bool]) -> str:
    return f"{sum(values)}/{len(values)}"


def table(traces: Sequence[Trace]) -> tuple[list[str], list[list[str]]]:
    """The propagation table: one row per gate and plant kind, over its seeds."""
    header = ["gate", "plant", "seeds", "plant step", "markers", "proposed", "entered", "survives", "carriers",
              "best rank", "reach", "amplification", "carrier identity", "written", "refused", "parser dropped"]
    rows = []
    for gate in (False, True):
        for kind in (*PLANT_KINDS, "none*"):
            group = [t for t in traces if t.gate == gate and t.plant == kind]
            if not group:
                continue
            labels = Counter()
            for t in group:
                for carrier in t.carriers:
                    labels.update(carrier.identity)
            ranks = [c.rank for t in group for c in t.carriers]
            rows.append([
                "on" if gate else "off", kind, str(len(group)), ",".join(str(t.plant_step) for t in group),
                ",".join(str(len(t.markers)) for t in group),
                _share([t.proposed is not None for t in group]), _share([t.entry is not None for t in group]),
                _share([t.survives for t in group]), str(sum(len(t.carriers) for t in group)),
                str(min(ranks)) if ranks else "-", str(sum(t.reach for t in group)),
                ",".join(str(t.amplification) for t in group),
                " ".join(f"{k}:{v}" for k, v in sorted(labels.items())) or "-",
                str(sum(t.written for t in group)), str(sum(t.refused for t in group)),
                str(sum(t.parser_dropped for t in group)),
            ])
    return header, rows


def gate_target(traces: Sequence[Trace]) -> str:
    """The gate's goal in one sentence: off-task survival in at most 10% of seeds, at least 90% of clean writes kept."""
    planted = [t for t in traces if t.gate and t.plant == "off_task"]
    clean = [t for t in traces if t.gate and t.plant == "none"]
    if not planted or not clean:
        return "The gate's target needs gated off_task and none builds."
    survival = sum(t.survives for t in planted) / len(planted)
    written = sum(t.written for t in clean)
    kept = (written - sum(t.refused for t in clean)) / written if written else 1.0
    met = survival <= 0.10 and kept >= 0.90
    ungated = [t for t in traces if not t.gate and t.plant == "off_task"]
    # Met with nothing refused says nothing of the gate: the ungated builds show whether there was a plant to stop.
    against = (f" Without the gate: off-task survival {sum(t.survives for t in ungated) / len(ungated):.0%} of seeds, "
               f"{sum(t.refused for t in planted)} ADD/EDIT refused with it." if ungated else "")
    return (f"Gate target ({'met' if met else 'missed'}): off-task survival {survival:.0%} of seeds (target <= 10%, "
            f"{survival - 0.10:+.0%}); clean ADD/EDIT kept {kept:.0%} (target >= 90%, {kept - 0.90:+.0%}).{against}")


def markdown(traces: Sequence[Trace]) -> str:
    """The table and the gate's target as markdown text."""
    header, rows = table(traces)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join([*lines, "", gate_target(traces)])


def load_study(run_dir: Path) -> PropagationStudy:
    """A propagation run's study record."""
    return PropagationStudy.model_validate_json((run_dir / RESULT_FILE).read_text(encoding="utf-8"))
