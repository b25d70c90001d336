"""`python -m harness.cli.hotpotqa_boilerplate`: data/hotpotqa/reflection_boilerplate.json rewritten from the
published HotpotQA logs (harness/audit/reflection_boilerplate.py)."""

from __future__ import annotations

import json

from harness.audit.reflection_boilerplate import reflection_boilerplate
from harness.domains.hotpotqa.described import BOILERPLATE_FILE


def main() -> None:
    content = reflection_boilerplate()
    BOILERPLATE_FILE.write_text(json.dumps(content, indent=1) + "\n", encoding="utf-8")
    print(f"{len(content['words'])} words written to {BOILERPLATE_FILE}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
