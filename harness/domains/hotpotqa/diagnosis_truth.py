"""Where a failed HotpotQA trial was lost, from its supporting facts, the gold answer, and its thought and answer.

The units (`GroundTruth.steps`) are the question's supporting facts, numbered from 1 in HotpotQA's order;
`decisive_step` is the decisive supporting fact, or None where no fact was missed. The first category that applies:

1. `em_format`: the answer is right in substance: the gold's words stand in it as a whole (yes/no: it opens with the
   gold) and it offers fewer than MAX_OTHER_CANDIDATES other short candidates (a list such as "Sciences,
   Engineering, and Medicine" does not); or it stands whole in the gold (a narrower or broader form: "Maine" for
   "Bath, Maine"); or its words and the gold's overlap at token F1 >= EM_FORMAT_F1. No decisive fact.
2. `stopped_at_bridge` (bridge), the gold not in it: its content words all come from the first-hop facts and the
   question, at least one from a first-hop fact; or it opens with an intermediate entity, or names one in at most
   two more words. Decisive: the gold's fact.
3. `unsupported_answer`: a name or number of the answer occurs nowhere in the context or the question (a word is
   found when the context has it at a difflib ratio >= FUZZY_RATIO). Decisive: the gold's fact.
   Before 2: an answer that is the title of the article stating the gold, sharing a word with the gold, is the
   gold's other name: `em_format`.
4. (bridge) The thought states the gold (words the question does not have): `other`, no hop was missed. Else `hop2_misread` when the thought names an intermediate entity (decisive: the gold's fact),
   `hop1_miss` when it names none (decisive: the first first-hop fact that names one, else the last first-hop
   fact).
5. `comparison_misread` (comparison): decisive, the fact of an entity whose nationality the thought misstates
   ("both are French" against "an American screenwriter"), else None.
6. `other`.

The gold's fact is the last supporting fact whose sentence holds the gold's words as a whole, else the one sharing
most of them. The first-hop facts are those outside the gold's article; the intermediate entities are the supporting
articles' titles the question does not name (none named: the gold's article, when it is not the gold itself).
These are string rules: a thought that paraphrases is read as its words say.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

from harness.domains.hotpotqa.diagnosis_trial import (
    FailedQuestion,
    SupportingFact,
    content,
    from_record,
    is_span,
    keys,
    tokens,
)
from harness.domains.hotpotqa.judge import exact_match
from harness.domains.hotpotqa.names import find_names, numbers, words
from harness.records import TrialRecord
from harness.records.diagnosis import GroundTruth

RULE = "hotpotqa-truth/1"
MAX_OTHER_CANDIDATES = 2
"""An answer holding the gold beside this many other short candidates lists guesses: not a matter of form."""
CANDIDATE_WORDS = 3
"""A part of a listed answer counts as a candidate when it has at most this many words."""
EM_FORMAT_F1 = 0.7
"""Token F1 with the gold from which an answer is the gold in other words ("cleaning services, catering ...")."""
FUZZY_RATIO = 0.85
"""A word of the answer is found in the context at this difflib ratio (a misspelling: Babieshambles)."""

_LIST_SPLIT_RE = re.compile(r",|;|/|\band\b|\bor\b")
_NATIONALITIES = (
    "american british english scottish welsh irish canadian french italian mexican german spanish portuguese dutch "
    "belgian swiss austrian hungarian polish czech russian ukrainian romanian greek turkish swedish norwegian danish "
    "finnish icelandic australian indian pakistani chinese japanese korean brazilian argentine argentinian chilean "
    "colombian cuban egyptian israeli iranian nigerian"
)
_DEMONYMS: dict[str, str] = {
    **{name: name for name in _NATIONALITIES.split()},
    "us": "american", "usa": "american", "america": "american", "uk": "british", "britain": "british",
    "england": "english", "scotland": "scottish", "wales": "welsh", "ireland": "irish", "canada": "canadian",
    "france": "french", "italy": "italian", "mexico": "mexican", "germany": "german", "spain": "spanish",
    "netherlands": "dutch", "switzerland": "swiss", "austria": "austrian", "hungary": "hungarian",
    "poland": "polish", "russia": "russian", "sweden": "swedish", "norway": "norwegian", "denmark": "danish",
    "australia": "australian", "india": "indian", "china": "chinese", "japan": "japanese", "brazil": "brazilian",
    "argentina": "argentine",
}  # fmt: skip
"""Nationality words and the country names that say the same, read as one nationality."""


def _other_candidates(answer: str, gold: list[str]) -> int:
    parts = [tokens(part) for part in _LIST_SPLIT_RE.split(answer)]
    return sum(1 for part in parts if 0 < len(part) <= CANDIDATE_WORDS and not set(part) & set(gold))


def _f1(answer: list[str], gold: list[str]) -> float:
    common = sum(min(answer.count(word), gold.count(word)) for word in set(answer) & set(gold))
    if not common:
        return 0.0
    precision, recall = common / len(answer), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def em_format(answer: str, gold: str) -> bool:
    """Whether `answer` is `gold` in another form (rule 1)."""
    found, wanted = tokens(answer), tokens(gold)
    if not found or not wanted:
        return False
    if wanted in (["yes"], ["no"]):
        return found[0] == wanted[0]
    if is_span(wanted, found):
        return _other_candidates(answer, wanted) < MAX_OTHER_CANDIDATES
    if content(found) and is_span(found, wanted):
        return True
    return _f1(found, wanted) >= EM_FORMAT_F1


@lru_cache(maxsize=256)
def gold_fact(trial: FailedQuestion) -> SupportingFact:
    """The last fact whose sentence holds the gold's words as a whole, else the one sharing most of them."""
    wanted = tokens(trial.gold)
    holding = [fact for fact in trial.facts if is_span(wanted, tokens(fact.sentence))]
    if holding:
        return holding[-1]
    return max(reversed(trial.facts), key=lambda fact: len(set(wanted) & set(tokens(fact.sentence))))


