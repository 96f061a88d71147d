"""Which of a pair's two sentences a participant sees first (RAW-C's design, pure).

A relatedness item is a setup's two sentences (``precontext`` = sentence 1, ``sentence`` =
sentence 2; ``annotations.kinds.Kind.sentence_pairs``). The order follows the place the
participant holds: the slot's number and the sample. For one sample the slots 1, 2, 3, ...
alternate between the two orders, so its raters see each order equally often (one more of
one order when the number of its ratings is odd); within a batch, whose slots mostly share a
number, the order alternates with the sample's id, so a participant sees about half the
pairs each way. The rating records the order shown (``Rating.sentence_order``): ``"12"``
sentence 1 first, ``"21"`` sentence 2 first, ``""`` not a counterbalanced pair (another
kind, an attention check, an imported rating). Every page and the rating save ask
``sentence_order``; no other place decides the order.
"""

from __future__ import annotations

AS_STORED, SWAPPED, NOT_A_PAIR = "12", "21", ""


def sentence_order(*, pairs: bool, number: int | None, sample_id: int | None) -> str:
    """The order of a pair shown from slot ``number`` of sample ``sample_id`` (``pairs``:
    the study's kind counterbalances two sentences)."""
    if not pairs or number is None or sample_id is None:
        return NOT_A_PAIR
    return SWAPPED if (number + sample_id) % 2 else AS_STORED


def shown(first: str, second: str, order: str) -> tuple[str, str]:
    """The two sentences in the order they are shown."""
    return (second, first) if order == SWAPPED else (first, second)
