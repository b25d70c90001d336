"""ALFWorld text games: list the shipped valid_unseen games, select some, and play one.

A game is keyed by its folder, "<task folder>/<trial folder>", never by an index: ALFWorld's own
loader orders games by filesystem walk and a seeded shuffle, which differs between machines.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from envs._names import closest_names
from envs.alfworld_engine import DEFAULT_DATA_DIR, ENGINE_LOCK, ENGINES, kept_argv
from harness.errors import GameFileError, GameNotFoundError


SPLIT_DIR = Path("json_2.1.1") / "valid_unseen"
SETS_SUBDIR = "sets"
TASK_PREFIX = "Your task is to: "

# Reflexion's alfworld_trial.py PREFIXES, matched with startswith on the task folder, as Reflexion does.
PROMPT_TYPES: dict[str, str] = {
    "pick_and_place": "put",
    "pick_clean_then_place": "clean",
    "pick_heat_then_place": "heat",
    "pick_cool_then_place": "cool",
    "look_at_obj": "examine",
    "pick_two_obj": "puttwo",
}

_FOLDER_RE = re.compile(
    r"^(?P<task_type>[a-z_]+)-(?P<target>[A-Za-z]+)-(?P<mrecep>[A-Za-z]+)-(?P<recep>[A-Za-z]+)-(?P<scene>\d+)$"
)
# The game's top-level grammar is the first triple-quoted block; actions carry their own blocks later.
_GRAMMAR_RE = re.compile(r'\A\s*grammar\s*::\s*"""(?P<body>.*?)"""', re.DOTALL)


class AlfworldGame(BaseModel):
    """One shipped ALFWorld game, described from its folder name and game file alone."""

    model_config = ConfigDict(frozen=True)

    game_id: str = Field(description='"<task folder>/<trial folder>"; the key for everything.')
    task_folder: str = Field(description='e.g. "pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-10".')
    trial_folder: str = Field(description='e.g. "trial_T20190907_183715_299073".')
    task_type: str = Field(description='Folder prefix, e.g. "pick_cool_then_place_in_recep".')
    prompt_type: str = Field(description='Reflexion\'s name for the task type, e.g. "cool".')
    target_object: str = Field(description='Object the task is about, e.g. "Mug".')
    mrecep: str | None = Field(description="Movable receptacle of the task, None when the folder says None.")
    receptacle: str = Field(description='Where the object must end up, e.g. "CoffeeMachine".')
    scene: str = Field(description='AI2-THOR floor plan number, e.g. "10".')
    task_text: str = Field(
        description='What reset prints after "Your task is to: ", e.g. "cool some mug and put it in coffeemachine."'
    )
    game_file: Path = Field(description="Absolute path of the game.tw-pddl file.")


def prompt_type_of(task_type: str) -> str:
    """Reflexion's prompt type for a task type (or any name starting with one of its prefixes)."""
    for prefix, prompt_type in PROMPT_TYPES.items():
        if task_type.startswith(prefix):
            return prompt_type
    raise ValueError(f"Task type {task_type!r} has no Reflexion prompt type; known prefixes: {', '.join(PROMPT_TYPES)}.")


def read_task_text(game_file: Path) -> str:
    """The task sentence of a game, read from the grammar in its game.tw-pddl without playing it."""
    grammar = json.loads(game_file.read_text())["grammar"]
    match = _GRAMMAR_RE.match(grammar)
    if match is None:
        raise ValueError(f"{game_file}: no top-level grammar block found.")
    (rule,) = json.loads(match.group("body"))["task"]
    text: str = rule["rhs"]
    if not text.startswith(TASK_PREFIX):
        raise ValueError(f"{game_file}: task rule {text!r} does not start with {TASK_PREFIX!r}.")
    return text.removeprefix(TASK_PREFIX)


