"""A test instrument: an OpenAI-compatible HTTP server playing a HotpotQA actor that answers right with a set
probability per condition, to prove end to end that the effects table finds a planted effect and passes a null.

It is benchmarks/recorded_server.py's server answering HotpotQA's CoT requests (Reflexion's prompts, completion
API) itself. The condition is not in a request, so the server tells conditions apart by what differs in the prompt:
an actor prompt holding Reflexion's reflection header (self_diagnosis from its second trial on) is answered right
with probability `p_with_memory`, any other (every no_memory trial, every first trial) with `p_without_memory`.
A thought request ("...\\nThought:") gets a fixed thought; an action request ("...\\nAction:") gets
`Finish[<the question's gold answer>]` or `Finish[<a wrong one>]`; a reflection request gets a reflection naming
the trial. Draws come from one seeded `random.Random`, in arrival order (run with experiment.max_concurrency=1 for
a reproducible study). Nothing here is part of the harness.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from benchmarks.recorded_server import RecordedHandler, RecordedServer
from harness.domains.hotpotqa.questions import load_questions
from harness.llm.prompts import read_prompt

WRONG_ANSWER = "the simulated wrong answer"
THOUGHT = "I read the context and answer."
QUESTION_MARK = "\nQuestion: "


class _SimulatedHandler(RecordedHandler):
    owner: SimulatedServer  # type: ignore[assignment]

    def respond(self, payload: dict[str, Any]) -> None:
        try:
            text = self.owner.answer(payload)
        except ValueError as error:
            self.send_json(400, {"error": {"message": str(error), "type": "invalid_request_error"}})
            return
        self.send_answer(payload, {"text": text, "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


class SimulatedServer(RecordedServer):
    """`with SimulatedServer(p_with_memory, p_without_memory, seed) as server:` ... `server.base_url`."""

    handler = _SimulatedHandler

    def __init__(self, p_with_memory: float, p_without_memory: float, seed: int, port: int = 0) -> None:
        super().__init__(None, port)
        self.p_with_memory = p_with_memory
        self.p_without_memory = p_without_memory
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._gold = {q.question: q.answer for q in load_questions()}
        self._header = read_prompt("hotpotqa/reflection_header.txt")
        self.draws: dict[bool, list[bool]] = {True: [], False: []}
        """Every actor verdict drawn, by whether the prompt held reflections."""

    def _question(self, prompt: str) -> str:
        # The asked question follows the last "Question: " (the examples' come before it) up to the scratchpad.
        tail = prompt[prompt.rindex(QUESTION_MARK) + len(QUESTION_MARK):]
        return tail.split("\nThought:", 1)[0]

    def answer(self, payload: dict[str, Any]) -> str:
        prompt = payload.get("prompt") or ""
        if prompt.endswith("\nReflection:"):
            return f"I answered {WRONG_ANSWER!r}; read the context again and find the answer it supports."
        if prompt.endswith("\nThought:"):
            return THOUGHT
        if not prompt.endswith("\nAction:"):
            raise ValueError("the simulated server answers HotpotQA's CoT thought, action and reflection prompts only")
        memory = self._header in prompt
        with self._lock:
            right = self._random.random() < (self.p_with_memory if memory else self.p_without_memory)
            self.draws[memory].append(right)
        return f"Finish[{self._gold[self._question(prompt)] if right else WRONG_ANSWER}]"
