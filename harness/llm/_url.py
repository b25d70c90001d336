"""The parts of a server URL that carry secrets, and the URL as it may be shown without them.

A key written into `model.base_url` (`http://user:key@host/v1`, `...?api_key=...`) would be copied into every output
that names the setting: manifest.json, run.log, MLflow's params, an error sentence. The harness takes a server's key
from the environment variable `model.api_key_env` names, and refuses a URL that carries one.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"


def secret_parts(url: str) -> list[str]:
    """What in `url` could carry a secret: its user:password@, its query string, its fragment (none: [])."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a broken IPv6 literal: read no further into it
        return ["an unreadable host"]
    found = []
    if "@" in parts.netloc:
        found.append("a user:password@")
    if ";" in parts.path:
        found.append("a ;parameter")
    if parts.query:
        found.append("a query string")
    if parts.fragment:
        found.append("a fragment")
    return found


def shown_url(url: str) -> str:
    """`url` with every part that could carry a secret replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return f"{url.partition('://')[0]}://{HIDDEN}"
    user, at, host = parts.netloc.rpartition("@")
    netloc = f"{HIDDEN}@{host}" if at else host
    path, semicolon, _ = parts.path.partition(";")
    query, fragment = (HIDDEN if part else "" for part in (parts.query, parts.fragment))
    return urlunsplit((parts.scheme, netloc, path + (f";{HIDDEN}" if semicolon else ""), query, fragment))


def shape_problem(url: str) -> str | None:
    """Why `url`, free of secrets, is still no server URL ending in /v1, in words that quote none of it; or None.

    A backslash, a space or a control character is read differently by different URL parsers (`/v1\\@evil/` is a
    path to one and a host to another)."""
    if any(char == "\\" or char.isspace() or unicodedata.category(char) in ("Cc", "Cf") for char in url):
        return "holds a backslash, a space or a control character"
    if not urlsplit(url).path.rstrip("/").endswith("/v1"):
        return "does not end in /v1"
    return None


def secret_reason(url: str) -> str:
    """Why `url` is refused, in words that never repeat what it hides."""
    return (
        f"it carries {' and '.join(secret_parts(url))}, which would be written into manifest.json, run.log and the "
        "tracking params; write the URL without it (http://host:port/v1), and give the server's key in the "
        "environment variable model.api_key_env names (OPENAI_API_KEY by default)"
    )
