"""The embedded llama.cpp backend on the real SmolLM2 (and, once, the real Qwen) weights."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.errors import ContextOverflowError
from harness.llm import ChatMessage, LLMRequest, ModelConfig, create_backend
from harness.llm._llamacpp import LlamaCppBackend

pytestmark = pytest.mark.slow

# One thread: OpenMP threads that spin on a shared 2-core machine slow down many-fold when anything else runs.
SMOLLM2 = ModelConfig(name="smollm2-135m", backend="llamacpp", model="smollm2-135m", n_ctx=512, n_threads=1)
COMPLETION = LLMRequest(
    kind="completion", prompt="Here is a list of fruits: apple, banana,", max_tokens=12, stop=["\n"]
)
CHAT = LLMRequest(kind="chat", messages=[ChatMessage(role="user", content="Name a colour.")], max_tokens=12)

# Runs in a fresh interpreter: same config, same requests, printed as JSON for comparison.
GENERATE_IN_A_NEW_PROCESS = """
import json, sys
from harness.llm import LLMRequest, ModelConfig, create_backend
config = ModelConfig.model_validate_json(sys.argv[1])
backend = create_backend(config)
requests = [LLMRequest.model_validate_json(raw) for raw in sys.argv[2:]]
print(json.dumps([backend.generate(request).text for request in requests]))
"""


@pytest.fixture(scope="module")
def smollm2() -> Iterator[LlamaCppBackend]:
    backend = create_backend(SMOLLM2)
    assert isinstance(backend, LlamaCppBackend)
    yield backend


def test_identity_names_the_weights(smollm2: LlamaCppBackend) -> None:
    assert smollm2.identity.startswith("llamacpp:smollm2-135m:sha256=") and len(smollm2.identity.split("=")[1]) == 64


def test_completion_and_chat(smollm2: LlamaCppBackend) -> None:
    completion = smollm2.generate(COMPLETION)
    assert completion.text.strip() and "\n" not in completion.text
    assert completion.usage.prompt_tokens > 5 and 0 < completion.usage.completion_tokens <= 12
    chat = smollm2.generate(CHAT)
    assert chat.text.strip() and chat.latency_s > 0
    assert smollm2.timings().generated_tokens_per_s > 0


def test_an_answer_names_the_embedded_model_and_why_it_ended(smollm2: LlamaCppBackend) -> None:
    cut = smollm2.generate(LLMRequest(kind="completion", prompt="Count: one, two, three,", max_tokens=3))
    assert (cut.served_model, cut.system_fingerprint, cut.finish_reason) == ("smollm2-135m", None, "length")
    stopped = smollm2.generate(COMPLETION.model_copy(update={"max_tokens": 64}))
    assert stopped.finish_reason == "stop" and "\n" not in stopped.text


def test_temperature_zero_is_identical_across_processes() -> None:
    command = [sys.executable, "-c", GENERATE_IN_A_NEW_PROCESS, SMOLLM2.model_dump_json()]
    command += [COMPLETION.model_dump_json(), CHAT.model_dump_json()]
    repo = Path(__file__).resolve().parents[3]
    runs = [subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=repo) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    first, second = (json.loads(run.stdout.strip().splitlines()[-1]) for run in runs)
    assert first == second and all(text.strip() for text in first)


# A trial left on a daemon thread inside llama.cpp while the process exits, as a run stopped at once leaves it. The
# first exit hook registered runs last, after the harness's: it says whether the call had left llama.cpp by then.
EXIT_MID_CALL = """
import atexit, sys, threading, time
left = threading.Event()
atexit.register(lambda: print(f"left llama.cpp before the exit: {left.wait(1.0)}", flush=True))
from harness.llm import LLMRequest, ModelConfig, create_backend
backend = create_backend(ModelConfig.model_validate_json(sys.argv[1]))
backend.generate(LLMRequest(kind="completion", prompt="warm", max_tokens=1))
long = LLMRequest(kind="completion", prompt="and then the water rose again, " * 60, max_tokens=1200)

def generate():
    try:
        backend.generate(long)
    except BaseException:
        pass
    left.set()

