"""One home for the task kinds: what a judgment of each kind is, its score range and the
words the pages use for its items. Pure (no Django): ``annotations.models.TaskKind`` holds
the same values as database choices, and the texts participants read per kind (scales,
guidelines, default checks) are ``studies.defaults``'s. A new task kind gets its record
here, its ``TaskKind`` member and its texts there; studies, predictions and dashboards read
these records instead of branching on the kind.
"""

from __future__ import annotations

from dataclasses import dataclass

SCORE_MIN, SCORE_MAX = 1, 5
SENSE_CANDIDATES_MAX = 10


@dataclass(frozen=True)
class Kind:
    value: str
    # inclusive (lowest, highest) score; a sense-choice score is the chosen candidate's
    # 0-based index
    score_range: tuple[int, int]
    graded: bool  # scores are points on a scale (means, agreement), not a choice
    item_nouns: tuple[str, str]  # (singular, plural) of one item on the participant pages
    items: str  # what one sample is, in the researchers' pages' sentences
    axis: str  # what a chart's score axis is called
    by_ending: bool = False  # stories come open-ended or with an ending (AmbiStory)
    # the score that answers "cannot decide": a valid answer, left out of means and medians
    undecided: int | None = None
    # two sentences (a setup's precontext and sentence) whose order a study counterbalances
    sentence_pairs: bool = False
    # a study of this kind grows by rounds of new samples (``wug.crowd``): never fixed lists
    grows_in_rounds: bool = False


PLAUSIBILITY = Kind(
    "plausibility",
    (SCORE_MIN, SCORE_MAX),
    graded=True,
    item_nouns=("sample", "samples"),
    items="stories",
    axis="score",
    by_ending=True,
)
# RAW-C's 0 "totally unrelated" .. 4 "same meaning"
RELATEDNESS = Kind(
    "relatedness",
    (0, 4),
    graded=True,
    item_nouns=("pair", "pairs"),
    items="sentence pairs",
    axis="relatedness",
    sentence_pairs=True,
)
SENSE_CHOICE = Kind(
    "sense_choice",
    (0, SENSE_CANDIDATES_MAX - 1),
    graded=False,
    item_nouns=("sentence", "sentences"),
    items="sense-choice items",
    axis="candidate",
)
# DURel (Schlechtweg et al.): 1 unrelated .. 4 identical, 0 "cannot decide"; the samples are
# use pairs of a word usage graph (the ``wug`` app makes them and owns the pair of each)
USE_PAIR = Kind(
    "use_pair",
    (0, 4),
    graded=True,
    item_nouns=("pair", "pairs"),
    items="use pairs",
    axis="proximity",
    undecided=0,
    grows_in_rounds=True,
)
KINDS: dict[str, Kind] = {k.value: k for k in (PLAUSIBILITY, RELATEDNESS, SENSE_CHOICE, USE_PAIR)}


def kind(value: str | None) -> Kind:
    """The record of task kind ``value`` (plausibility when none is given); KeyError for
    an unknown one."""
    return KINDS[value or PLAUSIBILITY.value]


def is_decided(value: str | None, score: int) -> bool:
    """Whether ``score`` is a point on the scale of kind ``value`` (not its "cannot decide"
    answer): only decided scores enter means, SDs, agreement and adaptive intervals
    (``annotations.models.decided_ratings`` is the same rule as a query filter)."""
    undecided = kind(value).undecided
    return undecided is None or score != undecided


def check_passes(value: str | None, *, expected: int, tolerance: int, score: int) -> bool:
    """Whether an answer ``score`` passes a check question expecting ``expected`` within
    ``tolerance`` in a study of kind ``value``: "cannot decide" never passes a check that
    expects a decision (it is not a point next to 1 on the DURel scale)."""
    undecided = kind(value).undecided
    if undecided is not None and score == undecided != expected:
        return False
    return abs(int(score) - expected) <= tolerance
