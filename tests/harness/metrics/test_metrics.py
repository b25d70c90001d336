"""Metrics: RRR computed by hand, frozen, object mention (strict vs normalized) on real reflections."""

from __future__ import annotations

import difflib
import json
import math
from pathlib import Path

import pytest

from envs.alfworld import list_games, select_games
from harness.metrics.core import (
    ConditionMetrics,
    MentionCounts,
    TaskMetrics,
    condition_metrics,
    is_frozen,
    object_mention,
    pairwise_similarities,
    reflection_repetition_rate,
    task_metrics,
)
from harness.metrics.object_mention import mentions_object
from tests.harness.factories import make_record

CACHE = Path(__file__).resolve().parents[2] / "fixtures" / "replay" / "llm_cache.jsonl"
# The two games the committed replay run played.
CACHE_GAMES = [
    "pick_and_place_simple-Mug-None-Desk-308/trial_T20190908_125200_737896",
    "pick_and_place_simple-SoapBottle-None-Toilet-424/trial_T20190907_004404_604165",
]


def ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


# 17 shared characters and 3 different ones each: ratio = 2 * 17 / (20 + 20) = 0.85 exactly.
SHARED = "abcdefghijklmnopq"
TIE_A, TIE_B = SHARED + "XYZ", SHARED + "123"
# One more different character: 2 * 17 / (20 + 21) = 0.829..., just below the threshold.
BELOW_B = SHARED + "1234"


def test_constructed_ratios_are_what_the_cases_assume() -> None:
    assert ratio(TIE_A, TIE_B) == 0.85 == ratio(TIE_B, TIE_A)
    assert ratio(TIE_A, BELOW_B) == 34 / 41 < 0.85


def test_two_identical_reflections_repeat() -> None:
    assert reflection_repetition_rate(["Go to desk 1 first.", "Go to desk 1 first."]) == 1.0


def test_three_distinct_reflections_never_repeat() -> None:
    memory = ["Go to desk 1 first.", "The mug was in the shelf, look there.", "I must open drawer 3 earlier."]
    assert all(ratio(memory[i], memory[j]) < 0.85 for i in range(3) for j in range(i))
    assert reflection_repetition_rate(memory) == 0.0


def test_a_near_copy_of_the_first_reflection_counts_once() -> None:
    a, b = "I should take the mug from shelf 2 first.", "Next time open the drawers before the desk."
    a_again = "I should take the mug from shelf 2 first!"
    assert ratio(a_again, a) >= 0.85 and ratio(b, a) < 0.85 and ratio(a_again, b) < 0.85
    # r_1 = b repeats nothing, r_2 = a' repeats r_0: 1 of 2.
    assert reflection_repetition_rate([a, b, a_again]) == 0.5


@pytest.mark.parametrize("memory", [[], ["only one reflection"]])
def test_rrr_is_undefined_below_two_reflections(memory: list[str]) -> None:
    assert reflection_repetition_rate(memory) is None


def test_order_matters_when_similarity_is_not_transitive() -> None:
    # x ~ y and y ~ z (17 of 20 characters shared, ratio 0.85) but x !~ z (14 shared, 0.7).
    y = "abcdefghijklmnopqrst"
    x = y[:17] + "XYZ"
    z = "123" + y[3:]
    assert ratio(x, y) == ratio(y, x) == 0.85
    assert ratio(z, y) == ratio(y, z) == 0.85
    assert ratio(x, z) == ratio(z, x) == 0.7
    # [x, z, y]: z has no similar predecessor, y has x: 1 / 2.
    assert reflection_repetition_rate([x, z, y]) == 0.5
    # [y, z, x]: z has y, x has y: 2 / 2.
    assert reflection_repetition_rate([y, z, x]) == 1.0


def test_a_ratio_of_exactly_the_threshold_counts() -> None:
    assert reflection_repetition_rate([TIE_A, TIE_B]) == 1.0


def test_a_ratio_just_below_the_threshold_does_not_count() -> None:
    assert reflection_repetition_rate([TIE_A, BELOW_B]) == 0.0
    assert reflection_repetition_rate([TIE_A, TIE_B], threshold=math.nextafter(0.85, 1.0)) == 0.0