threading.Thread(target=generate, daemon=True).start()
time.sleep(0.3)
sys.exit(143)
"""


def test_a_process_exiting_while_the_model_computes_stops_it_first_and_exits_with_its_code() -> None:
    """'A second stop signal while the embedded model computes printed "interrupted: stopped at once" and then ended
    in "Segmentation fault"': C's exit handlers freed llama.cpp's CPU backend under the trial thread still computing
    (gdb: SIGSEGV in ggml_cpu_extra_compute_forward while the main thread ran _dl_fini). The model is now stopped
    first: its call aborted, the model freed by the main thread, before the interpreter's exit goes on. Checked by
    the order, which is certain (a call still running after 1 s), not by the crash, which came in about half the
    tries of this process."""
    config = SMOLLM2.model_copy(update={"n_ctx": 2048, "n_threads": 2})  # llama.cpp's own threads too
    repo = Path(__file__).resolve().parents[3]
    run = subprocess.run(
        [sys.executable, "-c", EXIT_MID_CALL, config.model_dump_json()], capture_output=True, text=True, timeout=120,
        cwd=repo,
    )  # fmt: skip
    assert run.stdout.strip().splitlines()[-1] == "left llama.cpp before the exit: True", run.stdout + run.stderr
    assert run.returncode == 143, run.stderr[-2000:]


def test_calls_from_threads_are_serialised(smollm2: LlamaCppBackend) -> None:
    expected = smollm2.generate(COMPLETION).text
    results: list[str] = []

    def call() -> None:
        results.append(smollm2.generate(COMPLETION).text)

    threads = [threading.Thread(target=call) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 3


@pytest.mark.parametrize(
    ("request_", "prompt_at_least"),
    [
        (LLMRequest(kind="completion", prompt="apple " * 600, max_tokens=8), 512),  # longer than the window
        (LLMRequest(kind="completion", prompt="apple " * 300, max_tokens=256), 256),  # fits, but not with the answer
        (LLMRequest(kind="chat", messages=[ChatMessage(role="user", content="pear " * 600)], max_tokens=8), 512),
    ],
)
def test_context_overflow_is_a_typed_error(
    smollm2: LlamaCppBackend, request_: LLMRequest, prompt_at_least: int
) -> None:
    with pytest.raises(ContextOverflowError) as caught:
        smollm2.generate(request_)
    error = caught.value
    assert error.n_ctx == 512 and error.max_tokens == request_.max_tokens
    assert error.prompt_tokens >= prompt_at_least and error.prompt_tokens + error.max_tokens > 512
    assert str(error.prompt_tokens) in str(error) and "n_ctx=512" in str(error)
    assert smollm2.generate(COMPLETION).text.strip()  # the instance still works afterwards


def test_qwen_generates() -> None:
    config = ModelConfig(name="qwen", backend="llamacpp", model="qwen2.5-coder-1.5b", n_ctx=1024, n_threads=1)
    qwen = create_backend(config)
    assert isinstance(qwen, LlamaCppBackend)
    hello = ChatMessage(role="user", content="Write a Python hello world.")
    response = qwen.generate(LLMRequest(kind="chat", messages=[hello], max_tokens=8))
    assert response.text.strip() and response.usage.completion_tokens > 0
    assert qwen.identity.startswith("llamacpp:qwen2.5-coder-1.5b:sha256=")


LONG_PROMPT = "A list of fruits and their colours: " + ", ".join(f"fruit {n} is red" for n in range(40))


def test_two_roles_share_one_model_and_keep_their_own_prefix() -> None:
    actor, reflector = create_backend(SMOLLM2), create_backend(SMOLLM2)
    assert isinstance(actor, LlamaCppBackend) and isinstance(reflector, LlamaCppBackend)
    assert actor._model is reflector._model, "the same weights and settings are loaded once"
    first = LLMRequest(kind="completion", prompt=LONG_PROMPT, max_tokens=4, stop=["\n"])
    longer = first.model_copy(update={"prompt": LONG_PROMPT + ", fruit 40 is"})
    alone = create_backend(SMOLLM2.model_copy(update={"n_batch": 256}))  # other settings: a model of its own
    assert isinstance(alone, LlamaCppBackend) and alone._model is not actor._model
    expected = [alone.generate(first).text, alone.generate(COMPLETION).text, alone.generate(longer).text]

    answers = [actor.generate(first).text, reflector.generate(COMPLETION).text]
    after_reflection = actor.generate(longer)
    evaluated = actor.timings().prompt_tokens
    prompt_tokens = after_reflection.usage.prompt_tokens
    answers.append(after_reflection.text)
    assert answers == expected
    # The reflector's call in between did not cost the actor its prefix: only the new tail (and the one token
    # llama.cpp replays to refresh the logits) is evaluated, not the whole prompt.
    assert prompt_tokens > 150 and evaluated <= 8, (prompt_tokens, evaluated)


def test_a_prompt_starting_as_an_earlier_one_evaluates_only_the_rest_with_the_prefix_store() -> None:
    stored = create_backend(SMOLLM2.model_copy(update={"prefix_store_mb": 64}))
    plain = create_backend(SMOLLM2)
    assert isinstance(stored, LlamaCppBackend) and isinstance(plain, LlamaCppBackend)
    first = LLMRequest(kind="completion", prompt=LONG_PROMPT, max_tokens=4, stop=["\n"])
    later = first.model_copy(update={"prompt": LONG_PROMPT + ", fruit 40 is"})
    evaluated = {}
    answers = {}
    for name, backend in (("stored", stored), ("plain", plain)):
        # Another prompt in between: the context no longer holds the long one's prefix.
        answers[name] = [backend.generate(first).text, backend.generate(COMPLETION).text]
        answers[name].append(backend.generate(later).text)
        evaluated[name] = backend.timings().prompt_tokens
    assert answers["stored"] == answers["plain"]
    assert evaluated["stored"] <= 8 < 150 < evaluated["plain"], evaluated
    assert stored._model.prefixes is not None and stored._model.prefixes.restored == 1


def test_the_prefix_store_keeps_within_its_size() -> None:
    backend = create_backend(SMOLLM2.model_copy(update={"prefix_store_mb": 64}))
    assert isinstance(backend, LlamaCppBackend)
    store = backend._model.prefixes
    assert store is not None
    prompts = [f"{n} " + LONG_PROMPT for n in range(3)]
    for prompt in prompts:
        backend.generate(LLMRequest(kind="completion", prompt=prompt, max_tokens=2))
    assert len(store._kept) == 3 and sum(len(p.cells) for p in store._kept) <= store.capacity_bytes
    store.capacity_bytes = len(store._kept[-1].cells) * 3 // 2  # room for one prefix of about this length
    backend.generate(LLMRequest(kind="completion", prompt=prompts[0] + ", fruit 40 is", max_tokens=2))
    assert len(store._kept) == 1, "the least recently used were not dropped"