def parse_game(game_file: Path, split_dir: Path) -> AlfworldGame:
    """Describe the game whose game.tw-pddl is `game_file` (inside `split_dir`)."""
    trial_dir = game_file.parent
    task_folder, trial_folder = trial_dir.parent.name, trial_dir.name
    match = _FOLDER_RE.match(task_folder)
    if match is None:
        raise ValueError(
            f"{trial_dir.relative_to(split_dir)}: task folder name is not <type>-<obj>-<mrecep>-<recep>-<scene>."
        )
    mrecep = match.group("mrecep")
    try:
        task_text = read_task_text(game_file)
    except (OSError, ValueError, KeyError, TypeError) as error:  # ValueError covers bad JSON and bad UTF-8
        reason = error.strerror if isinstance(error, OSError) else f"{type(error).__name__}: {error}"
        raise GameFileError(
            f"ALFWorld game file {game_file} cannot be read ({reason}); restore it "
            "from the repository (git checkout -- data/alfworld) or set env.data_dir to an intact copy."
        ) from error
    return AlfworldGame(
        game_id=f"{task_folder}/{trial_folder}",
        task_folder=task_folder,
        trial_folder=trial_folder,
        task_type=match.group("task_type"),
        prompt_type=prompt_type_of(match.group("task_type")),
        target_object=match.group("target"),
        mrecep=None if mrecep == "None" else mrecep,
        receptacle=match.group("recep"),
        scene=match.group("scene"),
        task_text=task_text,
        game_file=game_file.resolve(),
    )


def list_games(data_dir: Path | str | None = None) -> list[AlfworldGame]:
    """All games under `<data_dir>/json_2.1.1/valid_unseen`, sorted by game_id."""
    split_dir = (Path(data_dir) if data_dir else DEFAULT_DATA_DIR) / SPLIT_DIR
    if not split_dir.is_dir():
        raise FileNotFoundError(f"No ALFWorld games at {split_dir}.")
    games = [parse_game(f, split_dir) for f in split_dir.glob("*/*/game.tw-pddl")]
    return sorted(games, key=lambda g: g.game_id)


def _sets_dir(sets_dir: Path | str | None) -> Path:
    return Path(sets_dir) if sets_dir else DEFAULT_DATA_DIR / SETS_SUBDIR


def list_sets(sets_dir: Path | str | None = None) -> list[str]:
    """Names of the named game sets (files `<name>.txt` in `sets_dir`, default data/alfworld/sets)."""
    directory = _sets_dir(sets_dir)
    return sorted(p.stem for p in directory.glob("*.txt"))


def read_set(set_name: str, sets_dir: Path | str | None = None) -> list[str]:
    """Game ids listed in `<sets_dir>/<set_name>.txt`: one per line, '#' starts a comment.

    A set is named, never a path: only the names list_sets finds are read, so `../x` cannot reach another file.
    """
    directory = _sets_dir(sets_dir)
    path = directory / f"{set_name}.txt"
    if set_name not in list_sets(directory) or not path.is_file():
        raise GameNotFoundError(
            f"Unknown game set {set_name!r}; available sets in {directory}: {', '.join(list_sets(directory)) or 'none'}."
        )
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def select_games(
    games: Sequence[AlfworldGame],
    names: Sequence[str] | None = None,
    task_types: Sequence[str] | None = None,
    set_name: str | None = None,
    first_n: int | None = None,
    sets_dir: Path | str | None = None,
) -> list[AlfworldGame]:
    """The games passing every given filter, in the order of `games`, then the first `first_n`.

    names: game ids or task folders (a task folder selects all its trials).
    task_types: prompt types ("cool"), Reflexion prefixes ("pick_cool_then_place") or full task types.
    set_name: a file in `sets_dir` (default data/alfworld/sets) listing game ids.
    """
    selected = list(games)
    if names is not None:
        known = {g.game_id for g in games} | {g.task_folder for g in games}
        for name in names:
            if name not in known:
                raise GameNotFoundError(
                    f"Unknown ALFWorld game or task folder {name!r}; accepted: a task folder of "
                    f"{SPLIT_DIR} or '<task folder>/<trial folder>' (closest: {closest_names(name, known)})."
                )
        wanted = set(names)
        selected = [g for g in selected if g.game_id in wanted or g.task_folder in wanted]
    if task_types is not None:
        full_types = sorted({g.task_type for g in games})
        accepted = set(PROMPT_TYPES) | set(PROMPT_TYPES.values()) | set(full_types)
        for task_type in task_types:
            if task_type not in accepted:
                raise GameNotFoundError(
                    f"Unknown ALFWorld task type {task_type!r}; accepted: a prompt type "
                    f"({', '.join(PROMPT_TYPES.values())}) or a task type ({', '.join(full_types)})."
                )
        wanted = {PROMPT_TYPES.get(t, t) for t in task_types}  # a Reflexion prefix means its prompt type
        selected = [g for g in selected if g.task_type in wanted or g.prompt_type in wanted]
    if set_name is not None:
        members = read_set(set_name, sets_dir)
        ids = {g.game_id for g in games}
        for game_id in members:
            if game_id not in ids:
                raise GameNotFoundError(
                    f"Game set {set_name!r} lists unknown game {game_id!r}; closest: {closest_names(game_id, ids)}."
                )
        listed = set(members)
        selected = [g for g in selected if g.game_id in listed]
    if first_n is not None:
        if first_n < 0:
            raise ValueError(f"first_n must be >= 0, got {first_n}.")
        selected = selected[:first_n]
    return selected


