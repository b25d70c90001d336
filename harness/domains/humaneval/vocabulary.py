"""Each HumanEval problem's own vocabulary, and how distinctive each of its words is among the 164.

A problem is named by its function (and the helpers its prompt defines), its parameters, the words of its docstrings
and comments (what the function must do), and its examples' values. A word many docstrings use ("list", "return",
"integer") tells no problem from another; its weight is its inverse document frequency over the 164 problems, so
"carrots", "palindrome" or "coefficients" weigh much more than "sort" or "even". Words are compared by a stem: case
folded, a plural's or a verb's ending and a final e taken off ("sorts", "sorted", "sorting" are one word).
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache

from envs.humaneval import HumanEvalProblem, load_problems

_WORD_RE = re.compile(r"[A-Za-z]+")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_COMMENT_RE = re.compile(r"#[^\n]*")
_STRING_RE = re.compile(r"\"([^\"\n]{3,})\"|'([^'\n]{3,})'")
_LIST_RE = re.compile(r"\[[^\[\]\n]*,[^\[\]\n]*\]")
_IRREGULAR = {"indices": "index", "indicies": "index", "vertices": "vertex", "matrices": "matrix"}
# Words of every problem, of the language or of the harness's feedback: they name no problem (the rubric's "generic
# programming vocabulary": the list, the string, the input, edge cases, the loop, test cases, the function ...).
GENERIC = frozenset(
    """a an the and or of to in on at by for with from as is are was were be been being it its this that these those
    if then else not no but which when where what who how all any each every some such only also so than into there
    their they we you your our i me my should will would can could may might must do does did done has have had
    given return returns returned function functions def list lists string strings integer integers number numbers
    int float str bool true false none input inputs output outputs value values element elements item items array
    arrays result results example examples note case cases test tests error errors code implementation variable
    variables parameter parameters argument arguments loop loops edge correct correctly incorrect incorrectly wrong
    handle handles check checks checking use uses using used instead because fail fails failed failing issue issues
    problem statement need needs needed make makes made want get gets got returning type types python rust vec
    vector usize isize u32 u64 i32 i64 f32 f64 unwrap clone iter collect mut impl fn let struct syntax indentation
    indent indented compile compiler borrow bracket brackets parenthesis curly brace braces eof line lines print
    about again almost along already also although always among another anything around behind cannot either
    enough especially ever except following further here however many moreover much neither never nor now often
    otherwise out per perhaps rather several since still therefore though through thus together too unless until
    upon very via well whether while whose why within without yet necessarily current currently exist exists
    existing""".split()
)
MIN_TERM = 3
"""Letters a term needs: "b", "bb", "xs" in a docstring's examples are values, not words of its job."""


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """`Sorted` -> `sort`, `vowels` -> `vowel`, `spaces` -> `spac`, `indices` -> `index`: one key per word."""
    word = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for ending, keep in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("ing", ""),
                         ("ed", ""), ("s", "")):  # fmt: skip
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not (ending == "s" and word.endswith("ss")):
            word = word[: -len(ending)] + keep
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


GENERIC_STEMS = frozenset(stem(word) for word in GENERIC)


def identifier_words(identifier: str) -> list[str]:
    """`sum_of_digits` -> sum, of, digits; `minPath` -> min, Path."""
    return [part for piece in identifier.split("_") for part in _CAMEL_RE.findall(piece)]


def name_key(identifier: str) -> str:
    """How two spellings of one function name compare: case and underscores ignored (`minPath`, `min_path`)."""
    return identifier.replace("_", "").lower()


@dataclass(frozen=True, slots=True)
class ProblemVocabulary:
    """One problem's functions (its entry point and helpers), parameters, terms (stems), its terms' pairs as its
    docstring writes them next to each other ("two digit" of "at most two digits"), and example values."""

    task_id: str
    entry_point: str
    functions: frozenset[str]
    parameters: frozenset[str]
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    examples: frozenset[str]


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [node for node in tree.body if isinstance(node, ast.FunctionDef)]


def term_sequence(words: list[str]) -> list[str]:
    """The stems of `words` that may name a job (neither generic nor too short), in order."""
    return [key for key in map(stem, words) if len(key) >= MIN_TERM and key not in GENERIC_STEMS]


def text_terms(words: list[str]) -> set[str]:
    return set(term_sequence(words))


def term_pairs(sequence: list[str]) -> set[tuple[str, str]]:
    """Neighbouring terms, generic words between them left out: a phrase of the job, as a pair."""
    return {(a, b) for a, b in zip(sequence, sequence[1:]) if a != b}


def problem_vocabulary(problem: HumanEvalProblem) -> ProblemVocabulary:
    """What of the prompt names this problem."""
    tree = ast.parse(problem.prompt)
    functions = _functions(tree)
    names = {f.name for f in functions} | {problem.entry_point}
    parameters = {a.arg for f in functions for a in f.args.args}
    # Every string standing as a statement of a function: max_fill's docstring follows an `import math`.
    docs = " ".join(
        node.value.value
        for f in functions
        for node in f.body
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    )
    prose = docs + " " + " ".join(_COMMENT_RE.findall(problem.prompt))
    sequence = term_sequence(_WORD_RE.findall(prose))
    terms = set(sequence) | text_terms([w for n in names for w in identifier_words(n)])
    strings = {a or b for a, b in _STRING_RE.findall(docs)}
    lists = {"".join(m.split()) for m in _LIST_RE.findall(docs)}
    return ProblemVocabulary(
        task_id=problem.task_id, entry_point=problem.entry_point, functions=frozenset(names),
        parameters=frozenset(parameters), terms=frozenset(terms), pairs=frozenset(term_pairs(sequence)),
        examples=frozenset(strings | lists),
    )  # fmt: skip


@cache
def vocabularies() -> dict[str, ProblemVocabulary]:
    """Every problem's vocabulary, by task id."""
    return {problem.task_id: problem_vocabulary(problem) for problem in load_problems()}


@cache
def term_weights() -> dict[str, float]:
    """Each term's inverse document frequency over the problems: log(problems / problems using it)."""
    every = vocabularies().values()
    counts: Counter[str] = Counter(term for vocabulary in every for term in vocabulary.terms)
    return {term: math.log(len(every) / n) for term, n in counts.items()}


@cache
def function_owners() -> dict[str, frozenset[str]]:
    """Each function name's key and the problems whose prompts define it (sort_array is two problems')."""
    owners: dict[str, set[str]] = {}
    for vocabulary in vocabularies().values():
        for name in vocabulary.functions:
            owners.setdefault(name_key(name), set()).add(vocabulary.task_id)
    return {key: frozenset(ids) for key, ids in owners.items()}


@cache
def term_owners() -> dict[str, tuple[str, ...]]:
    """Each term and the problems whose docstrings use it."""
    owners: dict[str, list[str]] = {}
    for vocabulary in vocabularies().values():
        for term in vocabulary.terms:
            owners.setdefault(term, []).append(vocabulary.task_id)
    return {term: tuple(ids) for term, ids in owners.items()}


@cache
def pair_owners() -> dict[tuple[str, str], tuple[str, ...]]:
    """Each pair of neighbouring terms and the problems whose docstrings write it."""
    owners: dict[tuple[str, str], list[str]] = {}
    for vocabulary in vocabularies().values():
        for pair in vocabulary.pairs:
            owners.setdefault(pair, []).append(vocabulary.task_id)
    return {pair: tuple(ids) for pair, ids in owners.items()}
