"""Discovery of the published Reflexion runs: every run folder or file under data/reflexion-logs/.

A source is named by its path relative to the root (`alfworld_runs/root/reflexion_run_logs`,
`programming_runs/root/reflexion_mbpp_rs/mbpp-rs._reflexion_5_gpt-4_pass_at_k_1_rs.jsonl`), so the
name can be passed on a command line. Sources that no importer can read as reflections (agent-object
pickles, console transcripts, paper excerpts, summaries) are listed too, with the reason, so an
audit can report them instead of failing on them.

Each format's importer is an entry of `LOADERS`; an installed package adds one through a
`reflexion_harness.audit_loaders` entry point named after a format discovery recognises but no shipped importer reads
(`programming_console_log`, `hotpotqa_results_json`), and the sources of that format are then listed as readable.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.env_results import load_env_results_run
from harness.audit.hotpotqa import DOMAIN as HOTPOTQA
from harness.audit.hotpotqa import dicts_skip_reason, load_hotpotqa_dicts, load_hotpotqa_log, text_log_skip_reason
from harness.audit.programming import load_programming_run, path_domain, run_domain
from harness.audit.published import PublishedTask
from harness.audit.safe_pickle import UnreadablePickleError, UnsafePickleError, load_restricted_pickle
from harness.errors import HarnessError
from harness.records.registry import Registry

DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "data" / "reflexion-logs"

# The root's own bookkeeping, not runs: the file list with its provenance, and a mapping derived here.
_NOT_RUNS = frozenset({"MANIFEST.tsv", "alfworld_env_to_game.json"})
_ENV_RESULTS_RE = re.compile(r"env_results_trial_\d+\.json")
# Reflexion's `save_agents` writes one pickled agent per question as `<index>.joblib`.
_PER_AGENT_PICKLE_RE = re.compile(r"\d+\.joblib")
_PICKLE_MAGIC = b"\x80"
_CONSOLE_LOG_START = "Starting run with the following parameters:"

SourceFormat = Literal[
    "env_results",
    "programming_jsonl",
    "programming_console_log",
    "hotpotqa_text",
    "hotpotqa_dicts",
    "hotpotqa_agent_pickles",
    "hotpotqa_results_json",
    "unknown",
]


class PublishedSource(BaseModel):
    """One published run (a folder or a file) and how to import it."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Path relative to the logs root, '/'-separated; what a user passes to pick it.")
    path: Path = Field(description="Absolute path of the folder or file.")
    domain: str = Field(description="alfworld | webshop | humaneval-py | mbpp-rs | leetcode-py | hotpotqa | ...")
    format: SourceFormat = Field(description="What the files are; selects the loader.")
    files: list[str] = Field(description="Every file the source covers, relative to the logs root.")
    skip_reason: str | None = Field(description="Why it cannot be imported as reflections; None when it can.")

    @property
    def loader(self) -> Loader | None:
        """The importer for this source, or None when it is skipped."""
        return None if self.skip_reason else LOADERS.get(self.format)


class SkippedSourceError(HarnessError):
    """A source that discovery listed as unreadable was asked to load."""

    def __init__(self, source: PublishedSource) -> None:
        self.source = source
        super().__init__(f"published source {source.name} cannot be imported: {source.skip_reason}.")


class UnknownSourceError(HarnessError):
    """A source name matches no discovered source."""


Loader = Callable[[PublishedSource], list[PublishedTask]]
"""A source -> its tasks."""

LOADERS: Registry[Loader] = Registry(
    "audit loader",
    group="reflexion_harness.audit_loaders",
    entries={
        "env_results": lambda s: load_env_results_run(s.path, s.domain, s.name),
        "programming_jsonl": lambda s: load_programming_run(s.path, s.name),
        "hotpotqa_text": lambda s: load_hotpotqa_log(s.path, s.name),
        "hotpotqa_dicts": lambda s: load_hotpotqa_dicts(s.path, s.name),
    },
    check=lambda name, loader: None if callable(loader) else "is not callable (a PublishedSource -> its tasks)",
)
# Formats discovery recognises but the harness cannot read, which an installed package's loader may take. Pickled
# agents are not among them (the restricted unpickler's refusal is a safety rule, not a missing importer), nor
# `unknown` (summaries, excerpts, the root's own files: no one format).
PLUGGABLE_FORMATS = ("programming_console_log", "hotpotqa_results_json")


def _family(relative: Path) -> str | None:
    """`alfworld`, `webshop`, `programming` or `hotpotqa`, from the `<family>_runs` folder above the file."""
    return next((part.removesuffix("_runs") for part in relative.parts if part.endswith("_runs")), None)


