"""A stand-in model (no LLM): answers `Finish[echo]`, or `Finish[remembered]` once its prompt holds an echo lesson."""

from __future__ import annotations

from harness.extensions import LLMRequest, LLMResponse, ModelConfig, Usage


class EchoBackend:
    def __init__(self, config: ModelConfig) -> None:
        self.identity = f"echo:{config.model}"

    def generate(self, request: LLMRequest) -> LLMResponse:
        text = request.prompt or "\n".join(message.content for message in request.messages or [])
        answer = "remembered" if "Echo lesson" in text else "echo"
        return LLMResponse(text=f"Finish[{answer}]", usage=Usage(prompt_tokens=1, completion_tokens=1), latency_s=0.0)


def echo_backend(config: ModelConfig) -> EchoBackend:
    return EchoBackend(config)
