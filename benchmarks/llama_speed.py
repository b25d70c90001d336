"""Benchmark: the embedded backend's prompt and generation speed against llama.cpp's own, and KV prefix reuse.

    python -m benchmarks.llama_speed [--model qwen2.5-coder-1.5b] [--threads 2] [--repeats 3] [--gen-tokens 128]

Three parts, one model load each, one after another:

1. Two real ALFWorld trials of one game (the first of env.set=demo, `--episode-steps` actions each) through the
   harness's llama.cpp backend, with Reflexion's self-diagnosis between them from a reflector backend of the
   same model, as a run uses it: one loaded copy, the actor's KV prefix parked while the reflector runs. After
   every actor call llama.cpp's counters (n_p_eval) say how many prompt tokens it actually evaluated; the rest
   came from the KV cache. (llama.cpp books a decode when it next synchronises, so a call's count can be off
   by one token.)
2. Speed through the backend: the episode's first prompt behind a fresh marker (so the cache holds nothing of
   it), answered with 1 token: prompt tokens per second of the whole call; then the same prompt again with
   `--gen-tokens` and no stop: generated tokens per second of the whole call (its prompt is all reused).
   Beside each, llama.cpp's own timers for the same calls (llama_perf_context: decode time only).
3. llama.cpp alone, as llama-bench measures it: a fresh llama_cpp.Llama with the same settings decodes the
   same prompt in one eval, then `--gen-tokens` single tokens at the same depth, with no sampling.

Targets: backend speed >= 0.9x llama.cpp's own timers, for prompt and for generation.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from llama_cpp import Llama

from benchmarks._output import Check, add_output_arguments, at_least, finish
from envs.alfworld import AlfworldEpisode, AlfworldGame, list_games, select_games
from harness.domains.alfworld.actor import play_episode
from harness.domains.alfworld.reflection import AlfworldReflection
from harness.domains.base import ReflectionInput
from harness.reflection.self_diagnosis import SelfDiagnosis
from benchmarks._models import model_option
from harness.llm import CachedLLM, CacheStore, CallContext, LLMRequest, LLMResponse, ModelConfig, create_backend
from harness.llm._embedded_models import embedded_model, resolve_model_path
from harness.llm._llamacpp import LlamaCppBackend
from harness.llm.metering import MeteredLLM

NAME = "llama_speed"
TARGET_RATIO = 0.9
SMOKE = {"model": "smollm2-135m", "threads": 1, "repeats": 1, "gen_tokens": 8, "episode_steps": 2}


@dataclass(frozen=True)
class CallFigures:
    """One backend call as llama.cpp counted it."""

    prompt_tokens: int
    evaluated_tokens: int
    completion_tokens: int
    wall_s: float


class CountingBackend:
    """The backend under test, noting llama.cpp's counters after each call and keeping the first prompt."""

    def __init__(self, backend: LlamaCppBackend) -> None:
        self.backend = backend
        self.identity = backend.identity
        self.calls: list[CallFigures] = []
        self.first_prompt: str | None = None

    def generate(self, request: LLMRequest) -> LLMResponse:
        started = time.perf_counter()
        response = self.backend.generate(request)
        wall = time.perf_counter() - started
        self.first_prompt = self.first_prompt or request.prompt
        evaluated = self.backend.timings().prompt_tokens
        self.calls.append(CallFigures(response.usage.prompt_tokens, evaluated, response.usage.completion_tokens, wall))
        return response


def model_config(name: str, threads: int) -> ModelConfig:
    return ModelConfig(**{**model_option(name), "n_threads": threads})


def demo_game() -> AlfworldGame:
    return select_games(list_games(), set_name="demo")[0]


