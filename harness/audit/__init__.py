"""Audit of the published Reflexion logs: importers into one memory-log model, and the audit over them."""

from harness.audit.alfworld_mention import AlfworldMention, FrozenEnv, alfworld_mention, env_targets, read_env_to_game
from harness.audit.audit_model import AuditReport, SkippedSource
from harness.audit.audit_report import run_audit, write_audit
from harness.audit.env_results import load_env_results_run
from harness.audit.errors import EnvMappingError, LogsDirError, UnknownTaskError
from harness.audit.hotpotqa import load_hotpotqa_dicts, load_hotpotqa_log
from harness.audit.programming import load_programming_run
from harness.audit.published import PublishedTask
from harness.audit.safe_pickle import UnreadablePickleError, UnsafePickleError, load_restricted_pickle
from harness.audit.semantic_audit import SemanticAudit, SemanticSourceAudit, semantic_audit
from harness.audit.source_audit import AuditSpearman, SourceAudit, source_audit
from harness.audit.sources import (
    PublishedSource,
    SkippedSourceError,
    UnknownSourceError,
    discover_sources,
    get_source,
    load_source,
)
from harness.audit.task_inspection import TaskInspection, find_task, inspect_task, render_inspection
from harness.audit.task_rrr import TaskRRR, task_rrrs

__all__ = [
    "AlfworldMention",
    "AuditReport",
    "AuditSpearman",
    "EnvMappingError",
    "FrozenEnv",
    "LogsDirError",
    "PublishedSource",
    "PublishedTask",
    "SemanticAudit",
    "SemanticSourceAudit",
    "SkippedSource",
    "SkippedSourceError",
    "SourceAudit",
    "TaskInspection",
    "TaskRRR",
    "UnknownSourceError",
    "UnknownTaskError",
    "UnreadablePickleError",
    "UnsafePickleError",
    "alfworld_mention",
    "discover_sources",
    "env_targets",
    "find_task",
    "get_source",
    "inspect_task",
    "load_env_results_run",
    "load_hotpotqa_dicts",
    "load_hotpotqa_log",
    "load_programming_run",
    "load_restricted_pickle",
    "load_source",
    "read_env_to_game",
    "render_inspection",
    "run_audit",
    "semantic_audit",
    "source_audit",
    "task_rrrs",
    "write_audit",
]
