"""An embedded GGUF model run in-process by llama.cpp (llama-cpp-python).

A model is stopped before the interpreter exits (an atexit hook, `stop_embedded_models`): a trial left running on a
daemon thread (a run stopped at once by a second signal, or after its grace) would otherwise still be inside
llama.cpp while the process tears down the library under it, and the run ended in "Segmentation fault" instead of
its exit code. Its computation is aborted (llama.cpp's abort callback), the model's lock taken once the call has
left, and the model freed by the main thread; no call starts after.
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import logging
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

import llama_cpp
from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter
from pydantic import BaseModel

from harness.errors import ContextOverflowError, LLMError
from harness.llm._config import ModelConfig
from harness.llm._embedded_models import embedded_model, resolve_model_path
from harness.llm._types import LLMRequest, LLMResponse, Usage

log = logging.getLogger(__name__)

STOP_WAIT_S = 5.0
"""How long the exit waits for a call that was told to abort to leave llama.cpp."""

# llama.cpp calls its abort callback between the graph's nodes on every compute thread: a Python callback would
# take the GIL there thousands of times a token. libc's strlen is the callback instead, on a one-byte buffer that is
# empty until the stop (length 0: go on) and then holds one character (length 1, a true bool in the return register).


def _strlen_address() -> int:
    address = ctypes.cast(ctypes.CDLL(None).strlen, ctypes.c_void_p).value
    assert address is not None  # libc is loaded in every CPython process
    return address


_ABORT_WHEN_MARKED = llama_cpp.ggml_abort_callback(_strlen_address())

class LlamaTimings(BaseModel):
    """Throughput of the last call, from llama.cpp's own counters."""

    prompt_tokens: int
    prompt_tokens_per_s: float
    generated_tokens: int
    generated_tokens_per_s: float


@dataclass(frozen=True)
class _Parked:
    """A backend's KV prefix while another backend uses the model: its tokens and their cache cells."""

    tokens: list[int]
    cells: bytes


class PrefixStore:
    """Earlier prompts' KV prefixes, the least recently used dropped beyond `capacity_bytes`.

    llama-cpp-python reuses only the prefix its context holds, the last prompt's. A study that asks several prompts
    sharing a long start (the same task and trajectories, then different rules) in between others evaluates that
    start each time; with the store, only what follows it. What is evaluated changes, not what is asked.
    """

    MIN_GAIN = 32
    """Fewer shared tokens than the context already holds plus this are not worth copying a prefix back."""

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
        self._kept: list[_Parked] = []
        self.restored = 0

    def restore_best(self, llama: Llama, tokens: list[int]) -> None:
        """Put the kept prefix sharing the most of `tokens` in the context, when it shares MIN_GAIN more than the
        context's own."""
        held = Llama.longest_token_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)
        shared, best = max(((Llama.longest_token_prefix(p.tokens, tokens), p) for p in self._kept),
                           key=lambda scored: scored[0], default=(0, None))
        if best is not None and shared >= held + self.MIN_GAIN:
            self._kept.remove(best)
            self._kept.append(best)
            _restore(llama, best)
            self.restored += 1

    def keep(self, llama: Llama) -> None:
        """Keep the context's prefix (the prompt just answered, with its answer)."""
        parked = _park(llama)
        self._kept = [p for p in self._kept if p.tokens != parked.tokens] + [parked]
        while sum(len(p.cells) for p in self._kept) > self.capacity_bytes and self._kept:
            self._kept.pop(0)


