"""report.html as written: the markdown, the groups built from records, the details of each source, escaping."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.gate import Evidence
from harness.metrics.core import most_similar_earlier, reflection_repetition_rate, similarity
from harness.metrics.object_mention import MentionSpan
from harness.metrics.run import run_metrics
from harness.records import RunPlan, TrialRecord
from harness.records.details import ExtractedSignals, GateOutcome, TemplateParts
from harness.records.gate import Dropped, Proposal, Turn
from harness.report import write_report
from harness.cli.report import main
from harness.report.document import Document
from harness.report.html import HTML_FILE, Page, render_page, run_page
from harness.report.html._text import highlighted, similarity_text
from harness.report.html._trajectories import TrajectoryPool
from harness.records.alfworld import FailureSignals, StepBudget
from tests.harness.factories import make_record
from tests.harness.report.html.pages import AGAIN, FIRST, MUG, SCRIPT, write_small_run



@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_small_run(tmp_path / "run")


def test_mentions_are_marked_by_the_rule_that_found_them() -> None:
    spans = [
        MentionSpan(start=0, end=3, variant="strict"),
        MentionSpan(start=0, end=4, variant="normalized"),
        MentionSpan(start=9, end=12, variant="normalized"),
    ]
    assert highlighted("Mugs and mug <", spans) == (
        '<mark class="ms mn">Mug</mark><mark class="mn">s</mark> and <mark class="mn">mug</mark> &lt;'
    )
    assert highlighted("<b>", []) == "&lt;b&gt;"


def test_similarities_are_cut_not_rounded_so_a_shown_0_850_is_a_repeat() -> None:
    assert similarity_text(0.8499999) == "0.849"
    assert similarity_text(0.85) == "0.850"
    assert similarity_text(1.0) == "1.000"


def test_the_trajectory_table_cannot_close_its_script_element() -> None:
    pool = TrajectoryPool()
    steps = [("</script><!-- a", "b & c >"), ("go to desk 1", "b & c >")]
    assert pool.add(steps) == 0
    text = pool.script_json()
    assert "<" not in text and ">" not in text and "&" not in text
    data = json.loads(text)
    assert [data["s"][i] for i in data["t"][0]] == ["</script><!-- a", "b & c >", "go to desk 1", "b & c >"]


def test_each_reflection_shows_its_nearest_earlier_one_and_the_marks_add_up_to_rrr(run_dir: Path) -> None:
    write_report([run_dir], run_dir, plots=False)
    html = (run_dir / HTML_FILE).read_text()
    memory = [FIRST, AGAIN, SCRIPT]
    assert reflection_repetition_rate(memory) == 0.5
    assert html.count('<li class="t fail rep"') == 1
    assert f"{similarity_text(similarity(AGAIN, FIRST))} to trial 0: repeat" in html
    match = most_similar_earlier(memory)[2]
    assert match is not None and f"{similarity_text(match.similarity)} to trial {match.index}: new" in html
    assert "RRR 1/2 = 0.50" in html and "solved in trial 3" in html and "read trial 1, trial 2" in html


def test_model_text_is_escaped_everywhere_it_appears(run_dir: Path) -> None:
    write_report([run_dir], run_dir, plots=False)
    html = (run_dir / HTML_FILE).read_text()
    assert "window.__pwned" in html
    assert "<script>window" not in html
    assert html.count("</main>") == 1
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt; Take the " in html
    # The only script elements are the page's own two.
    assert len(re.findall(r"<script\b", html)) == 2


def test_the_page_needs_nothing_beside_it(run_dir: Path) -> None:
    write_report([run_dir], run_dir)
    html = (run_dir / HTML_FILE).read_text()
    assert "default-src 'none'" in html
    assert re.findall(r"""(?:src|href)=["'](?:https?:)?//""", html) == []
    assert html.count("data:image/png;base64,") == 4  # the three plots and the threshold curves


def test_the_command_writes_the_page_only_when_asked(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(run_dir), "--no-plots"])
    assert not (run_dir / HTML_FILE).exists()
    main([str(run_dir), "--html", "--no-plots"])
    assert (run_dir / HTML_FILE).is_file()
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote {run_dir / 'report.md'} and {run_dir / HTML_FILE}"


