"""The only road to a model: a Backend (openai SDK or embedded llama.cpp), optionally rate-limited, wrapped by the
response cache."""

from harness.llm._backend import Backend, create_backend
from harness.llm._cache import CachedLLM, CacheStore, cache_key
from harness.llm._config import CacheConfig, CacheMode, ModelConfig, Price
from harness.llm._in_flight import linked_lock, lock_path
from harness.llm._probe import api_key, base_url, check_reachable
from harness.llm._rate_limit import RateLimitedBackend, RateLimiter, estimate_tokens, limit_key, shared_limiters
from harness.llm._types import CallContext, ChatMessage, LLMRequest, LLMResponse, Usage, chat_request

__all__ = [
    "Backend",
    "CacheConfig",
    "CacheMode",
    "CacheStore",
    "CachedLLM",
    "CallContext",
    "ChatMessage",
    "LLMRequest",
    "LLMResponse",
    "ModelConfig",
    "Price",
    "RateLimitedBackend",
    "RateLimiter",
    "Usage",
    "api_key",
    "base_url",
    "check_reachable",
    "chat_request",
    "cache_key",
    "create_backend",
    "estimate_tokens",
    "limit_key",
    "linked_lock",
    "lock_path",
    "shared_limiters",
]
