"""ALFWorld as a domain: real text games played by the Reflexion actor (or, in an insight stage's evaluation with
`insights.actor=expel`, by ExpeL's)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from envs.alfworld import AlfworldEpisode, AlfworldGame
from envs.alfworld_memos import keep_translations_in
from envs.alfworld_pool import EngineWorkers, RemoteEpisode
from envs.alfworld_prefetch import TranslationPrefetch
from harness.domains.alfworld.config import AlfworldEnvConfig
from harness.domains.alfworld.selection import choose_games
from harness.domains.alfworld.actor import play_episode
from harness.domains.alfworld.expel_actor import opening, play_expel_episode
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
        workers_chosen: bool = True,
        prefetch: bool = True,
    ) -> None:
        """engine_workers: engine processes for concurrent episodes; 0 or 1 plays every episode in this process.
        translation_cache: where engines keep the games' translations on disk (None: in memory only).
        workers_chosen: False when engine_workers is the per-core default, which a run playing one episode at a
        time (warm_up(1)) replaces by this process. prefetch: with workers and a translation_cache, translate the games
        ahead of their first reset (envs/alfworld_prefetch.py)."""
        self.games = {game.game_id: game for game in games}
        self.max_steps = max_steps
        self.newline_before_prompt = newline_before_prompt
        self._translations = translation_cache
        self._workers_chosen = workers_chosen
        self._workers: EngineWorkers | None = None
        self._prefetch = prefetch
        self._prefetcher: TranslationPrefetch | None = None
        if engine_workers > 1:
            self._workers = EngineWorkers(engine_workers, translation_cache)
        else:
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
            if self.actor == "expel":
                episode = play_expel_episode(env, game.prompt_type, actor, self.max_steps, seed, on_step=on_step,
                                             rules=self.rules, examples=self.examples.get(task_id, ""))
            else:
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

    def task_opening(self, task_id: str) -> str:
        """The game's opening (its room, a blank line, its task), from a reset of its engine."""
        with self._episode(self.games[task_id]) as env:
            return opening(env.reset().observation)

    def warm_up(self, concurrency: int) -> None:
        if self._workers is None:
            return
        if concurrency <= 1 and not self._workers_chosen:
            # One episode at a time never overlaps: a worker process would only add its start (about 1.5 s of CPU).
            self._workers.close()
            self._workers = None
            keep_translations_in(self._translations)
            return
        self._workers.start(concurrency)
        if self._prefetch and self._translations is not None and self._prefetcher is None:
            # From the first game on: the run's start leaves a core idle now and then, while the workers load.
            games = [Path(game.game_file) for game in self.games.values()]
            self._prefetcher = TranslationPrefetch(self._translations, games)

    def close(self) -> None:
        if self._prefetcher is not None:
            self._prefetcher.close()
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
    return AlfworldDomain(
        choose_games(env, only),
        env.max_steps,
        env.newline_before_prompt,
        env.workers(),
        translations,
        workers_chosen=env.engine_workers is not None,
        prefetch=env.prefetch_translations,
    )
