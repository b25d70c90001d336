"""Numbering a failed trial's turns for evidence: who said what, in order."""

from __future__ import annotations

from harness.domains.alfworld.reflection import alfworld_turns, opening_observation
from harness.domains.humaneval.reflection import humaneval_turns
from harness.llm.prompts import render_turns

SCENARIO = (
    "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, and a toilet 1.\n"
    "Your task is to: put some soapbottle on toilet.\n"
    "> go to cabinet 1\n"
    "The cabinet 1 is closed.\n"
    "> open cabinet 1\n"
    "You open the cabinet 1. The cabinet 1 is open. In it, you see a soapbottle 1.\n\n"
    "STATUS: FAIL"
)
STEPS = [
    ("go to cabinet 1", "The cabinet 1 is closed."),
    ("open cabinet 1", "You open the cabinet 1. The cabinet 1 is open. In it, you see a soapbottle 1."),
]


def test_the_opening_observation_is_the_log_before_the_first_action() -> None:
    assert opening_observation(SCENARIO) == (
        "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, and a toilet 1.\n"
        "Your task is to: put some soapbottle on toilet."
    )


def test_alfworld_turns_alternate_agent_actions_and_environment_answers_after_earlier_lessons() -> None:
    turns = alfworld_turns(SCENARIO, STEPS, ["Look in the cabinet."])
    assert [(t.id, t.role) for t in turns] == [
        (1, "reflection"),
        (2, "environment"),
        (3, "agent"),
        (4, "environment"),
        (5, "agent"),
        (6, "environment"),
    ]
    assert turns[2].text == "> go to cabinet 1" and turns[3].text == "The cabinet 1 is closed."


def test_humaneval_turns_are_the_task_the_code_and_the_test_output() -> None:
    turns = humaneval_turns(
        "def f(x):\n    '''Double x.'''\n",
        "def f(x):\n    return x\n",
        "Tests failed:\nassert f(2) == 4 # output: 2",
        [],
    )
    assert [(t.id, t.role) for t in turns] == [(1, "user"), (2, "agent"), (3, "tests")]
    assert turns[2].text.endswith("# output: 2")


def test_rendering_names_the_speaker_of_every_turn() -> None:
    rendered = render_turns(alfworld_turns(SCENARIO, STEPS[:1], ["Look in the cabinet."]))
    assert rendered.splitlines()[0] == "[1] your earlier lesson: Look in the cabinet."
    assert "[3] you: > go to cabinet 1\n[4] environment: The cabinet 1 is closed." in rendered
