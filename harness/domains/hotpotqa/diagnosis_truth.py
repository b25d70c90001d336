"""Where a failed HotpotQA trial was lost, from its supporting facts, the gold answer, and its thought and answer.

The units (`GroundTruth.steps`) are the question's supporting facts, numbered from 1 in HotpotQA's order;
`decisive_step` is the decisive supporting fact, or None where no fact was missed. The first category that applies:

1. `em_format`, no decisive fact: the answer is right in substance. The gold's words stand in it as a whole (yes/no:
   it opens with the gold) and it offers fewer than MAX_OTHER_CANDIDATES other short candidates (a list such as
   "Sciences, Engineering, and Medicine" does not); or its content words all stand in the gold (a narrower or
   broader form: "Maine" for "Bath, Maine"); or the two overlap at F1 >= EM_FORMAT_F1 on their content words; or,
   on a bridge question, it holds every uncommon word of the gold ("... in Aldenham, England" for "in the village
   of Aldenham"), or names the gold's own subject otherwise (`same_entity`: "Juliet Marion Hulme", born so, for
   "Anne Perry").
2. `stopped_at_bridge` (bridge), the gold not in it: its content words come from the first-hop facts and the
   question (one common word may stand outside), at least one from a first-hop fact; or it opens with an
   intermediate entity, or names one with at most one more word. Decisive: the gold's fact.
3. `unsupported_answer`: an uncommon word of a name, or a number, of the answer occurs nowhere in the context or the
   question (found at a difflib ratio >= FUZZY_RATIO counts: "Babieshambles"). Decisive: the gold's fact.
4. (bridge) The thought states the gold (words the question does not have, not as one of a listed answer's
   candidates): `other`, no hop was missed. Else `hop2_misread` when the thought names an intermediate entity
   (decisive: the gold's fact), `hop1_miss` when it names none (decisive: the first first-hop fact that names one,
   else the other fact sharing most words with the question).
5. `comparison_misread` (comparison): decisive, the fact of an entity whose nationality the thought misstates (the
   one it gives both, "both of them are Italian", against "a Mexican film director"), else None.
6. `other`.

The gold's fact is the last supporting fact whose sentence holds the gold's words as a whole, else the one sharing
most of them. The first-hop facts are those outside the gold's article; the intermediate entities are the supporting
articles' titles the question does not name, by their words or their capitals' initials (none left: the gold's
article, when it is not the gold itself). Words are EM's normalised words, or names.py's keys (case, accents, a
plural's s folded). These are string rules: a thought that paraphrases is read as its words say.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

from harness.domains.hotpotqa.diagnosis_trial import (
    STOPWORDS,
    FailedQuestion,
    SupportingFact,
    content,
    from_record,
    is_span,
    keys,
    tokens,
)
from harness.domains.hotpotqa.judge import exact_match
from harness.domains.hotpotqa.names import (
    CONNECTORS,
    find_names,
    is_common,
    numbers,
    word_key,
    words,
)
from harness.records import TrialRecord
from harness.records.diagnosis import GroundTruth

RULE = "hotpotqa-truth/2"
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


def content_keys(text: str) -> set[str]:
    """The text's word keys but the stop words and the connectors of names ("of", "the")."""
    return {word.key for word in words(text) if word.key not in STOPWORDS and word.text.lower() not in CONNECTORS}


def _f1(answer: set[str], gold: set[str]) -> float:
    common = len(answer & gold)
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
    said, gold_keys = content_keys(answer), content_keys(gold)
    if said and said <= gold_keys:
        return True
    return _f1(said, gold_keys) >= EM_FORMAT_F1


def holds_uncommon_gold(trial: FailedQuestion, answer: str) -> bool:
    """On a bridge question, every uncommon word of the gold (a name's) stands in the answer, and the answer lists no
    other candidates: it gives the gold's place or name inside more words."""
    uncommon = {key for key in content_keys(trial.gold) if not is_common(key)}
    if trial.kind != "bridge" or not uncommon or not uncommon <= content_keys(answer):
        return False
    return _other_candidates(answer, tokens(trial.gold)) < MAX_OTHER_CANDIDATES


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


def _initials(title: str) -> str:
    return "".join(word.text[0] for word in words(title) if word.text[0].isupper()).lower()


def named_in_question(trial: FailedQuestion, title: str) -> bool:
    """Every word of the title is in the question, or its capitals' initials are ("MS" names Master of Science)."""
    initials = _initials(title)
    return keys(title) <= keys(trial.question) or (len(initials) >= 2 and initials in keys(trial.question))