def _pickle_refusal(path: Path) -> str:
    try:
        load_restricted_pickle(path)
    except (UnsafePickleError, UnreadablePickleError) as error:
        return error.detail
    return "holds builtin data, not an agent"


def _programming_domain(path: Path) -> tuple[str, str | None]:
    """The run's domain, or a placeholder and the reason its rows cannot be read."""
    try:
        return run_domain(path), None
    except ValueError as error:
        return "programming", str(error)


def _text_log_reason(path: Path) -> str | None:
    try:
        return text_log_skip_reason(path)
    except ValueError as error:
        return str(error)


def _per_agent_pickles(root: Path, folder: Path, files: list[Path]) -> PublishedSource:
    problems = sorted({_pickle_refusal(path) for path in files})
    return PublishedSource(
        name=folder.relative_to(root).as_posix(),
        path=folder,
        domain=_family(folder.relative_to(root)) or "unknown",
        format="hotpotqa_agent_pickles",
        files=[path.relative_to(root).as_posix() for path in files],
        skip_reason=f"{len(files)} pickled agent object(s), one a question (Reflexion's save_agents): "
        + "; ".join(problems),
    )


def _file_source(root: Path, path: Path) -> PublishedSource:
    relative = path.relative_to(root)
    family = _family(relative)
    reason: str | None
    if family == "programming" and path.suffix == ".jsonl":
        (domain, reason), format_ = _programming_domain(path), "programming_jsonl"
    elif family == "programming" and path.read_text(errors="replace").lstrip().startswith(_CONSOLE_LOG_START):
        domain, format_ = path_domain(path) or "programming", "programming_console_log"
        reason = "console transcript of a run: code, tests and reflections are printed with no delimiter between them"
    elif family == HOTPOTQA and path.suffix == ".txt":
        domain, format_, reason = HOTPOTQA, "hotpotqa_text", _text_log_reason(path)
    elif family == HOTPOTQA and path.suffix == ".json":
        domain, format_ = HOTPOTQA, "hotpotqa_results_json"
        reason = "per-trial correct/incorrect counts only, no per-question record"
    elif family == HOTPOTQA and path.read_bytes()[:1] == _PICKLE_MAGIC:
        domain, format_, reason = HOTPOTQA, "hotpotqa_dicts", dicts_skip_reason(path)
    else:
        domain, format_, reason = family or "unknown", "unknown", "no importer recognises this file"
    if format_ in PLUGGABLE_FORMATS and format_ in LOADERS:
        reason = None
    return PublishedSource(
        name=relative.as_posix(),
        path=path,
        domain=domain,
        format=format_,
        files=[relative.as_posix()],
        skip_reason=reason,
    )


def discover_sources(root: Path = DEFAULT_ROOT) -> list[PublishedSource]:
    """Every run under `root`, sorted by name: one source per env_results folder, per folder of
    per-question agent pickles, and per other file."""
    root = root.resolve()
    folders: dict[Path, list[Path]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.relative_to(root).as_posix() not in _NOT_RUNS:
            folders.setdefault(path.parent, []).append(path)
    sources = []
    for folder, files in folders.items():
        env_results = [p for p in files if _ENV_RESULTS_RE.fullmatch(p.name)]
        if env_results:
            family = _family(folder.relative_to(root))
            sources.append(
                PublishedSource(
                    name=folder.relative_to(root).as_posix(),
                    path=folder,
                    domain=family or "unknown",
                    format="env_results",
                    files=[p.relative_to(root).as_posix() for p in env_results],
                    skip_reason=None,
                )
            )
            files = [p for p in files if p not in env_results]
        if files and all(_PER_AGENT_PICKLE_RE.fullmatch(p.name) for p in files):
            sources.append(_per_agent_pickles(root, folder, files))
        else:
            sources += [_file_source(root, path) for path in files]
    return sorted(sources, key=lambda source: source.name)


def get_source(name: str, root: Path = DEFAULT_ROOT) -> PublishedSource:
    """The discovered source called `name` (its path relative to `root`)."""
    sources = {source.name: source for source in discover_sources(root)}
    if name.strip("/") in sources:
        return sources[name.strip("/")]
    close = difflib.get_close_matches(name, sources, n=3)
    hint = f" Closest: {', '.join(close)}." if close else ""
    raise UnknownSourceError(f"no published source is named {name!r} under {root}.{hint}")


def load_source(source: PublishedSource) -> list[PublishedTask]:
    """The tasks of one source; raises SkippedSourceError for a source discovery marked unreadable."""
    if source.loader is None:
        raise SkippedSourceError(source)
    return source.loader(source)
