"""The words an ALFWorld reflection uses for steps, causes and facts, as patterns over its lowered, normalised text
(harness/domains/alfworld/diagnosis_claims.py reads with them). Every pattern is ASCII lower case."""

from __future__ import annotations

import re

NAME = r"[a-z]+(?: \d+)?"
"""A thing as a reflection names it: a type word and maybe its number ('cabinet 1', 'the mug')."""
_THE = r"(?:(?:the|a|an)\s+)?"
_THING = rf"(?P<thing>{NAME}|it|them|one)"
_PLACE = rf"(?P<place>{NAME}|it)"

ACTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("go", re.compile(
        rf"\b(?:went|go|goes|going|walked|walk|walking|moved|headed|returned|came|visited|visit|visiting)"
        rf"(?:\s+(?:on|back|over))?(?:\s+to)?\s+{_THE}{_PLACE}\b")),
    ("open", re.compile(rf"\b(?:opened|open|opens|opening)\s+{_THE}{_PLACE}\b")),
    ("close", re.compile(rf"\b(?:closed|close|closes|closing)\s+{_THE}{_PLACE}\b")),
    ("take", re.compile(
        rf"\b(?:took|take|takes|taking|taken|picked up|pick up|picking up|grabbed|grab)\s+{_THE}{_THING}"
        rf"(?:\s+(?:from|off|out of)\s+{_THE}{_PLACE})?\b")),
    ("put", re.compile(
        rf"\b(?:put|puts|putting|placed|place|places|placing)\s+{_THE}{_THING}\s+(?:in/on|in|on|into|onto|inside)\s+"
        rf"{_THE}{_PLACE}\b")),
    ("heat", re.compile(rf"\b(?:heated|heat|heats|heating)\s+{_THE}{_THING}\s+(?:with|in|using)\s+{_THE}{_PLACE}\b")),
    ("cool", re.compile(rf"\b(?:cooled|cool|cools|cooling)\s+{_THE}{_THING}\s+(?:with|in|using)\s+{_THE}{_PLACE}\b")),
    ("clean", re.compile(rf"\b(?:cleaned|clean|cleans|cleaning)\s+{_THE}{_THING}\s+(?:with|in|using)\s+{_THE}{_PLACE}\b")),
    ("examine", re.compile(rf"\b(?:examined|examine|examines|examining|inspected)\s+{_THE}{_PLACE}\b")),
    ("use", re.compile(rf"\b(?:used|use|uses|using|turned on|turn on|switched on)\s+{_THE}{_THING}\b")),
)  # fmt: skip
"""Narrations and plans of each command, past, present or -ing; the reading decides which is which."""

AFTER_GOING_RE = re.compile(
    rf"\bafter\s+(?:i\s+(?:went|had gone|go)|going|having gone|visiting|i visited)(?:\s+back)?(?:\s+to)?\s+{_THE}"
    rf"(?P<place>{NAME})\b"
)
"""'after going to X': the step after the one that went to X."""
STEP_NUMBER_RE = re.compile(r"\b(?:step|action|turn)\s+#?(?P<number>\d+)\b")
_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
ORDINAL = {word: number for number, word in enumerate(_ORDINALS, start=1)}
ORDINAL_RE = re.compile(rf"\bthe\s+(?P<ordinal>{'|'.join(_ORDINALS)}|last|final)\s+(?:step|action|move)\b")
FAILED_STEP_RE = re.compile(r"failed step\s*:\s*>?\s*(?P<action>[^\n]*?)\s*(?:->\s*(?P<observation>[^\n]*?))?\s*(?=root cause\s*:|new plan\s*:|failed step\s*:|\n|$)")
"""The grounded template's FAILED STEP: the quoted action, and the answer it quotes after '->'."""

