"""An audit folder (`reflexion-audit`) as a row of index.html: its domains and how many published sources
it measured, from audit.json.

The audit sits above the report in the layers, so audit.json is read as plain JSON here (its `sources` and
`skipped` lists, each entry naming its `domain`), not through the audit's model.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.report._index_run import started_text
from harness.report.html import IndexRow

AUDIT_FILES = ("audit.md", "audit.html")
AUDIT_JSON = "audit.json"
WRITTEN = "written"


def _entries(report: Any, key: str) -> list[dict[str, Any]]:
    entries = report.get(key) if isinstance(report, dict) else None
    return [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []


def audit_row(audit_dir: Path, shown: str, report: str | None) -> IndexRow:
    """The audit in `audit_dir`, its page at `report` (relative to the index) or None."""
    written = [audit_dir / name for name in AUDIT_FILES if (audit_dir / name).is_file()]
    when = datetime.fromtimestamp(min(path.stat().st_mtime for path in written), timezone.utc) if written else None
    try:
        data = json.loads((audit_dir / AUDIT_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        reason = "none" if isinstance(error, FileNotFoundError) else "unreadable"
        return IndexRow(
            kind="audit",
            path=shown,
            status=f"{reason} {AUDIT_JSON}",
            started=started_text(when) if when else None,
            report=report,
        )
    sources, skipped = _entries(data, "sources"), _entries(data, "skipped")
    domains = sorted({str(s["domain"]) for s in sources if "domain" in s})
    return IndexRow(
        kind="audit",
        path=shown,
        status=WRITTEN,
        domains=domains,
        started=started_text(when) if when else None,
        figures=[f"{len(sources)} published source{'s' if len(sources) != 1 else ''} measured, {len(skipped)} skipped"],
        report=report,
        search=[str(s["source"]) for s in sources if "source" in s],
    )
