"""A plant-and-trace run (`experiment=propagation`: propagation.json, no trials) as a row of index.html: its model,
its builds (seeds, plants, gate) and the gate's target as the trace reads it.

Nothing here refuses: a propagation.json that cannot be read is named in the row.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from harness.reflection.insights.trace import RESULT_FILE, gate_target, study_traces
from harness.report._index_run import FINISHED, started_text
from harness.report._propagation_report import read_study
from harness.report._runs import ReportInputError
from harness.report.html import IndexRow

PROPAGATION_DOMAIN = "alfworld"
"""The study plants into the published ALFWorld run's experience."""


def propagation_row(run_dir: Path, shown: str, report: str | None) -> IndexRow:
    """The study in `run_dir`, shown as `shown`, its page at `report` (relative to the index) or None."""
    path = run_dir / RESULT_FILE
    written = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc) if path.is_file() else None
    try:
        study = read_study(run_dir)
    except ReportInputError:
        return IndexRow(
            kind="propagation", path=shown, status=f"unreadable {RESULT_FILE}",
            started=started_text(written) if written else None, report=report,
        )  # fmt: skip
    builds = study.builds
    seeds = sorted({build.seed for build in builds})
    plants = list(dict.fromkeys(build.plant.kind for build in builds))
    gates = sorted({"on" if build.gate else "off" for build in builds})
    return IndexRow(
        kind="propagation",
        path=shown,
        status=FINISHED,  # propagation.json is written whole once every build is done
        domains=[PROPAGATION_DOMAIN],
        conditions=plants,
        models=[study.model],
        started=started_text(written) if written else None,
        figures=[
            f"{len(builds)} rule libraries: seeds {', '.join(map(str, seeds)) or '-'}; plants {', '.join(plants) or '-'}; "
            f"gate {', '.join(gates) or '-'}",
            gate_target(study_traces(study)),
        ],
        report=report,
        search=[task.game_id for task in study.tasks],
    )
