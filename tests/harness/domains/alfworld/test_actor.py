"""Reflexion's prompt assembly and observation handling, checked against the published protocol."""

from harness.domains.alfworld.actor import actor_prompt, clean_observation, episode_log, initial_observation, task_text_of
from harness.llm.prompts import alfworld_react_examples, read_prompt
from harness.domains.alfworld.reflection import reflection_query
from harness.records.step import Step

RESET_TEXT = (
    "-= Welcome to TextWorld, ALFRED! =-\n\n"
    "You are in the middle of a room. Looking quickly around you, you see a desk 1, and a shelf 1.\n\n"
    "Your task is to: put some mug on desk."
)


def test_initial_observation_drops_the_banner_paragraph() -> None:
    start = initial_observation(RESET_TEXT)
    assert start.startswith("You are in the middle of a room.")
    assert "Welcome to TextWorld" not in start
    assert task_text_of(start) == "put some mug on desk."


def test_arrival_message_loses_its_location_prefix_only() -> None:
    assert clean_observation("You arrive at loc 12. On the desk 1, you see a mug 1.") == "On the desk 1, you see a mug 1."
    assert clean_observation("Nothing happens.") == "Nothing happens."


def test_actor_prompt_follows_reflexion_layout() -> None:
    examples = alfworld_react_examples()
    steps = [Step(action="go to desk 1", observation="On the desk 1, you see a mug 1.")]
    prompt = actor_prompt("put", ["  plan A  ", "plan B"], "START", steps)
    base = read_prompt("alfworld/alfworld_actor_header.txt") + examples["react_put_1"] + examples["react_put_0"]
    assert prompt.startswith(base)
    rest = prompt[len(base) :]
    assert rest == (
        "\n\nYour memory for the task below:\nTrial 0:\nplan A\nTrial 1:\nplan B"
        "\nHere is the task:\nSTART\n> go to desk 1\nOn the desk 1, you see a mug 1.>"
    )


def test_the_newline_before_the_prompt_is_a_named_option() -> None:
    steps = [Step(action="think: look around", observation="OK.")]
    assert actor_prompt("put", [], "START", steps).endswith("START\n> think: look around\nOK.>")
    assert actor_prompt("put", [], "START", steps, newline_before_prompt=True).endswith("OK.\n>")
    assert actor_prompt("put", [], "START", [], newline_before_prompt=True).endswith("START\n>")


def test_actor_prompt_without_memory_has_no_memory_block() -> None:
    prompt = actor_prompt("examine", [], "START", [])
    assert "Your memory" not in prompt
    assert prompt.endswith("\nHere is the task:\nSTART\n>")


def test_reflection_query_fills_slots_and_lists_past_plans() -> None:
    scenario = episode_log("START", [Step(action="look", observation="Nothing happens.")]) + "\n\nSTATUS: FAIL"
    query = reflection_query(scenario, ["old plan"])
    assert query.startswith("You will be given the history of a past experience")
    assert read_prompt("alfworld/reflexion_few_shot_examples.txt") in query
    assert "{scenario}" not in query and "{few_shot_examples}" not in query
    assert query.endswith("START\n> look\nNothing happens.\n\nSTATUS: FAIL\n\nPlans from past attempts:\nTrial #0: old plan\n\n\nNew plan:")