OCCURRENCE_RE = re.compile(
    r"\b(?:(?:the\s+)?(?P<ordinal>first|second|third|fourth|fifth|last|final)\s+time|(?P<end>at the end|in the end|"
    r"finally|at last))\b"
)
"""Which of several steps with the same action the words mean: 'the second time I went to X', 'at the end'."""
CLAUSE_END_RE = re.compile(r"[.!?;\n]+(?=\s|$)|\n")
FORWARD_RE = re.compile(
    r"\b(?:should|will|would|must|need to|needs to|have to|has to|next|plan|plans|planned|i'll|let me|make sure|"
    r"to do this|try to|remember to|going to (?:find|take|put|try|go|look|check|use|open|search)|task|goal|"
    r"says to|asked to|supposed to|in order to|to solve)\b"
)
"""Words after which a clause says what is (or was) to be done, not what happened (the task's own words too)."""
IMPERATIVE_RE = re.compile(
    r"^\W*(?:(?:new plan|plan|next|then|and|first|finally|also|so)\W+)*(?:go|open|close|take|pick|put|place|heat|"
    r"cool|clean|use|examine|find|look|check|search|grab|bring|turn)\b"
)
"""A clause that opens with an instruction: a plan."""
INSTEAD_RE = re.compile(r"\b(?:instead of|rather than)\b")
SET_ASIDE_RE = re.compile(
    r"\b(?:not|never|no|without|before|didn't|did not|don't|do not|forgot to|failed to|avoid|avoiding)\b[^,]{0,25}$"
)
"""A negation or 'before' just before a narrated action: it did not happen (then)."""
FAILURE_RE = re.compile(
    r"\b(?:nothing happen(?:s|ed)?|did nothing|fail|fails|failed|failing|could not|couldn't|can't|cannot|unable|"
    r"tried|try|trying|attempt|attempted|attempting|did not work|didn't work|no effect|invalid|not possible|"
    r"impossible|not (?:a |an )?(?:valid |known )?command|unknown command|not valid)\b"
)
"""Words that tell an action as one that did nothing."""
NOT_EXISTING_RE = re.compile(
    r"\b(?:does not exist|doesn't exist|do not exist|don't exist|did not exist|no such|is not there|isn't there|"
    r"there is no|there was no|there are no|there were no|only one)\b"
)
LOCATED_RE = re.compile(
    r"^\s*(?:(?:was|were|is|are)\s+)?(?:(?:found|located|lying|sitting|seen|kept)\s+)?(?:in/on|in|on|at|inside)\s+"
    r"(?:the\s+)?$"
)
"""What stands between a thing and the place a reflection says it was ('was found in', ' on ')."""
SAW_RE = re.compile(r"\b(?:found|saw|seen|noticed|spotted|located|find)\b")
EMPTY_RE = re.compile(rf"\b(?:the\s+)?(?P<place>{NAME})\s+(?:was|is|were|are)\s+empty\b")

CAUSE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("loop", re.compile(
        r"\b(?:loop|loops|looping|stuck|repeatedly|over and over|again and again|kept|continually|same action|"
        r"identical actions|repeated|repeating|in circles)\b")),
    ("invalid_action", re.compile(
        r"\b(?:nothing happen(?:s|ed)|did nothing|invalid|not (?:a )?valid|not admissible|does not exist|"
        r"doesn't exist|not a command|no such command|unknown command|not a known command)\b")),
    ("wrong_object", re.compile(
        r"\bwrong (?:object|item|thing)\b|"
        r"\b(?:took|picked up|grabbed) (?:the |a )?[a-z]+(?: \d+)? instead of (?:the |a |an )?(?![a-z]+ing\b)[a-z]+")),
    ("wrong_receptacle", re.compile(
        r"\bwrong (?:place|receptacle|location|spot|container)\b|\bin the wrong\b")),
    ("wrong_transformation", re.compile(
        r"\b(?:forgot|forget|forgetting|did not|didn't|never) (?:to )?(?:heat|cool|clean|wash|warm|chill)\b|"
        r"\b(?:heated|cooled|cleaned|washed) (?:it |the [a-z]+ )?instead of (?:heating|cooling|cleaning)\b")),
    ("ignored_seen_object", re.compile(
        r"\b(?:instead of|without|before|did not|didn't|never|forgot to|forgetting to) (?:taking|take|picking up|"
        r"pick up|grabbing)\b|\bshould have (?:taken|picked up|grabbed)\b|\bignored\b|"
        r"\b(?:before|without) (?:i had |i |having )?(?:picked|taken|took|grabbed) (?:it|them|the [a-z]+)(?: up)?\b")),
    ("search_budget", re.compile(
        r"\b(?:ran out of (?:steps|time|actions|moves)|out of steps|too many steps|step (?:limit|budget)|"
        r"spent (?:too long|too many|all my steps)|took too long)\b")),
)  # fmt: skip
"""A named cause, by the first pattern that matches, in this order (a loop that ended in "Nothing happens." is named
a loop)."""
