"""The paper against its logs: each figure of the paper recomputed from the published logs, with a verdict that can
move (a planted figure flips it)."""

from __future__ import annotations

import pytest

from harness.audit.alfworld_mention import DEFAULT_ENV_TO_GAME, read_env_to_game
from harness.audit.paper import ALFWORLD_RUN, HUMANEVAL_RUN, WEBSHOP_RUN, LogsEvidence, load_claims, paper_checks
from harness.audit.source_audit import source_audit
from harness.audit.sources import DEFAULT_ROOT, discover_sources, load_source
from harness.audit.task_rrr import task_rrrs

HOTPOTQA_RUN = "hotpotqa_runs/root/CoT/no_context/last_trial_and_reflexion/100_questions_5_trials.txt"


@pytest.fixture(scope="module")
def evidence() -> LogsEvidence:
    wanted = {ALFWORLD_RUN, WEBSHOP_RUN, HUMANEVAL_RUN, HOTPOTQA_RUN}
    sources = [s for s in discover_sources(DEFAULT_ROOT) if s.name in wanted]
    tasks = {s.name: load_source(s) for s in sources}
    rated = {name: task_rrrs(found, {}) for name, found in tasks.items()}
    rows = {s.name: source_audit(s.domain, s.name, rated[s.name]) for s in sources}
    return LogsEvidence(
        rows=rows, tasks=tasks, rated=rated, env_to_game=read_env_to_game(DEFAULT_ENV_TO_GAME), env_to_game_name="map"
    )


def _verdicts(evidence: LogsEvidence, claims=None) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {check.claim.id: check for check in paper_checks(evidence, claims)}


@pytest.fixture(scope="module")
def checks(evidence: LogsEvidence) -> dict[str, object]:
    """The claims file's checks, made once: the HotpotQA row's measures a log again with autojunk off (seconds)."""
    return _verdicts(evidence)


def test_every_figure_of_the_paper_gets_a_verdict(checks: dict[str, object]) -> None:
    claims = load_claims()
    assert list(checks) == [c.id for c in claims.claims]
    assert all(c.source in claims.sources and c.text for c in claims.claims)
    wanted = {
        "table1_alfworld", "table1_webshop", "table1_hotpotqa", "table1_humaneval", "original_solved",
        "original_mention", "original_rrr", "spearman", "env22_game", "env22_reflections", "memory_harmful",
    }  # fmt: skip
    assert wanted <= set(checks)


def test_what_the_logs_say_of_the_paper(checks: dict[str, object]) -> None:
    assert checks["table1_alfworld"].verdict == "agrees"
    assert checks["spearman"].verdict == "agrees" and "0.808" in checks["spearman"].logs
    hotpotqa = checks["table1_hotpotqa"]
    assert hotpotqa.verdict == "differs" and "arithmetically impossible" in hotpotqa.reason
    assert checks["table1_denominators"].verdict == "differs"
    mention = checks["original_mention"]
    assert mention.verdict == "differs" and "strict 0/121" in mention.logs and "normalized 119/121" in mention.logs
    game = checks["env22_game"]
    assert game.verdict == "differs" and "Tomato -> Microwave" in game.logs
    assert checks["env22_reflections"].verdict == "agrees"
    assert checks["original_solved"].verdict == "cannot be checked"
    assert "within the first 10" in checks["original_solved"].logs


def test_the_audit_counts_one_claim_once(checks: dict[str, object]) -> None:
    # The Original Reflexion row's 0/16 and the re-run sentence are one figure: the 16 frozen environments re-run for
    # 10 trials, whose logs are not published. Two entries gave it two verdicts, "differs" and "cannot be checked".
    claims = load_claims().claims
    solved = [c for c in claims if c.values.get("solved") == 0 and c.values.get("of") == 16]
    assert len(solved) == 1
    [claim] = solved
    assert claim.restated and "rerun with a 10-trial budget" in claim.restated[0]
    check = checks[claim.id]
    assert check.verdict == "cannot be checked" and "re-run" in check.reason and "12/16" in check.reason


def test_a_planted_figure_flips_its_verdict(evidence: LogsEvidence) -> None:
    claims = load_claims()
    planted = claims.model_copy(
        update={
            "claims": [
                c.model_copy(update={"values": {**c.values, "frozen": 15}}) if c.id == "table1_alfworld"
                else c.model_copy(update={"values": {**c.values, "rho": "0.5"}}) if c.id == "spearman"
                else c.model_copy(update={"values": {**c.values, "object": "Tomato", "receptacle": "Microwave"}})
                if c.id == "env22_game"
                else c
                for c in claims.claims
            ]
        }
    )  # fmt: skip
    checks = _verdicts(evidence, planted)
    assert checks["table1_alfworld"].verdict == "differs"
    assert checks["spearman"].verdict == "differs"
    assert checks["env22_game"].verdict == "agrees"


def test_no_hotpotqa_log_has_46_frozen_states_its_similarity_settings(checks: dict[str, object]) -> None:
    # 46 x 0.5 / 100 > 0.059 holds whatever the similarity; which log has how many frozen does not: the log with the
    # most has 34 with SequenceMatcher's autojunk on (difflib's default, the harness's) and 48 with it off.
    check = checks["table1_hotpotqa"]
    assert "arithmetically impossible" in check.reason and "= 0.23, not 0.059" in check.reason
    settings = "difflib ratio >= 0.85, the later reflection first, autojunk on"
    assert f"at the harness's similarity ({settings}) no HotpotQA log has 46 frozen tasks" in check.reason
    assert f"with autojunk off `{HOTPOTQA_RUN}` has 48" in check.reason
    assert check.logs.startswith(f"most frozen in any HotpotQA log ({settings}): 34 (`{HOTPOTQA_RUN}`")
