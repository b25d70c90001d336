"""Importer for Reflexion's programming runs: one `*.jsonl` file, one task a line.

Every line is the dataset row (HumanEval, MBPP, LeetCodeHardGym; OpenAI or MultiPL-E layout)
plus what the run added: `is_solved`, the final `solution` and, in reflexion runs, `reflections`.
Variations in the shipped files: the id is `task_id` (OpenAI HumanEval, LeetCode) or `name`
(MultiPL-E rows, which also carry `language`); runs of the `simple` strategy have no
`reflections` key, since that strategy never reflects; no file keeps the `implementations` or
`test_feedback` lists that later versions of Reflexion's code write.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.audit.published import PublishedTask

# A dataset is named anywhere in the run folder or file name ("human_eval" in one folder); a language
# is a whole token between / _ . - separators.
_DATASET_RE = re.compile(r"human_?eval|mbpp|leetcode")
# A digit may follow a token as a run number (`simple_mbpp_py2`, `reflexion_mbpp_py3`, `python3`).
_LANGUAGE_TOKEN_RE = re.compile(r"(py|python|rs|rust)\d*")
_LANGUAGES = {"py": "py", "python": "py", "rs": "rs", "rust": "rs"}
_TOKEN_SPLIT_RE = re.compile(r"[/_.\-]")
# OpenAI's HumanEval ids ("HumanEval/12") only ever name the Python problems; MultiPL-E renames them
# "HumanEval_12_<entry point>" and "mbpp_12_<entry point>" and states the language in each row.
_OPENAI_HUMANEVAL_ID_RE = re.compile(r"HumanEval/\d+")
_MULTIPLE_ID_RE = re.compile(r"(HumanEval|mbpp)_\d+_\w+")


def _read_rows(path: Path) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} line {number} is not JSON: {error}.") from error
        if not isinstance(row, dict):
            raise ValueError(f"{path} line {number} is a JSON {type(row).__name__}, not an object.")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path} holds no task.")
    return rows


def _task_id(row: dict) -> str:
    task_id = row.get("task_id", row.get("name"))
    if not isinstance(task_id, str):
        raise ValueError(f"a row has neither a `task_id` nor a `name` string (keys: {sorted(row)}).")
    return task_id


def _domain_from_rows(row: dict) -> tuple[str | None, str | None]:
    task_id = _task_id(row)
    if _OPENAI_HUMANEVAL_ID_RE.fullmatch(task_id):
        return "humaneval", "py"
    if match := _MULTIPLE_ID_RE.fullmatch(task_id):
        language = row.get("language")
        return match.group(1).lower(), _LANGUAGES.get(language) if isinstance(language, str) else None
    return None, None


def _path_domain(path: Path) -> tuple[str | None, str | None]:
    # Only the run folder and the file: folders above them (the checkout's own path) name nothing.
    text = f"{path.parent.name}/{path.name}".lower()
    datasets = {m.replace("_", "") for m in _DATASET_RE.findall(text)}
    tokens = [_LANGUAGE_TOKEN_RE.fullmatch(t) for t in _TOKEN_SPLIT_RE.split(text)]
    languages = {_LANGUAGES[m.group(1)] for m in tokens if m}
    if len(datasets) > 1 or len(languages) > 1:
        raise ValueError(f"{path} names more than one dataset or language: {sorted(datasets | languages)}.")
    return next(iter(datasets), None), next(iter(languages), None)


def path_domain(path: Path) -> str | None:
    """`<dataset>-<language>` when the run folder and file name say both, else None."""
    dataset, language = _path_domain(path)
    return f"{dataset}-{language}" if dataset and language else None


def run_domain(path: Path) -> str:
    """`<dataset>-<language>` (humaneval-py, mbpp-rs, leetcode-py, ...) of a programming run file.

    From the path when it names both (folder and file names such as `reflexion_mbpp_rs/mbpp-rs._..._rs.jsonl`);
    otherwise from the file's first row: several runs sit in folders like `simple_test_run` or
    `reflexion_plays_with_the_ferris_crab` that name neither the dataset nor, in some, the language.
    """
    dataset, language = _path_domain(path)
    if dataset is None or language is None:
        row_dataset, row_language = _domain_from_rows(_read_rows(path)[0])
        dataset, language = dataset or row_dataset, language or row_language
    if dataset is None or language is None:
        raise ValueError(f"{path}: cannot tell the dataset and language from its path or its rows.")
    return f"{dataset}-{language}"


def load_programming_run(path: Path, source: str | None = None) -> list[PublishedTask]:
    """Every task of one programming run file, in file order."""
    domain = run_domain(path)
    tasks: list[PublishedTask] = []
    seen: set[str] = set()
    for row in _read_rows(path):
        task_id = _task_id(row)
        if task_id in seen:
            raise ValueError(f"{path}: task {task_id!r} appears twice (a resumed run that was not deduplicated?).")
        seen.add(task_id)
        reflections = row.get("reflections", [])
        if not isinstance(reflections, list) or not all(isinstance(r, str) for r in reflections):
            raise ValueError(f"{path}: task {task_id!r} has `reflections` that are not a list of strings.")
        if not isinstance(row.get("is_solved"), bool):
            raise ValueError(f"{path}: task {task_id!r} has no boolean `is_solved`.")
        tasks.append(
            PublishedTask(
                domain=domain,
                source=source or path.name,
                task_id=task_id,
                reflections=reflections,
                solved=row["is_solved"],
                # A line keeps the reflections and the final verdict, not the attempts. Attempts per
                # reflection differ between strategies and code versions (immediate-refinement retries
                # without reflecting; the "ucs" runs hold up to 21 reflections under max_iters 5), and
                # `is_solved` comes from hidden tests run only on some attempts, so neither the number of
                # attempts nor the attempt that solved the task can be read from the file.
                trial_solved=None,
                trials=None,
            )
        )
    return tasks