def test_later_reflection_goes_first_and_autojunk_stays_on() -> None:
    # From 200 characters on, autojunk ignores characters frequent in SequenceMatcher's second
    # string; dropping one word then halves the ratio in one direction only.
    a = (
        "I went to desk 1 and desk 2 but the mug was not there. Next time I will check shelf 1, "
        "shelf 2 and drawer 1 first, then take the mug and put it in desk 1. I wasted steps opening "
        "drawers that were empty, so I will skip them."
    )
    b = a.replace("the mug was", "the was", 1)
    assert ratio(b, a) >= 0.85 > ratio(a, b)
    assert difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.85
    assert reflection_repetition_rate([a, b]) == 1.0  # ratio(b, a)
    assert reflection_repetition_rate([b, a]) == 0.0  # ratio(a, b), autojunk on


def test_pairwise_similarities_keep_both_directions() -> None:
    memory = [TIE_A, TIE_B, "something else entirely"]
    matrix = pairwise_similarities(memory)
    assert matrix == [[ratio(row, column) for column in memory] for row in memory]
    assert [matrix[i][i] for i in range(3)] == [1.0, 1.0, 1.0]
    assert matrix[1][0] == 0.85
    assert pairwise_similarities([]) == []


def test_frozen_needs_a_defined_rrr_of_at_least_one_half() -> None:
    assert is_frozen(0.5) and is_frozen(1.0)
    assert not is_frozen(0.49) and not is_frozen(0.0)
    assert not is_frozen(None)


@pytest.mark.parametrize(
    ("reflection", "target", "strict", "normalized"),
    [
        ("I took the saltshaker 1 from the countertop.", "SaltShaker", False, True),
        ("The salt shaker was on the shelf.", "SaltShaker", False, True),
        ("Find the Salt-Shakers first.", "SaltShaker", False, True),
        ("Take the SaltShaker to the drawer.", "SaltShaker", True, True),
        ("I saw a pepper shaker only.", "SaltShaker", False, False),
        ("take mug 1 from shelf 2", "Mug", False, True),
        ("There were two mugs there.", "Mug", False, True),
        ("The mug1 is gone.", "Mug", False, True),
        ("Mugs were on the desk.", "Mug", True, True),
        ("He looked smug.", "Mug", False, False),
        ("Mugshots are not mugs.", "Mug", True, True),
        ("Mugshot.", "Mug", True, False),
        ("put cd 2 in safe 1", "CD", False, True),
        ("The cdrom drive was empty.", "CD", False, False),
        ("Open the cupboard.", "Cup", False, False),
        ("I went to toiletpaperhanger 1.", "ToiletPaper", False, False),
        ("Take the toilet paper 2.", "ToiletPaper", False, True),
        ("the keychain 3 and key chain 1", "KeyChain", False, True),
    ],
)
def test_strict_and_normalized_object_mention(reflection: str, target: str, strict: bool, normalized: bool) -> None:
    assert mentions_object(reflection, target, "strict") is strict
    assert mentions_object(reflection, target, "normalized") is normalized


def test_unknown_mention_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="strict, normalized"):
        mentions_object("mug", "Mug", "fuzzy")  # type: ignore[arg-type]


def test_object_mention_counts_both_variants() -> None:
    counts = object_mention(["take mug 1", "The Mug is there", "go to desk 1"], "Mug")
    assert counts == MentionCounts(reflections=3, strict=1, normalized=2)
    assert counts.strict_rate == 1 / 3 and counts.normalized_rate == 2 / 3
    empty = object_mention([], "Mug")
    assert empty.strict_rate is None and empty.normalized_rate is None


def real_reflections() -> dict[str, list[str]]:
    """Reflector answers of the committed replay run, by game id, in trial order.

    Reflector requests are the prompts ending in Reflexion's "New plan:"; the last task sentence of the prompt
    names the game, and only the second trial's prompt carries plans from past attempts.
    """
    by_task_text = {game.task_text: game.game_id for game in select_games(list_games(), names=CACHE_GAMES)}
    found: dict[str, list[tuple[bool, str]]] = {}
    for line in CACHE.read_text().splitlines():
        entry = json.loads(line)
        request = entry["request"]
        if not request["prompt"].endswith("New plan:"):
            continue
        prompt = request["prompt"]
        task_text = prompt.rsplit("Your task is to: ", 1)[1].split("\n", 1)[0]
        later = "Plans from past attempts" in prompt
        found.setdefault(by_task_text[task_text], []).append((later, entry["response"]["text"]))
    return {game_id: [text for _, text in sorted(pairs)] for game_id, pairs in found.items()}


@pytest.fixture(scope="module")
def reflections() -> dict[str, list[str]]:
    return real_reflections()


@pytest.fixture(scope="module")
def targets() -> dict[str, str]:
    return {game.game_id: game.target_object for game in select_games(list_games(), names=CACHE_GAMES)}