class SharedLlama:
    """One loaded model for every backend of the same weights and settings in this process.

    Actor and reflector of one embedded model used to hold a copy each. Now each backend keeps its KV prefix
    across the others' calls: when the model changes hands, the leaving backend's tokens and cache cells are
    copied out (llama.cpp's per-sequence state, tens of MB) and the arriving one's copied back, so an
    episode's next prompt still reuses its prefix after a reflection.
    """

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.lock = threading.Lock()
        """A llama.cpp context serves one call at a time; hold it across switch_to and the call."""
        self._instance: Llama | None = None
        self.chat_formatter: Jinja2ChatFormatter | None = None
        self._holder: int | None = None
        self._parked: dict[int, _Parked] = {}
        self.prefixes = PrefixStore(config.prefix_store_mb * 1024 * 1024) if config.prefix_store_mb else None
        self._abort = ctypes.create_string_buffer(1)  # empty: compute; one character: abort (_ABORT_WHEN_MARKED)
        self.stopped = False
        self._closed = False

    @property
    def llama(self) -> Llama:
        """The model, assembled, verified and loaded on first use, so a pure cache replay never loads it."""
        if self.stopped:
            raise LLMError(f"the embedded model {self.config.model!r} was stopped: the process is exiting")
        if self._instance is None:
            _stop_at_exit()
            self._instance = Llama(
                model_path=str(resolve_model_path(self.config.model)),
                n_ctx=self.config.n_ctx,
                n_threads=self.config.threads(),
                n_threads_batch=self.config.threads(),
                n_batch=self.config.n_batch,
                verbose=False,
            )
            llama_cpp.llama_set_abort_callback(
                self._instance.ctx, _ABORT_WHEN_MARKED, ctypes.cast(self._abort, ctypes.c_void_p)
            )
            self.chat_formatter = _gguf_chat_formatter(self._instance)
            if self.chat_formatter is not None:
                # Pin the GGUF's own template; otherwise llama-cpp-python may substitute a built-in look-alike.
                self._instance.chat_handler = self.chat_formatter.to_chat_handler()
        return self._instance

    def stop(self, wait_s: float) -> bool:
        """Abort the call under way, wait up to `wait_s` for it to leave llama.cpp, then free the model and keep its
        lock, so no call starts again; whether it was stopped in time (if not, it is left as it is)."""
        if self._closed:
            return True
        self.stopped = True
        self._abort.value = b"x"
        if not self.lock.acquire(timeout=wait_s):
            return False
        self._closed = True
        if self._instance is not None:
            self._instance.close()
            self._instance = None
        return True

    def switch_to(self, holder: int) -> Llama:
        """The model with `holder`'s KV prefix in place (call under `lock`)."""
        llama = self.llama
        if self._holder == holder:
            return llama
        if self._holder is not None:
            self._parked[self._holder] = _park(llama)
        _restore(llama, self._parked.pop(holder, None))
        self._holder = holder
        return llama


def _park(llama: Llama) -> _Parked:
    size = llama_cpp.llama_state_seq_get_size(llama.ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(llama.ctx, buffer, size, 0)
    return _Parked(tokens=llama.input_ids[: llama.n_tokens].tolist(), cells=bytes(buffer)[:written])


def _restore(llama: Llama, parked: _Parked | None) -> None:
    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(llama.ctx), True)
    llama.n_tokens = 0
    if parked is not None and parked.cells:
        buffer = (ctypes.c_uint8 * len(parked.cells)).from_buffer_copy(parked.cells)
        if llama_cpp.llama_state_seq_set_data(llama.ctx, buffer, len(parked.cells), 0) == len(parked.cells):
            llama.input_ids[: len(parked.tokens)] = parked.tokens
            llama.n_tokens = len(parked.tokens)
    # The logits in the context are the last holder's: the next call must decode before it samples
    # (llama-cpp-python 0.3.36 reads this flag; an exact prompt hit would otherwise sample from them).
    llama._requires_eval = True


_shared: weakref.WeakValueDictionary[tuple[Any, ...], SharedLlama] = weakref.WeakValueDictionary()
_shared_lock = threading.Lock()


_registered: list[bool] = []


def _stop_at_exit() -> None:
    """stop_embedded_models as an atexit hook, registered once (atexit runs each registration)."""
    with _shared_lock:
        if not _registered:
            atexit.register(stop_embedded_models)
            _registered.append(True)


def stop_embedded_models() -> None:
    """Stop every embedded model of the process (at its exit): see the module's docstring."""
    with _shared_lock:
        models = list(_shared.values())
    # llama.cpp reports the aborted decode as an error ("decode: removing memory module entries ..."): expected
    # here, and no line for the terminal after the run's last one.
    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)
    for model in models:
        if not model.stop(STOP_WAIT_S):
            log.warning(
                "the embedded model %s was still computing %.0f s after it was told to stop", model.config.model,
                STOP_WAIT_S,
            )


def shared_llama(config: ModelConfig) -> SharedLlama:
    """The process's SharedLlama for this model and its load settings, made on first use."""
    key = (config.model, config.n_ctx, config.threads(), config.n_batch, config.prefix_store_mb)
    with _shared_lock:
        model = _shared.get(key)
        if model is None:
            model = SharedLlama(config)
            _shared[key] = model
        return model