def play_two_trials(counting: CountingBackend, config: ModelConfig, game: AlfworldGame, steps: int, scratch: Path) -> None:
    """Trial 0, its self-diagnosis by a second backend of the same model, then trial 1 with that memory."""
    store = CacheStore(scratch / "unused_cache.jsonl")
    context = CallContext(task_id=game.game_id, trial=0, condition="benchmark", role="actor")
    actor = MeteredLLM(CachedLLM(counting, store, "off"), context)
    reflector_backend = create_backend(config)
    reflector = MeteredLLM(CachedLLM(reflector_backend, store, "off"), context.model_copy(update={"role": "reflector"}))
    memory: list[str] = []
    for _ in range(2):
        with AlfworldEpisode(game, max_episode_steps=None) as env:
            episode = play_episode(env, game.prompt_type, memory, actor, steps, seed=0)
        if not memory:
            trial = ReflectionInput(
                task_id=game.game_id,
                task_text=episode.task_text,
                scenario=episode.scenario(),
                trajectory=episode.steps,
                end_reason=episode.end_reason,
                max_steps=steps,
                memory=[],
                seed=0,
            )
            memory = [SelfDiagnosis(memory_window=3).reflect(trial, AlfworldReflection(), reflector).text or ""]


def reuse_figures(calls: list[CallFigures]) -> dict[str, Any]:
    """Prompt tokens served from the KV cache over the episode, and over its calls after the first."""

    def share(part: list[CallFigures]) -> float:
        total = sum(c.prompt_tokens for c in part)
        return round(1 - sum(c.evaluated_tokens for c in part) / total, 4) if total else 0.0

    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "evaluated_tokens": sum(c.evaluated_tokens for c in calls),
        "reused_share": share(calls),
        "reused_share_after_first_call": share(calls[1:]),
        "per_call": [asdict(c) for c in calls],
    }


def through_backend(backend: LlamaCppBackend, prompt: str, repeats: int, gen_tokens: int) -> dict[str, float]:
    """Median tokens per second of whole backend calls, and of llama.cpp's timers for the same calls."""
    prompt_rates, prompt_inside, gen_rates, gen_inside = [], [], [], []
    for repeat in range(repeats):
        marked = f"[benchmark pass {repeat} {time.time_ns()}]\n{prompt}"  # nothing of it is in the KV cache
        for max_tokens in (1, gen_tokens):
            request = LLMRequest(kind="completion", prompt=marked, max_tokens=max_tokens, temperature=0.0, stop=[])
            started = time.perf_counter()
            response = backend.generate(request)
            wall = time.perf_counter() - started
            timings = backend.timings()
            if max_tokens == 1:
                prompt_rates.append(response.usage.prompt_tokens / wall)
                prompt_inside.append(timings.prompt_tokens_per_s)
            else:
                gen_rates.append(response.usage.completion_tokens / wall)
                gen_inside.append(timings.generated_tokens_per_s)
    return {
        "prompt_tokens": response.usage.prompt_tokens,
        "prompt_tok_s": statistics.median(prompt_rates),
        "prompt_tok_s_llama_timers": statistics.median(prompt_inside),
        "generated_tokens": response.usage.completion_tokens,
        "gen_tok_s": statistics.median(gen_rates),
        "gen_tok_s_llama_timers": statistics.median(gen_inside),
    }


def llama_alone(config: ModelConfig, prompt: str, repeats: int, gen_tokens: int) -> dict[str, float]:
    """llama-bench's method on a fresh Llama with the backend's settings: one prompt eval, then single tokens."""
    llama = Llama(
        model_path=str(resolve_model_path(config.model)),
        n_ctx=config.n_ctx,
        n_threads=config.threads(),
        n_threads_batch=config.threads(),
        n_batch=config.n_batch,
        verbose=False,
    )
    tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
    prompt_rates, gen_rates = [], []
    for _ in range(repeats):
        llama.reset()
        started = time.perf_counter()
        llama.eval(tokens)
        prompt_rates.append(len(tokens) / (time.perf_counter() - started))
        started = time.perf_counter()
        for _ in range(gen_tokens):
            llama.eval([tokens[-1]])  # which token does not matter for speed; no sampling, as in llama-bench
        gen_rates.append(gen_tokens / (time.perf_counter() - started))
    llama.close()
    return {"prompt_tok_s": statistics.median(prompt_rates), "gen_tok_s": statistics.median(gen_rates)}