def first_hop(trial: FailedQuestion) -> list[SupportingFact]:
    """The facts outside the gold's article."""
    article = gold_fact(trial).title
    return [fact for fact in trial.facts if fact.title != article]


def intermediate_entities(trial: FailedQuestion) -> list[str]:
    """The supporting articles' titles the question does not name and the gold is not."""
    named, gold = keys(trial.question), keys(trial.gold)
    articles = list(dict.fromkeys(fact.article for fact in trial.facts))
    unnamed = [a for a in articles if not keys(a) <= named and keys(a) != gold]
    if unnamed:
        return unnamed
    article = gold_fact(trial).article
    return [article] if not keys(article) <= gold else []


def names_entity(text: str, entity: str) -> bool:
    """Whether `text` names `entity`: every word of the entity's name, or two thirds of a long one (a word found at
    a difflib ratio >= FUZZY_RATIO: "Tunisian" names "Tunisia")."""
    wanted, found = keys(entity), keys(text)
    if not wanted:
        return False
    shared = sum(_found(word, found) for word in wanted)
    return shared == len(wanted) or (len(wanted) >= 3 and shared * 3 >= len(wanted) * 2)


def stopped_at_bridge(trial: FailedQuestion, answer: str) -> bool:
    """Rule 2: the answer is what the first hop says, or opens with the intermediate entity."""
    hop = first_hop(trial)
    if trial.kind != "bridge" or not hop:
        return False
    found = content(tokens(answer))
    hop_words = {word for fact in hop for word in tokens(fact.sentence)}
    if found and set(found) <= hop_words | set(tokens(trial.question)) and set(found) & hop_words:
        return True
    said = tokens(answer)
    if is_span(tokens(trial.gold), said):
        return False
    return any(
        said[: len(tokens(e))] == tokens(e) or (names_entity(answer, e) and len(said) <= len(tokens(e)) + 2)
        for e in intermediate_entities(trial)
        if tokens(e)
    )


def other_name(trial: FailedQuestion, answer: str) -> bool:
    """The answer is the title of the very article that states the gold, and shares a word with the gold: the gold's
    other name ("The International Imitation Hemingway Competition" for "The Bad Hemingway Contest")."""
    fact = gold_fact(trial)
    said, wanted = tokens(answer), tokens(trial.gold)
    return said == tokens(fact.article) and bool(set(content(said)) & set(wanted)) and is_span(
        wanted, tokens(fact.sentence)
    )