class LlamaCppBackend:
    """An embedded model as seen by one role: backends of the same model share one SharedLlama, each with its
    own KV prefix."""

    _holders = itertools.count()

    def __init__(self, config: ModelConfig) -> None:
        model = embedded_model(config.model)
        self.config = config
        # The weights' hash names the model: a re-quantised file must never reuse cached answers.
        self.identity = f"llamacpp:{model.key}:sha256={model.sha256}"
        self._served_model = model.key  # llama.cpp's own `model` is the GGUF's path on this machine
        self._model = shared_llama(config)
        self._holder = next(self._holders)

    @property
    def _llama(self) -> Llama:
        return self._model.switch_to(self._holder)

    def generate(self, request: LLMRequest) -> LLMResponse:
        """Run `request`; raises ContextOverflowError instead of letting llama.cpp shorten the answer."""
        with self._model.lock:
            tokens = self._prompt_tokens(request)
            prompt_tokens = len(tokens)
            n_ctx = self._llama.n_ctx()
            if prompt_tokens + request.max_tokens > n_ctx:
                raise ContextOverflowError(
                    model=self.config.model, prompt_tokens=prompt_tokens, max_tokens=request.max_tokens, n_ctx=n_ctx
                )
            options: dict[str, Any] = {
                "max_tokens": request.max_tokens,
                "temperature": request.temperature,
                "stop": request.stop,
                "seed": request.seed,
            }
            if request.top_p is not None:  # unset, llama.cpp samples with its own default (0.95)
                options["top_p"] = request.top_p
            store = self._model.prefixes
            if store is not None:
                store.restore_best(self._llama, tokens)
            llama_cpp.llama_perf_context_reset(self._llama.ctx)
            started = time.perf_counter()
            try:
                if request.kind == "completion":
                    result: Any = self._llama.create_completion(prompt=request.prompt or "", **options)
                    text = result["choices"][0]["text"]
                else:
                    messages = [message.model_dump() for message in request.messages or []]
                    result = self._llama.create_chat_completion(messages=messages, **options)
                    text = result["choices"][0]["message"]["content"] or ""
            except RuntimeError as error:
                if self._model.stopped:  # llama_decode aborted: the process is exiting
                    raise LLMError(f"the embedded model {self.config.model!r} was stopped mid-call") from error
                raise
            latency = time.perf_counter() - started
            if store is not None:
                store.keep(self._llama)
        usage = result["usage"]
        return LLMResponse(
            text=text,
            usage=Usage(prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"]),
            latency_s=latency,
            served_model=self._served_model,
            finish_reason=result["choices"][0].get("finish_reason"),
        )

    def timings(self) -> LlamaTimings:
        """Prompt and generation speed of the last call (prompt tokens reused from the KV cache are not counted)."""
        with self._model.lock:
            perf = llama_cpp.llama_perf_context(self._model.llama.ctx)
        return LlamaTimings(
            prompt_tokens=perf.n_p_eval,
            prompt_tokens_per_s=perf.n_p_eval / perf.t_p_eval_ms * 1000 if perf.t_p_eval_ms else 0.0,
            generated_tokens=perf.n_eval,
            generated_tokens_per_s=perf.n_eval / perf.t_eval_ms * 1000 if perf.t_eval_ms else 0.0,
        )

    def _prompt_tokens(self, request: LLMRequest) -> list[int]:
        # Tokenised as llama-cpp-python will tokenise it, so the bound we check is the one it enforces and the
        # prefix store compares what the context will hold.
        llama = self._llama  # loads the model, and with it the chat formatter
        if request.kind == "completion":
            return llama.tokenize((request.prompt or "").encode("utf-8"), add_bos=True, special=True)
        formatter = self._model.chat_formatter
        if formatter is None:
            raise LLMError(f"model {self.config.model!r} has no chat template in its GGUF; send completion requests")
        rendered = formatter(messages=[message.model_dump() for message in request.messages or []])
        return llama.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True)


def _gguf_chat_formatter(llama: Llama) -> Jinja2ChatFormatter | None:
    template = llama.metadata.get("tokenizer.chat_template")
    if template is None:
        return None
    eos, bos = llama.token_eos(), llama.token_bos()
    return Jinja2ChatFormatter(
        template=template,
        eos_token=_token_text(llama, eos),
        bos_token=_token_text(llama, bos),
        stop_token_ids=[eos],
    )


def _token_text(llama: Llama, token: int) -> str:
    if token == -1:
        return ""
    return llama.detokenize([token], special=True).decode("utf-8", errors="replace")
