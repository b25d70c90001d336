"""The entry study: every published ALFWorld reflection shown to an empty rule library in one compare critique.

Once a library holds a rule, a small critic tends to answer with that rule whatever it reads, so the empty library is
where its answer depends on the reflection. Each reflection's environment is one task: the task sentence, the failed
trial as the published log keeps it with the reflection after it, and the expert planner's play as the success. The
answer is counted as ExpeL counts it; what the rule-write gate would have refused of the same answer is recorded
beside it (on an empty library the request does not depend on the gate, so no second call is made).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from harness.llm import CachedLLM, CacheStore, CallContext, ModelConfig, chat_request, create_backend
from harness.llm.metering import MeteredLLM
from harness.records.insights import InsightsLedger
from harness.records.propagation import ENTRY_FILE, EntryItem, EntryStudy, StudyTask
from harness.records.whole_file import write_whole
from harness.reflection.insights import InsightsOptions, apply_answer, critique_messages, plan_critiques
from harness.reflection.insights.rule_gate import evidence_plays, gated_answer
from harness.run.lock import RunLock
from harness.run.propagation_config import EntryConfig
from harness.run.scenarios.propagation import DOMAIN, LENGTH_LIMIT


def run_entry(scenario: EntryConfig, model: ModelConfig, tasks: Sequence[StudyTask], reads: str, source: str,
              run_dir: Path) -> EntryStudy:
    """Each task's reflection shown to an empty library, written to RUN_DIR/entry.json (`tasks`: those of
    `scenario.envs`, chosen by the caller)."""
    lock = RunLock.acquire(run_dir)
    try:
        llm = CachedLLM(create_backend(model), CacheStore(Path(scenario.cache.path)), scenario.cache.mode)
        options = InsightsOptions(read_reflections=True)
        items = []
        for task in tasks:
            # A lone task plans its compare critique first; the all-success chunk after it is not asked.
            first = plan_critiques([task.experience], DOMAIN, random.Random(scenario.seed), options)[0]
            empty = InsightsLedger(max_num_rules=options.max_num_rules)
            context = CallContext(task_id=task.experience.id, trial=0, condition="entry", role="reflector")
            request = chat_request(critique_messages(first, [], DOMAIN, options.max_num_rules), scenario.max_tokens,
                                   scenario.seed)
            response = MeteredLLM(llm, context).generate(request)
            _, refusals = gated_answer(empty, first.critique, response.text,
                                       evidence_plays(first.critique, [task.experience]))
            items.append(EntryItem(task=task, ledger=apply_answer(empty, first.critique, response.text),
                                   refusals=refusals, cut=response.finish_reason == LENGTH_LIMIT))
        study = EntryStudy(model=model.name, source=source, reads=reads, max_tokens=scenario.max_tokens, items=items)
        write_whole(run_dir / ENTRY_FILE, study.model_dump_json(indent=1) + "\n")
        return study
    finally:
        lock.release()