def thought_states_gold(trial: FailedQuestion) -> bool:
    """On a bridge question, the thought holds the gold's words and the question does not (a comparison's thought
    quotes both entities' facts, so holding the gold says nothing there)."""
    wanted = tokens(trial.gold)
    if trial.kind != "bridge" or is_span(wanted, tokens(trial.question)):
        return False
    return is_span(wanted, tokens(trial.thought))


def _found(word: str, known: AbstractSet[str]) -> bool:
    return word in known or any(difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_RATIO for other in known)


def unsupported(trial: FailedQuestion, answer: str) -> bool:
    """Rule 3: a name or number of the answer is nowhere in the context or the question."""
    known = keys(trial.context) | keys(trial.question)
    found = words(answer)
    if any(not all(_found(word.key, known) for word in name.words) for name in find_names(answer, found)):
        return True
    return any(word.key not in known for word in numbers(found))


def _nationalities(text: str) -> set[str]:
    return {_DEMONYMS[word] for word in (w.text.lower() for w in words(text)) if word in _DEMONYMS}


def misstated_nationality(trial: FailedQuestion) -> SupportingFact | None:
    """The first fact of an entity whose nationality the thought states otherwise (rule 5)."""
    said = _nationalities(trial.thought)
    if not said:
        return None
    for fact in trial.facts:
        stated = _nationalities(fact.sentence)
        if stated and not stated & said:
            return fact
    return None


def _truth(trial: FailedQuestion, category: str, decisive: SupportingFact | None, **facts: str) -> GroundTruth:
    return GroundTruth(
        domain="hotpotqa",
        task_id=trial.task_id,
        rule=RULE,
        scored=True,
        steps=len(trial.facts),
        decisive_step=decisive.number if decisive else None,
        category=category,
        error_steps=[decisive.number] if decisive else [],
        decisive_text=decisive.sentence if decisive else None,
        facts={"answer_read": trial.given_answer or "", "gold_fact": str(gold_fact(trial).number), **facts},
    )


def _hop(trial: FailedQuestion) -> GroundTruth:
    entities = intermediate_entities(trial)
    named = [entity for entity in entities if names_entity(trial.thought, entity)]
    if named:
        return _truth(trial, "hop2_misread", gold_fact(trial), intermediate=", ".join(named))
    hop = first_hop(trial) or list(trial.facts[:1])
    naming = [fact for fact in hop if any(names_entity(fact.sentence, entity) for entity in entities)]
    return _truth(trial, "hop1_miss", (naming or hop[-1:])[0], intermediate=", ".join(entities))


def question_truth(trial: FailedQuestion) -> GroundTruth:
    """The ground truth of one failed trial (the module's rules, in order)."""
    answer = trial.given_answer
    if answer is not None and exact_match(answer, trial.gold):
        return _truth(trial, "em_format", None, note="the answer matches once the stray text is cut off")
    if answer is not None and em_format(answer, trial.gold):
        return _truth(trial, "em_format", None)
    if answer is not None and other_name(trial, answer):
        return _truth(trial, "em_format", None, note="the answer is the gold's other name")
    if answer is not None and stopped_at_bridge(trial, answer):
        return _truth(trial, "stopped_at_bridge", gold_fact(trial))
    if answer is not None and unsupported(trial, answer):
        return _truth(trial, "unsupported_answer", gold_fact(trial))
    if thought_states_gold(trial):
        return _truth(trial, "other", None, note="the thought states the gold answer")
    if trial.kind == "bridge":
        return _hop(trial)
    return _truth(trial, "comparison_misread", misstated_nationality(trial))


def unscored(task_id: str, reason: str) -> GroundTruth:
    return GroundTruth(domain="hotpotqa", task_id=task_id, rule=RULE, scored=False, unscored=reason)


def record_truth(record: TrialRecord) -> GroundTruth:
    """The spec's `truth`: a failed trial's record -> its ground truth (unscored for a success)."""
    if record.success:
        return unscored(record.task_id, "the trial succeeded: there is nothing to diagnose.")
    return question_truth(from_record(record))