def _details_record(details: object, reflection: str | None) -> TrialRecord:
    return make_record(0, reflection, task=MUG, details=details)  # type: ignore[arg-type]


def _page_of(record: TrialRecord) -> str:
    metrics = run_metrics([record], RunPlan(conditions=[record.condition], tasks=None, trials=1), {MUG: "Mug"})
    page = run_page(Document("t", []), [_Run(records=[record], metrics=metrics)], [_Condition(record.condition)])
    return render_page(page, Path("."))


class _Run:
    name, domain = "run", "alfworld"
    path = Path("no-such-run")  # a run whose diagnosis.jsonl does not exist: no diagnosis marks

    def __init__(self, records: list[TrialRecord], metrics: object) -> None:
        self.records, self.metrics = records, metrics


class _Condition:
    def __init__(self, condition: str) -> None:
        self.label = self.condition = condition
        self.runs = ["run"]


def test_programmatic_trials_show_the_signals_injected_into_the_prompt() -> None:
    signals = FailureSignals(nothing_happens=[], loops=[], exhausted=None, budget=StepBudget(max_steps=30))
    record = _details_record(ExtractedSignals(signals=signals, rendered="Found:\n" + signals.render()), "plan")
    html = _page_of(record.model_copy(update={"condition": "programmatic"}))
    assert "failure signals injected into the reflection prompt" in html
    assert '<div class="it bad"><dd>Step 30: the step budget of 30 actions ran out.</dd></div>' in html
    assert '<div class="it plain"><dd>Found:</dd></div>' in html


def test_a_refused_template_answer_shows_its_fields_and_why() -> None:
    parts = TemplateParts(
        raw="ROOT CAUSE: <none>", failed_step=None, root_cause="<none>", new_plan=None, matched_step=None,
        malformed=True, problems=["FAILED STEP is missing"], policy="skip",
    )
    html = _page_of(_details_record(parts, None).model_copy(update={"condition": "grounded_template"}))
    assert "template: refused (malformed)" in html and "refused answer: no reflection stored" in html
    assert "<dt>refused</dt><dd>FAILED STEP is missing</dd>" in html
    assert "<dt>ROOT CAUSE</dt><dd>&lt;none&gt;</dd>" in html


def test_the_gate_shows_what_it_approved_left_pending_and_dropped_with_the_reason() -> None:
    turn = Turn(id=3, role="environment", text="The cabinet 1 is closed.")
    proposals = [
        Proposal(id=f"{k:016x}", lesson=f"lesson {k}", evidence=Evidence(turn=3, quote="cabinet 1 is closed"),
                 quoted_turn=turn, scope=MUG, origin="trial 0")
        for k in (1, 2)
    ]
    dropped = Dropped(reason="turn not found", detail="turn 9 does not exist.", item={"lesson": "x"}, scope=MUG,
                      origin="trial 0")
    outcome = GateOutcome(raw="[]", policy="auto", proposed=proposals, dropped=[dropped], approved=[proposals[0].id])
    html = _page_of(_details_record(outcome, "lesson 1").model_copy(update={"condition": "gated"}))
    assert "gate (auto policy): 2 proposed, 1 approved, 1 dropped" in html
    assert '<div class="it good"><dt>approved</dt><dd>lesson 1</dd>' in html
    assert "<dt>proposed, not approved</dt><dd>lesson 2</dd>" in html
    assert "<dt>dropped: turn not found</dt><dd>turn 9 does not exist.</dd>" in html
    assert "<dt>cites turn 3</dt><dd><pre>cabinet 1 is closed</pre></dd>" in html


def test_many_conditions_are_picked_from_a_list() -> None:
    from harness.report.html._filters import CHECKBOX_LIMIT, filters_html

    names = [f"source {k}" for k in range(CHECKBOX_LIMIT + 1)]
    assert "<select>" in filters_html("source", names, []) and 'type="checkbox" value=' not in filters_html(
        "source", names, []
    )
    assert "<select>" not in filters_html("condition", names[:2], [])


def test_a_page_without_groups_says_so() -> None:
    page = Page(document=Document("t", []), conditions=[], mention_note="", groups=[])
    assert "No trial records to show." in render_page(page, Path("."))
