"""`python -m harness.cli.hotpotqa_boilerplate`: data/hotpotqa/reflection_boilerplate.json rewritten from the
published HotpotQA logs (harness/audit/reflection_boilerplate.py)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from harness.audit.reflection_boilerplate import reflection_boilerplate
from harness.domains.hotpotqa.described import BOILERPLATE_FILE


def main(argv: Sequence[str] | None = None) -> None:
    # No options, but `--help` or a stray argument must not rewrite the shipped file.
    argparse.ArgumentParser(description="Rewrite data/hotpotqa/reflection_boilerplate.json from the published "
                            "HotpotQA logs.").parse_args(argv)
    content = reflection_boilerplate()
    BOILERPLATE_FILE.write_text(json.dumps(content.model_dump(), indent=1) + "\n", encoding="utf-8")
    print(f"{len(content.words)} words written to {BOILERPLATE_FILE}")


if __name__ == "__main__":
    main()
