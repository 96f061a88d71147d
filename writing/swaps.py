"""Changing the senses a written text is assigned to, in review (issue 31): keyword-only,
typed, atomic, idempotent (a request names the senses wanted, so sending it twice changes
nothing the second time), each change logged in ``SenseSwap`` with who and when.

``sentence_senses_swap``: a sentence's pair replaced by another pair of the same word (the
paper, section 3.2: "In a few cases where the sentence is successfully ambiguous but
clearly references the wrong word senses, we manually replace the word senses with the
correct ones"); ``Draw.pair`` keeps the pair the writer was shown. ``ending_sense_swap``:
an ending assigned to the other sense of its setup's pair (one that makes the other sense
the more plausible), which then counts as that sense's ending for the rating study.
"""

from __future__ import annotations

from django.db import transaction

from annotations.models import Sense

from .models import Ending, SensePair, SenseSwap, Sentence, WrittenSetup
from .services import WritingError, pair_of


@transaction.atomic
def sentence_senses_swap(
    *, sentence: Sentence, sense_a: Sense, sense_b: Sense, reason: str = "", by=None
) -> Sentence:
    """Assign ``sentence`` to the pair (``sense_a``, ``sense_b``) of its word, an entry of
    the pool made when there is none. Refused once the sentence is a setup (its ending
    slots are the pair's senses)."""
    sentence = Sentence.objects.select_for_update().select_related("pair").get(pk=sentence.pk)
    homonym_id = sentence.pair.homonym_id
    for field, sense in (("sense_a", sense_a), ("sense_b", sense_b)):
        if sense.homonym_id != homonym_id:
            raise WritingError(f"{field}: sense {sense.pk} is not a sense of this sentence's word.")
    if sense_a.pk == sense_b.pk:
        raise WritingError("Choose two different senses.")
    pair = pair_of(sense_a, sense_b)
    if pair is not None and pair.pk == sentence.pair_id:
        return sentence  # already these senses: nothing to change
    if WrittenSetup.objects.filter(sentence=sentence).exists():
        raise WritingError(
            "This sentence is already part of a setup: its senses can no longer change."
        )
    if pair is None:
        pair = SensePair.objects.create(homonym_id=homonym_id, sense_a=sense_a, sense_b=sense_b)
    SenseSwap.objects.create(
        sentence=sentence, pair_before_id=sentence.pair_id, pair_after=pair, reason=reason, by=by
    )
    sentence.pair = pair
    sentence.save(update_fields=["pair"])
    return sentence


@transaction.atomic
def ending_sense_swap(*, ending: Ending, sense: Sense, reason: str = "", by=None) -> Ending:
    """Assign ``ending`` to ``sense``, one of the two senses of its setup's pair."""
    ending = (
        Ending.objects.select_for_update(of=("self",))
        .select_related("slot__written__sentence__pair")
        .get(pk=ending.pk)
    )
    pair = ending.slot.written.sentence.pair
    if sense.pk not in (pair.sense_a_id, pair.sense_b_id):
        raise WritingError(f"sense: sense {sense.pk} is not one of this story's two senses.")
    if sense.pk == ending.sense_id:
        return ending  # already this sense: nothing to change
    SenseSwap.objects.create(
        ending=ending, sense_before_id=ending.sense_id, sense_after=sense, reason=reason, by=by
    )
    ending.sense = sense
    ending.save(update_fields=["sense"])
    return ending
