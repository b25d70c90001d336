"""An ALFWorld reflection read clause by clause: which words a clause plans, and which it narrates or sets aside.

Every pattern is matched once over the whole text and every question about a position is a binary search, so a
reflection of any length is read in time linear in its length (the rule once rescanned a clause per name, and took
88 s on 8,000 sentences).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

_CLAUSE_END_RE = re.compile(r"[.!?;\n]+|\s->\s")
# Words that make a clause a plan: what the agent meant to do, or will do.
_PLAN_RE = re.compile(
    r"\b(?:plan|planned|should|will|would|need|needs|needed|must|have to|has to|had to|try|tries|tried|trying|"
    r"attempt|attempted|attempting|going to|next|task|goal|supposed|want|wanted|intend|intended|aim|in order to|"
    r"so that|i'll|let me|make sure|ensure|remember|focus|look for|looking for|search for|searching for|find|"
    r"locate|instead of|rather than|new plan|forget|forgot|forgotten|overlook|overlooked)\b",
)
# What is still to be done (not "tried", which narrates an attempt): in "X instead of Y" it makes X the choice.
_FORWARD_RE = re.compile(
    r"\b(?:should|will|would|must|need to|needs to|have to|has to|going to|i'll|let me|next|new plan|make sure)\b",
)
# A step written as an instruction ("Take saltshaker 1 from cabinet 1 first, then ...").
_IMPERATIVE_RE = re.compile(
    r"^\W*(?:(?:new plan|plan|next|then|and|first|finally|also)\W+)*(?:find|take|pick|grab|get|put|place|go|open|"
    r"heat|cool|clean|wash|rinse|use|examine|look|search|bring|carry|move|check|turn)\b",
)
# A quoted action or observation of the episode: what happened, not a plan.
_QUOTE_RE = re.compile(r"^\W*(?:failed step\b|you see\b|on the\b|in the\b|>)")
# A negation of forgetting is a reminder, not a setting aside: "Don't forget the soapbottle" plans it.
_NOT_FORGET = r"(?!\s+(?:to\s+)?(?:forget|overlook|neglect)\b)"
_SET_ASIDE_RE = re.compile(
    rf"\b(?:(?:not|never|no){_NOT_FORGET}|without|wrong|wrongly|mistake|mistaken|mistakenly|incorrect|incorrectly|"
    rf"accidentally|before|avoid|except|other than|instead|unrelated|irrelevant)\b|n't\b{_NOT_FORGET}",
)
_STEP_VERBS = (
    r"take|pick|grab|get|put|place|find|go|use|bring|carry|move|look|search|open|heat|cool|clean|wash|rinse|examine|"
    r"check|return|deliver|drop"
)
# Where a negation's reach ends inside a clause: "I did not find the mug, so I put it in ..." negates only the finding,
# and "avoid the mug and take the soapbottle" only the mug (an "and" that starts a new step).
_SCOPE_END_RE = re.compile(
    r"[,:()]|\b(?:but|then|so|however|because|while|after|until|when|where|which|though|although|whereas)\b|"
    rf"\b(?:and|or)\s+(?:then\s+|instead\s+|also\s+)?(?:{_STEP_VERBS})\b",
)
# A comma that goes on with a list of things keeps the negation's reach: "I will not take the soapbottle 1, the cup 1,
# or the pen 1". Each further item is a bare noun phrase; the last one is cut where its name starts.
_LIST_ITEM_RE = re.compile(
    r",\s*(?:(?:and|or|nor)\s+)?(?:(?:the|a|an|any|some|my)\s+)?[a-z]+(?:[ -][a-z]+){0,2}(?:\s+\d+)?\s*"
)
_LIST_LEAD_RE = re.compile(r",\s*(?:(?:and|or|nor)\s+)?(?:(?:the|a|an|any|some|my)\s+)?")
_STEP_VERB_RE = re.compile(rf"\b(?:{_STEP_VERBS})\b")
# A name that is the subject of a plan: "the soapbottle is what I need to put on desk 1", "the cup was the one ...".
_SUBJECT_OF_PLAN_RE = re.compile(
    r"\s*(?:\d+\s+)?(?:is|was|are|were)\s+(?:what|the\s+(?:one|object|item|thing|target|goal)s?)\b"
)
_INSTEAD_RE = re.compile(r"\b(?:instead of|rather than)\b")
_WORD_RE = re.compile(r"\S+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
SET_ASIDE_WINDOW = 5
"""Words before a name in which a negation or "before" sets it aside even past a comma ("the wrong one, the knife")."""


@dataclass(frozen=True, slots=True)
class Clause:
    """text[start:end], one clause; `plan_at` and `forward_at` end its first plan and forward-looking word (None:
    none), `imperative` says it opens with an instruction, `quoted` that it quotes the episode."""

    start: int
    end: int
    quoted: bool
    imperative: bool
    plan_at: int | None
    forward_at: int | None


def _positions(pattern: re.Pattern[str], text: str) -> tuple[list[int], list[int]]:
    starts, ends = [], []
    for match in pattern.finditer(text):
        starts.append(match.start())
        ends.append(match.end())
    return starts, ends


def _first_end_within(starts: Sequence[int], ends: Sequence[int], start: int, end: int) -> int | None:
    k = bisect_left(starts, start)
    return ends[k] if k < len(starts) and ends[k] <= end else None


class ClauseReading:
    """One text's clauses and the positions of its plan, negation, scope and "instead of" words."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Every pattern is lower case and ASCII: lowering the ASCII letters once (lengths unchanged, unlike
        # str.lower) lets them run without IGNORECASE, several times faster on a long text.
        text = text.translate(_ASCII_LOWER)
        self._lower = text
        bounds, start = [], 0
        for boundary in _CLAUSE_END_RE.finditer(text):
            bounds.append((start, boundary.start()))
            start = boundary.end()
        bounds.append((start, len(text)))
        plan = _positions(_PLAN_RE, text)
        forward = _positions(_FORWARD_RE, text)
        # Each clause sliced once (the patterns are anchored at its start): linear in all.
        self.clauses = [
            Clause(
                start=s, end=e, quoted=_QUOTE_RE.match(part) is not None, imperative=_IMPERATIVE_RE.match(part) is not None,
                plan_at=_first_end_within(*plan, s, e), forward_at=_first_end_within(*forward, s, e),
            )
            for s, e in bounds
            if (part := text[s:e]).strip()
        ]  # fmt: skip
        self._clause_starts = [c.start for c in self.clauses]
        self._aside = _positions(_SET_ASIDE_RE, text)
        self._scope_ends = _positions(_SCOPE_END_RE, text)[0]
        # A word ("but", "and take") ends a negation's reach for good; a comma may go on with a list.
        self._scope_is_word = [text[at].isalpha() for at in self._scope_ends]
        self._instead = _positions(_INSTEAD_RE, text)
        self._words = _positions(_WORD_RE, text)[0]

    def clause_of(self, position: int) -> Clause:
        """The clause that holds `position` (the last one for a position past every clause)."""
        k = bisect_right(self._clause_starts, position) - 1
        return self.clauses[max(k, 0)]

    def planned(self, position: int, end: int | None = None) -> bool:
        """Whether the clause plans what stands at text[position:end]: a plan word before it, an instruction, or a
        plan it is the subject of ("the soapbottle is what I need to put on desk 1")."""
        clause = self.clause_of(position)
        if clause.quoted:
            return False
        if (clause.plan_at is not None and clause.plan_at <= position) or clause.imperative:
            return True
        return end is not None and clause.plan_at is not None and _SUBJECT_OF_PLAN_RE.match(self._lower, end) is not None

    def _continues_list(self, begin: int, start: int) -> bool:
        """Whether text[begin:start], from its first comma on, is a list of things going on to the name at `start`."""
        segment = self._lower[begin:start]
        at = segment.find(",")
        while at >= 0:
            lead = _LIST_LEAD_RE.match(segment, at)
            if lead is not None and lead.end() == len(segment):
                return True
            item = _LIST_ITEM_RE.match(segment, at)
            if item is None or not segment.startswith(",", item.end()) or _STEP_VERB_RE.search(item.group()):
                return False
            at = item.end()
        return False

    def _forward_before(self, clause: Clause, position: int) -> bool:
        return (clause.forward_at is not None and clause.forward_at <= position) or clause.imperative

    def set_aside(self, start: int, end: int) -> bool:
        """Whether the clause takes back text[start:end]. In "X instead of Y" a plan keeps X and sets Y aside ("put it
        in toilet 1 instead of desk 1"), a narration the other way ("I took the knife instead of the butterknife").
        Otherwise a negation or "before" sets it aside up to the end of its reach (a comma, "but", "then" ...), or
        within a few words whatever stands between."""
        clause = self.clause_of(start)
        starts, ends = self._instead
        k = bisect_right(ends, start) - 1
        if k >= 0 and starts[k] >= clause.start:
            return self._forward_before(clause, starts[k])
        k = bisect_left(starts, end)
        if k < len(starts) and ends[k] <= clause.end:
            return not self._forward_before(clause, start)
        aside_starts, aside_ends = self._aside
        k = bisect_right(aside_ends, start) - 1
        if k < 0 or aside_starts[k] < clause.start:
            return False
        first, last = bisect_left(self._scope_ends, aside_ends[k]), bisect_left(self._scope_ends, start)
        if first == last:
            return True  # nothing ends its reach before the name
        if any(self._scope_is_word[first:last]):
            return False
        words_before = bisect_left(self._words, start)
        window_start = self._words[max(words_before - SET_ASIDE_WINDOW, 0)] if words_before else 0
        return aside_starts[k] >= window_start or self._continues_list(aside_ends[k], start)
