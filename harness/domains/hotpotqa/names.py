"""The names a HotpotQA reflection uses, as a reader lists them: capitalised words, their runs, and numbers.

A name is a run of capitalised words (with the small words names carry inside them: "Master of Science", "Gesellschaft
mit beschränkter Haftung"), read on the normalised text. A sentence's first word is capitalised by grammar, so it
starts a name only if it is no common word; common words are those the shipped questions' Wikipedia paragraphs and
Reflexion's prompts write in lower case. The prompt's own words (Thought, Finish, Search, the harness's FAILED STEP)
and calendar words are never names. A word is compared by its key: accents and case folded, a plural's s dropped;
a possessive's 's is no part of it ("Kent Baer's" is "Kent Baer").
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from harness.domains.hotpotqa.questions import load_questions
from harness.domains.hotpotqa.signals import ACTION_FORMAT
from harness.domains.normalized_text import fold_accents
from harness.llm.prompts import read_prompt

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "hotpotqa"
PROMPTS_FILE = DATA_DIR / "reflexion_prompts.py.txt"
FEWSHOTS_FILE = DATA_DIR / "reflexion_fewshots.py.txt"
# The harness's own instructions for HotpotQA reflections (its labels FAILED STEP, ROOT CAUSE, NEW PLAN).
_HARNESS_INSTRUCTIONS = ("hotpotqa/grounded_template_query.txt", "hotpotqa/programmatic_signals.txt")

_TOKEN_RE = re.compile(r"[^\W_]+")
# A label that opens a line ("Thought 1:", "Relevant Context:", "FAILED STEP:") or an action ("Finish[", "Search[").
_FORMAT_RE = re.compile(r"^([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)?)(?: \d+)?:|\b([A-Z][A-Za-z]*)\[", re.MULTILINE)
_CLITICS = frozenset({"s", "t", "ll", "re", "ve", "d", "m"})
_APOSTROPHES = frozenset("'\u2019")
# Small words a name may hold between its capitalised words.
CONNECTORS = frozenset({"of", "the", "and", "de", "la", "le", "du", "des", "von", "van", "der", "del", "da", "di", "mit",
                        "y", "for", "in", "on", "at", "vs", "&"})  # fmt: skip
# What may stand between two words of one name: spaces, a hyphen or dash, "&", a possessive ("Mark Masons' Hall",
# "Nick Park's Chicken Run"), the period of an initial or an abbreviation ("P. L. Travers", "St. James's Palace").
_INSIDE_RUN = re.compile(r"(?:['\u2019]s?)?[\s\-\u2013&]+|\.\s+")
_ABBREVIATIONS = frozenset({"st", "co", "jr", "sr", "mr", "dr", "ms", "mt", "ft", "inc", "ltd", "vs"})
_SENTENCE_ENDS = frozenset("\n.!?:;*\u2022")
_QUOTES = "\"'([{`\u201c\u2018"
_ENDINGS = ("ly", "ing", "ed", "ie", "es")
"""Inflections taken off a word to find it in the common words (keys have a plural's s off already)."""
_TAILS = ("", "e", "y")
_CALENDAR = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                       "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                       "sunday"})  # fmt: skip


@lru_cache(maxsize=1 << 16)
def word_key(word: str) -> str:
    """`Śivarāma` -> `sivarama`, `Panabakers` -> `panabaker`: what two spellings of one word share."""
    key = fold_accents(word)
    return key[:-1] if len(key) > 3 and key.endswith("s") and not key.endswith("ss") else key


@dataclass(frozen=True, slots=True)
class Word:
    """text[start:end], one word; `key` its comparison form."""

    start: int
    end: int
    text: str
    key: str


@dataclass(frozen=True, slots=True)
class Name:
    """text[start:end], one name: its words (connectors left out); `opening` when it opens a sentence, where a word
    is capitalised by grammar as much as by being a name."""

    start: int
    end: int
    words: tuple[Word, ...]
    opening: bool

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(word.key for word in self.words)


def words(text: str) -> list[Word]:
    """The text's words, without the clitics after an apostrophe ("Baer's" is Baer, "don't" is don)."""
    found = []
    for match in _TOKEN_RE.finditer(text):
        word = match.group()
        if match.start() > 0 and text[match.start() - 1] in _APOSTROPHES and word.lower() in _CLITICS:
            continue
        found.append(Word(start=match.start(), end=match.end(), text=word, key=word_key(word)))
    return found


def _lower_words(text: str) -> set[str]:
    return {word.key for word in words(text) if word.text.islower()}


@cache
def common_words() -> frozenset[str]:
    """Keys of words written in lower case in the shipped questions' paragraphs or in Reflexion's prompts."""
    common: set[str] = set()
    for question in load_questions():
        for sentences in question.context.sentences:
            common |= _lower_words("".join(sentences))
    common |= _lower_words(PROMPTS_FILE.read_text(encoding="utf-8"))
    common |= _lower_words(FEWSHOTS_FILE.read_text(encoding="utf-8"))
    return frozenset(common)


@cache
def prompt_words() -> frozenset[str]:
    """The prompts' format words, as written: a capitalised word that opens a label or an action ("Thought 1:",
    "Relevant Context:", "Finish[", "Search[", "FAILED STEP:", the signal's "Type[argument]"); the calendar's words
    and "I". Never a name."""
    texts = [
        PROMPTS_FILE.read_text(encoding="utf-8"), FEWSHOTS_FILE.read_text(encoding="utf-8"),
        *map(read_prompt, _HARNESS_INSTRUCTIONS), ACTION_FORMAT,
    ]  # fmt: skip
    # As written: the harness's "NEW PLAN:" makes NEW a format word, not the New of New York.
    labels = {word.text for text in texts for m in _FORMAT_RE.finditer(text) for word in words(m.group(1) or m.group(2))}
    return frozenset(labels | {w.capitalize() for w in _CALENDAR} | {"I"})


def is_common(key: str) -> bool:
    """Whether a word is a common word in some inflection ("thoroughly", "synthesize", "identifying", "apologies"):
    the paragraphs write each word in only some of its forms."""
    common = common_words()
    if key in common:
        return True
    stems = [key[: -len(end)] for end in _ENDINGS if key.endswith(end) and len(key) - len(end) >= 3]
    return any(stem + tail in common for stem in [key, *stems] for tail in _TAILS)


def _capitalised(word: Word) -> bool:
    return word.text[0].isupper() or (word.text[0].isdigit() and not word.text.isdigit())


def _opens_sentence(text: str, start: int) -> bool:
    """After . ! ? : ; or a line's end (a quote or a bracket may stand between): capitalised by grammar."""
    before = text[max(0, start - 4) : start].rstrip(" \t").rstrip(_QUOTES)
    return not before or before[-1] in _SENTENCE_ENDS


def _opens_quote(text: str, start: int) -> bool:
    """Right after a quote or a bracket: a quoted sentence's first word, or a name quoted inside a sentence."""
    return start > 0 and text[start - 1] in _QUOTES


def _is_name_word(word: Word, common: frozenset[str], format_words: frozenset[str]) -> bool:
    if word.text in format_words or word.text.lower() in CONNECTORS:
        return False
    if word.text.isupper() and len(word.text) > 1 and word.key in common:
        return False  # a shouted common word: END OF EXAMPLES, ROOT CAUSE
    return _capitalised(word)


def _by_grammar(text: str, word: Word) -> bool:
    """Whether a capitalised word is so only as a sentence's first word: a common word there (in some inflection),
    or a label before a colon ("Diagnosis: ..."); after a quote, only a common word as written ("How many ...")."""
    if _opens_sentence(text, word.start):
        return is_common(word.key) or text.startswith(":", word.end)
    return _opens_quote(text, word.start) and word.key in common_words()


def _joins(text: str, before: Word, word: Word) -> bool:
    between = _INSIDE_RUN.fullmatch(text, before.end, word.start)
    if between is None:
        return False
    initial = len(before.text) == 1 or before.key in _ABBREVIATIONS
    return not between.group().startswith(".") or initial


def find_names(text: str, found: list[Word] | None = None) -> list[Name]:
    """Every name of `text` (already normalised), in order."""
    common, format_words = common_words(), prompt_words()
    all_words = words(text) if found is None else found
    names: list[Name] = []
    run: list[Word] = []

    def close() -> None:
        kept = [w for w in run if w.text.lower() not in CONNECTORS]
        while run and run[-1].text.lower() in CONNECTORS:
            run.pop()
        if kept:
            opening = _opens_sentence(text, run[0].start) and not _opens_quote(text, run[0].start)
            names.append(Name(start=run[0].start, end=run[-1].end, words=tuple(kept), opening=opening))
        run.clear()

    for word in all_words:
        if run and not _joins(text, run[-1], word):
            close()
        if _is_name_word(word, common, format_words):
            if run or not _by_grammar(text, word):
                run.append(word)
        elif run and word.text.lower() in CONNECTORS:
            run.append(word)
        elif run:
            close()
    close()
    return names


def numbers(found: list[Word]) -> list[Word]:
    """The words that are numbers of two digits or more (a year, a count): a name when the question has them."""
    return [word for word in found if word.text.isdigit() and len(word.text) >= 2]


class Sentences:
    """Where a text's sentences start, to tell which names share one: a split after . ! ? ; or a line's end."""

    # Not after an initial ("M. Night") or a short abbreviation ("St. James's").
    _END_RE = re.compile(r"(?<!\b[A-Z])(?<!\b(?:St|Co|Jr|Sr|Mr|Dr|Ms|Mt|vs))[.!?;]+(?=\s)|\n+")

    def __init__(self, text: str) -> None:
        self._starts = [0] + [match.end() for match in self._END_RE.finditer(text)]

    def of(self, position: int) -> int:
        """The index of the sentence that holds `position`."""
        return bisect_right(self._starts, position) - 1
