"""ALFWorld as a domain: real text games played by the Reflexion actor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from envs.alfworld import AlfworldEpisode, AlfworldGame
from envs.alfworld_memos import keep_translations_in
from envs.alfworld_pool import EngineWorkers, RemoteEpisode
from harness.domains.alfworld.config import AlfworldEnvConfig
from harness.domains.alfworld.selection import choose_games
from harness.domains.alfworld.actor import play_episode
from harness.domains.base import Attempt, Domain
from harness.domains.alfworld.reflection import AlfworldReflection
from harness.domains.hashing import prompts_hash, sha256_files
from harness.llm.metering import MeteredLLM
from harness.records import TrialRecord


class AlfworldDomain(Domain):
    """The chosen games; each trial is one episode of at most `max_steps` actions."""

    name = "alfworld"
    reflection = AlfworldReflection()

    def __init__(
        self,
        games: Sequence[AlfworldGame],
        max_steps: int,
        newline_before_prompt: bool = False,
        engine_workers: int = 1,
        translation_cache: Path | None = None,
    ) -> None:
        """engine_workers: engine processes for concurrent episodes; 0 or 1 plays every episode in this process.
        translation_cache: where engines keep the games' translations on disk (None: in memory only)."""
        self.games = {game.game_id: game for game in games}
        self.max_steps = max_steps
        self.newline_before_prompt = newline_before_prompt
        if engine_workers > 1:
            self._workers: EngineWorkers | None = EngineWorkers(engine_workers, translation_cache)
        else:
            self._workers = None
            keep_translations_in(translation_cache)

    def _episode(self, game: AlfworldGame) -> AlfworldEpisode | RemoteEpisode:
        # The actor owns the step budget; the engine must not end episodes on its own count.
        if self._workers is None:
            return AlfworldEpisode(game, max_episode_steps=None)
        return self._workers.episode(game, max_episode_steps=None)

    def task_ids(self) -> list[str]:
        return list(self.games)

    def play(
        self,
        task_id: str,
        window: list[str],
        earlier: Sequence[TrialRecord],
        actor: MeteredLLM,
        seed: int,
        on_step: Callable[[int], None],
        last_trial: bool,
    ) -> Attempt:
        game = self.games[task_id]
        with self._episode(game) as env:
            episode = play_episode(
                env,
                game.prompt_type,
                window,
                actor,
                self.max_steps,
                seed,
                on_step=on_step,
                newline_before_prompt=self.newline_before_prompt,
                rules=self.rules,
                examples=self.examples.get(task_id, ""),
            )
            env_seconds, env_cpu_seconds = env.env_seconds, env.cpu_seconds
            env_wait_seconds = env.wait_seconds if isinstance(env, RemoteEpisode) else None
        return Attempt(
            task_text=episode.task_text,
            trajectory=episode.steps,
            success=episode.success,
            end_reason=episode.end_reason,
            scenario=episode.scenario(),
            env_s=env_seconds,
            env_cpu_s=env_cpu_seconds,
            env_wait_s=env_wait_seconds,
        )

    def warm_up(self, concurrency: int) -> None:
        if self._workers is not None:
            self._workers.start(concurrency)

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()

    def finished(self, success: bool, end_reason: str) -> bool:
        return success

    def data_hashes(self) -> dict[str, str]:
        return {
            "games": sha256_files([Path(game.game_file) for game in self.games.values()]),
            "prompts": prompts_hash("alfworld"),
        }


def build(env: AlfworldEnvConfig, only: frozenset[str] | None = None) -> AlfworldDomain:
    """The domain of a run's env config; `only`: the held-out tasks it keeps (None: all it selects)."""
    translations = Path(env.translation_cache).resolve() if env.translation_cache else None
    return AlfworldDomain(choose_games(env, only), env.max_steps, env.newline_before_prompt, env.workers(), translations)