class StepResult(BaseModel):
    """What the game shows after reset or after one action."""

    model_config = ConfigDict(frozen=True)

    observation: str = Field(description="The game's text, as printed.")
    won: bool = Field(description="The task's goal holds.")
    done: bool = Field(description="Won, or the step budget is spent; further steps are refused.")
    admissible_commands: tuple[str, ...] = Field(description="Commands the game accepts now, sorted.")
    policy_commands: tuple[str, ...] | None = Field(
        None, description="The planner's shortest plan from here; None unless the episode asked for it."
    )




_E = TypeVar("_E", bound="ClosingEpisode")


class ClosingEpisode:
    """An episode used as a context manager: leaving the block closes it (giving back its engine)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AlfworldEpisode(ClosingEpisode):
    """One game played through the real textworld engine, with ALFWorld's own wrappers.

    Use as a context manager; reset() before step(). reset_seconds and step_seconds accumulate the
    time spent in the engine, waiting for it included: episodes in other threads of the same process
    take turns at it, so threads overlap only the caller's own work (e.g. waiting for an LLM).
    """

    def __init__(
        self, game: AlfworldGame, max_episode_steps: int | None = 50, policy_commands: bool = False
    ) -> None:
        """max_episode_steps: steps after which the episode is done (ALFWorld's eval default is 50;
        None for no limit). policy_commands: also return the planner's plan (replans on every step)."""
        self.game = game
        self.max_episode_steps = max_episode_steps
        self.policy_commands = policy_commands
        self.reset_seconds = 0.0
        self.step_seconds = 0.0
        self.cpu_seconds = 0.0
        """The engine's own CPU time in this episode's thread (waiting for the engine lock excluded)."""
        self.steps = 0
        self._engine: Any = None
        self._done = False

    @property
    def env_seconds(self) -> float:
        """Seconds spent in the engine: resets (including the first import and engine start) and steps."""
        return self.reset_seconds + self.step_seconds

    @contextmanager
    def _cpu(self) -> Iterator[None]:
        started = time.thread_time()
        try:
            yield
        finally:
            self.cpu_seconds += time.thread_time() - started

    def _result(self, observation: str, done: bool, infos: dict[str, Any]) -> StepResult:
        policy = infos.get("policy_commands")
        return StepResult(
            observation=observation,
            won=bool(infos["won"]),
            done=done,
            admissible_commands=tuple(infos["admissible_commands"]),
            policy_commands=None if policy is None else tuple(policy),
        )

    def reset(self) -> StepResult:
        """Start (or restart) the game and return its opening text."""
        started = time.perf_counter()
        with ENGINE_LOCK, kept_argv(), self._cpu():
            if self._engine is None:
                self._engine = ENGINES.take(self.policy_commands)
            engine, self._engine = self._engine, None  # a half-loaded engine is dropped, not pooled
            engine.load(str(self.game.game_file))
            observation, infos = engine.reset()
            self._engine = engine
        self.reset_seconds += time.perf_counter() - started
        self.steps = 0
        self._done = False
        return self._result(observation, False, infos)

    def step(self, action: str) -> StepResult:
        """Send one command; an unknown command gets "Nothing happens." and still counts as a step."""
        if self._engine is None:
            raise RuntimeError(f"{self.game.game_id}: step() before reset().")
        if self._done:
            # textworld.gym would silently repeat the last observation.
            raise RuntimeError(f"{self.game.game_id}: step({action!r}) after the episode is done.")
        started = time.perf_counter()
        with ENGINE_LOCK, kept_argv(), self._cpu():
            observation, _score, game_over, infos = self._engine.step(action)
        self.step_seconds += time.perf_counter() - started
        self.steps += 1
        out_of_steps = self.max_episode_steps is not None and self.steps >= self.max_episode_steps
        self._done = bool(game_over) or out_of_steps
        return self._result(observation, self._done, infos)

    def close(self) -> None:
        """Give the engine back for the next episode; safe to call twice."""
        if self._engine is not None:
            ENGINES.give(self._engine, self.policy_commands)
            self._engine = None