def intermediate_entities(trial: FailedQuestion) -> list[str]:
    """The supporting articles' titles the question does not name and the gold is not."""
    gold = keys(trial.gold)
    articles = list(dict.fromkeys(fact.article for fact in trial.facts))
    unnamed = [a for a in articles if not named_in_question(trial, a) and keys(a) != gold]
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
    said = tokens(answer)
    if is_span(tokens(trial.gold), said):
        return False
    found = set(content(said))
    hop_words = {word for fact in hop for word in tokens(fact.sentence)}
    outside = found - hop_words - set(tokens(trial.question))
    # One common word around a first-hop name is still that name ("Dylan in the Movie").
    loose = len(found) >= 2 and len(outside) == 1 and is_common(word_key(next(iter(outside))))
    if found & hop_words and (not outside or loose):
        return True
    return any(
        said[: len(tokens(e))] == tokens(e) or (names_entity(answer, e) and len(said) <= len(tokens(e)) + 1)
        for e in intermediate_entities(trial)
        if tokens(e)
    )


def same_entity(trial: FailedQuestion, answer: str) -> bool:
    """On a bridge question whose gold names the subject of its own article (a word of the title before any comma),
    the answer names that subject too: it shares such a word, or its sentence gives it as the subject's other name
    ("born ... as", "known as", "or"), and every word of the answer is in the supporting facts ("The International
    Imitation Hemingway Competition" for "The Bad Hemingway Contest", "Juliet Marion Hulme" for "Anne Perry")."""
    if trial.kind != "bridge":
        return False
    fact = gold_fact(trial)
    head = content_keys(fact.article.split(",")[0])
    said = content_keys(answer)
    supporting = set().union(*(keys(f.sentence) | keys(f.title) for f in trial.facts))
    if not (content_keys(trial.gold) & head and said and said <= supporting):
        return False
    alias = re.search(rf"\b(?:as|or|n[eé]e)\s+{re.escape(answer.strip())}\b", fact.sentence) is not None
    return bool(said & head) or alias


def thought_states_gold(trial: FailedQuestion, answer: str | None) -> bool:
    """On a bridge question, the thought holds the gold's words and the question does not (a comparison's thought
    quotes both entities' facts, so holding the gold says nothing there), and the answer does not list it among
    other candidates (then the thought listed it as one of several guesses)."""
    wanted = tokens(trial.gold)
    if trial.kind != "bridge" or is_span(wanted, tokens(trial.question)):
        return False
    if answer is not None and _other_candidates(answer, wanted) >= MAX_OTHER_CANDIDATES:
        return False
    return is_span(wanted, tokens(trial.thought))


def _found(word: str, known: AbstractSet[str]) -> bool:
    return word in known or any(difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_RATIO for other in known)


def unsupported(trial: FailedQuestion, answer: str) -> bool:
    """Rule 3: a name or number of the answer is nowhere in the context or the question."""
    known = keys(trial.context) | keys(trial.question)
    found = words(answer)
    names = find_names(answer, found)
    if any(not _found(w.key, known) and not is_common(w.key) for name in names for w in name.words):
        return True
    return any(word.key not in known for word in numbers(found))


def _nationalities(text: str) -> set[str]:
    return {_DEMONYMS[word] for word in (w.text.lower() for w in words(text)) if word in _DEMONYMS}


_BOTH_RE = re.compile(r"\bboth\b[^.]{0,30}?\b(?:are|were|is|from)\s+(?:from\s+)?(?:the\s+)?(\w+)", re.IGNORECASE)


def misstated_nationality(trial: FailedQuestion) -> SupportingFact | None:
    """The first fact of an entity whose nationality the thought states otherwise (rule 5): the one it gives both
    ("both of them are Italian"), else every one it names."""
    both = [m.group(1) for m in _BOTH_RE.finditer(trial.thought)]
    said = _nationalities(" ".join(both)) or _nationalities(trial.thought)
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
    naming = [fact for fact in first_hop(trial) if any(names_entity(fact.sentence, e) for e in entities)]
    if naming:
        return _truth(trial, "hop1_miss", naming[0], intermediate=", ".join(entities))
    others = [fact for fact in trial.facts if fact != gold_fact(trial)] or list(trial.facts)
    asked = keys(trial.question)
    linking = max(others, key=lambda fact: len(content_keys(fact.sentence) & asked))
    return _truth(trial, "hop1_miss", linking, intermediate=", ".join(entities))


def question_truth(trial: FailedQuestion) -> GroundTruth:
    """The ground truth of one failed trial (the module's rules, in order)."""
    answer = trial.given_answer
    if answer is not None and exact_match(answer, trial.gold):
        return _truth(trial, "em_format", None, note="the answer matches once the stray text is cut off")
    if answer is not None and em_format(answer, trial.gold):
        return _truth(trial, "em_format", None)
    if answer is not None and holds_uncommon_gold(trial, answer):
        return _truth(trial, "em_format", None, note="the answer holds the gold's names inside more words")
    if answer is not None and same_entity(trial, answer):
        return _truth(trial, "em_format", None, note="the answer names the gold's subject otherwise")
    if answer is not None and stopped_at_bridge(trial, answer):
        return _truth(trial, "stopped_at_bridge", gold_fact(trial))
    if answer is not None and unsupported(trial, answer):
        return _truth(trial, "unsupported_answer", gold_fact(trial))
    if thought_states_gold(trial, answer):
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