@dataclass(frozen=True)
class Measured:
    """Everything the three parts measured."""

    game_id: str
    through_backend: dict[str, float]
    alone: dict[str, float]
    reuse: dict[str, Any]


def measure(config: ModelConfig, args: argparse.Namespace) -> Measured:
    """The episode, then the backend's speed, then llama.cpp alone: one model in memory at a time."""
    game = demo_game()
    backend = create_backend(config)
    assert isinstance(backend, LlamaCppBackend)
    counting = CountingBackend(backend)
    with tempfile.TemporaryDirectory(prefix="llama-speed-") as scratch:
        play_two_trials(counting, config, game, args.episode_steps, Path(scratch))
    calls, prompt = counting.calls, counting.first_prompt
    assert prompt is not None
    harness = through_backend(backend, prompt, args.repeats, args.gen_tokens)
    del backend, counting
    gc.collect()
    alone = llama_alone(config, prompt, args.repeats, args.gen_tokens)
    return Measured(game.game_id, harness, alone, reuse_figures(calls))


def report(config: ModelConfig, args: argparse.Namespace, measured: Measured) -> dict[str, Any]:
    harness, alone, reuse = measured.through_backend, measured.alone, measured.reuse

    def row(what: str, key: str) -> tuple[Any, ...]:
        timers, whole = harness[f"{key}_llama_timers"], harness[key]
        return (what, round(whole, 1), round(timers, 1), round(alone[key], 1), f"{whole / timers:.2f}x")

    checks: list[Check] = [
        at_least(
            "prompt speed, backend / llama.cpp timers",
            harness["prompt_tok_s"] / harness["prompt_tok_s_llama_timers"],
            TARGET_RATIO,
        ),
        at_least(
            "generation speed, backend / llama.cpp timers",
            harness["gen_tok_s"] / harness["gen_tok_s_llama_timers"],
            TARGET_RATIO,
        ),
    ]
    settings = {
        "model": config.model,
        "threads": config.threads(),
        "repeats": args.repeats,
        "gen_tokens": args.gen_tokens,
        "episode_steps": args.episode_steps,
        "game": measured.game_id,
    }
    figures = {
        "through_backend": harness,
        "llama_alone": alone,
        "prefix_reuse": reuse,
        "model_bytes": embedded_model(config.model).size,
    }
    note = (
        f"prefix reuse over two trials ({reuse['calls']} actor calls, a reflection between them): "
        f"{reuse['reused_share']:.1%} of "
        f"{reuse['prompt_tokens']} prompt tokens came from the KV cache "
        f"({reuse['reused_share_after_first_call']:.1%} after the first call)"
    )
    header = ("measure", "backend call", "llama.cpp timers", "llama.cpp alone", "backend / timers")
    rows = [row("prompt tok/s", "prompt_tok_s"), row("generation tok/s", "gen_tok_s")]
    return finish(NAME, args, settings, (header, rows), figures, checks, (note,))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.llama_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="an embedded model option (configs/model/)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="speed measurements; the median is reported")
    parser.add_argument("--gen-tokens", type=int, default=128)
    parser.add_argument("--episode-steps", type=int, default=10, help="actions of the prefix-reuse episode")
    add_output_arguments(parser, NAME)
    args = parser.parse_args(argv)
    if args.smoke:
        vars(args).update(SMOKE)
    config = model_config(args.model, args.threads)
    if config.backend != "llamacpp":
        parser.error(f"--model {args.model} is not an embedded model (backend {config.backend})")
    return report(config, args, measure(config, args))


if __name__ == "__main__":
    main()
