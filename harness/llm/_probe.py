"""A cheap look at an API-backed model before a run writes anything: is its key set, does its server answer?"""

from __future__ import annotations

import os
import urllib.error
import urllib.request

from harness.errors import ConfigError, LLMRequestError, MissingAPIKeyError, ModelUnreachableError
from harness.llm._config import ModelConfig
from harness.llm._url import secret_parts, secret_reason, shown_url

OPENAI_URL = "https://api.openai.com/v1"
# Long enough for a busy server, short enough that a wrong port costs seconds, not a whole request timeout.
PROBE_TIMEOUT_S = 10.0


def api_key(model: ModelConfig) -> str:
    """The key in `model.api_key_env`, or MissingAPIKeyError, as the openai backend itself would raise."""
    key = os.environ.get(model.api_key_env)
    if not key:
        raise MissingAPIKeyError(env_var=model.api_key_env, model=model.model, base_url=model.base_url)
    return key


def base_url(model: ModelConfig) -> str:
    """Where the openai SDK sends this model's requests (it also falls back to $OPENAI_BASE_URL).

    ConfigError for an $OPENAI_BASE_URL that carries a key, which the config refuses in model.base_url.
    """
    url = (model.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
    if secret_parts(url):
        raise ConfigError(f"OPENAI_BASE_URL = '{shown_url(url)}' is refused: {secret_reason(url)}.")
    return url


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not followed: urllib would copy the Authorization header to whatever host and
    scheme it names (the SDK's own requests drop it on the way elsewhere)."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def check_reachable(model: ModelConfig, key: str) -> None:
    """GET {base_url}/models: any answer but 401 means the server is there and takes the key; a redirect too,
    which is never followed, so the key goes to no other server."""
    url = f"{base_url(model)}/models"
    try:
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
        with _OPENER.open(request, timeout=min(model.timeout_s, PROBE_TIMEOUT_S)):
            return
    except urllib.error.HTTPError as error:
        status = error.code
    except (urllib.error.URLError, OSError, ValueError) as error:  # refused, unresolvable, timed out, no scheme
        reason = getattr(error, "reason", None) or error
        raise ModelUnreachableError(model=model.model, url=url, reason=str(reason)) from None
    # Only 401 settles anything: servers without /models answer 404, and a restricted key may get 403 there alone.
    if status == 401:
        raise LLMRequestError(
            status=401,
            model=model.model,
            base_url=base_url(model),
            detail="the server refused the key when asked for its models",
            check=f"the API key in the environment variable {model.api_key_env}",
        )