def test_real_reflections_name_their_object_only_in_lowercase(
    reflections: dict[str, list[str]], targets: dict[str, str]
) -> None:
    assert sorted(reflections) == CACHE_GAMES
    assert [targets[game_id] for game_id in CACHE_GAMES] == ["Mug", "SoapBottle"]
    for game_id, memory in reflections.items():
        assert len(memory) == 2
        # The model writes ALFWorld's spelling ("a mug", "the soapbottle"), never "Mug"/"SoapBottle".
        assert object_mention(memory, targets[game_id]) == MentionCounts(reflections=2, strict=0, normalized=2)


def test_task_metrics_of_a_real_frozen_memory(reflections: dict[str, list[str]], targets: dict[str, str]) -> None:
    game_id = next(g for g in reflections if targets[g] == "Mug")
    first, second = reflections[game_id]
    records = [make_record(1, second, task=game_id), make_record(0, first, task=game_id)]  # any order
    metrics = task_metrics(records, "Mug")
    # The second plan is the first one re-issued (ratio 0.998): 1 of 1 later reflections repeats.
    assert metrics == TaskMetrics(
        task_id=game_id,
        condition="self_diagnosis",
        target_object="Mug",
        trials=2,
        reflections=2,
        rrr=1.0,
        frozen=True,
        solved=False,
        solved_trial=None,
        mentions=MentionCounts(reflections=2, strict=0, normalized=2),
    )


def test_task_metrics_orders_by_trial_and_stops_memory_at_the_win() -> None:
    records = [
        make_record(2, None, success=True),
        make_record(0, "Look for the Mug on the shelf."),
        make_record(1, "Look in drawer 1."),
    ]
    metrics = task_metrics(records, "Mug")
    assert (metrics.trials, metrics.reflections, metrics.rrr, metrics.frozen) == (3, 2, 0.0, False)
    assert metrics.solved and metrics.solved_trial == 2
    assert metrics.mentions == MentionCounts(reflections=2, strict=1, normalized=1)


def test_task_metrics_of_one_reflection_has_no_rrr() -> None:
    metrics = task_metrics([make_record(0, "Check the desk."), make_record(1, None, success=True)], "Mug")
    assert metrics.rrr is None and not metrics.frozen


def test_task_metrics_refuses_mixed_or_repeated_records() -> None:
    with pytest.raises(ValueError, match="one task and condition"):
        task_metrics([make_record(0, "x"), make_record(1, "y", task="c/d")], "Mug")
    with pytest.raises(ValueError, match="repeat"):
        task_metrics([make_record(0, "x"), make_record(0, "y")], "Mug")
    with pytest.raises(ValueError, match="at least one"):
        task_metrics([], "Mug")


def task(rrr: float | None, solved: bool, mentions: MentionCounts, condition: str = "self_diagnosis") -> TaskMetrics:
    return TaskMetrics(
        task_id=f"t{rrr}{solved}",
        condition=condition,
        target_object="Mug",
        trials=3,
        reflections=mentions.reflections,
        rrr=rrr,
        frozen=is_frozen(rrr),
        solved=solved,
        solved_trial=2 if solved else None,
        mentions=mentions,
    )


def test_condition_metrics_average_rrr_over_defined_tasks_only() -> None:
    per_task = [
        task(1.0, False, MentionCounts(reflections=3, strict=0, normalized=3)),
        task(0.0, False, MentionCounts(reflections=2, strict=1, normalized=1)),
        task(None, True, MentionCounts(reflections=1, strict=0, normalized=0)),
    ]
    assert condition_metrics(per_task) == ConditionMetrics(
        condition="self_diagnosis",
        tasks=3,
        solved=1,
        rrr_defined=2,
        mean_rrr=0.5,  # (1.0 + 0.0) / 2, the undefined task left out rather than counted as 0
        mean_rrr_convention="over_defined_only",
        frozen=1,
        mentions=MentionCounts(reflections=6, strict=1, normalized=4),
    )


def test_condition_metrics_without_any_defined_rrr() -> None:
    metrics = condition_metrics([task(None, True, MentionCounts(reflections=0, strict=0, normalized=0))])
    assert metrics.mean_rrr is None and metrics.rrr_defined == 0 and metrics.frozen == 0


def test_condition_metrics_refuses_mixed_conditions() -> None:
    zero = MentionCounts(reflections=0, strict=0, normalized=0)
    with pytest.raises(ValueError, match="one condition"):
        condition_metrics([task(None, True, zero), task(None, True, zero, condition="no_memory")])
