"""writing/swaps.py (issue 31): a reviewer assigns a sentence to another pair of senses of
its word, or an ending to the other sense of its story; each change is logged with who and
when, sent twice it changes nothing the second time, and the rating study's "an accepted
ending per sense" and the export follow the change."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotations.models import Sense
from studies.models import Study
from tests.writing.helpers import (
    SENTENCES,
    make_pool,
    open_writing_study,
    qualified_writer,
    writing_world,
)
from writing import review, services, swaps
from writing.models import Ending, SensePair, SenseSwap, Sentence, WrittenSetup

pytestmark = pytest.mark.django_db


def _sentence() -> Sentence:
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    writer = qualified_writer(study, 1)
    draw = services.draw_current(participant=writer)
    return services.sentence_submit(
        participant=writer, draw_id=draw.pk, text=SENTENCES[draw.pair.homonym.form]
    )


def _third_sense(sentence: Sentence) -> Sense:
    """A pool entry of the same word with one new sense (as a pun dataset has several)."""
    pair, _ = services.pair_add(
        form=sentence.pair.homonym.form,
        gloss_a=sentence.pair.sense_a.gloss,
        example_a=sentence.pair.sense_a.example_sentence,
        gloss_b="a third meaning of the word",
    )
    return pair.sense_b


def test_a_sentence_is_assigned_to_other_senses_of_its_word_logged_once(researcher):
    sentence = _sentence()
    shown = sentence.pair
    third = _third_sense(sentence)
    for _ in range(2):  # the same request twice: one change
        swaps.sentence_senses_swap(
            sentence=sentence,
            sense_a=third,
            sense_b=shown.sense_b,
            reason="it is about the third meaning",
            by=researcher,
        )
    sentence.refresh_from_db()
    assert {sentence.pair.sense_a_id, sentence.pair.sense_b_id} == {third.pk, shown.sense_b_id}
    assert sentence.draw.pair_id == shown.pk  # what the writer was shown stays
    swap = SenseSwap.objects.get()
    assert (swap.sentence_id, swap.pair_before_id, swap.pair_after_id, swap.by) == (
        sentence.pk,
        shown.pk,
        sentence.pair_id,
        researcher,
    )
    assert swap.at is not None and swap.reason == "it is about the third meaning"
    swaps.sentence_senses_swap(sentence=sentence, sense_a=shown.sense_a, sense_b=shown.sense_b)
    sentence.refresh_from_db()
    assert sentence.pair_id == shown.pk and SenseSwap.objects.count() == 2  # an existing pair
    pairs = SensePair.objects.count()
    swaps.sentence_senses_swap(sentence=sentence, sense_a=shown.sense_b, sense_b=shown.sense_a)
    assert SensePair.objects.count() == pairs and SenseSwap.objects.count() == 2  # same pair


def test_a_sentence_swap_is_refused_for_another_words_sense_the_same_sense_or_a_setup(
    researcher,
):
    sentence = _sentence()
    other_word = Sense.objects.exclude(homonym=sentence.pair.homonym).first()
    with pytest.raises(services.WritingError, match=f"sense_b: sense {other_word.pk} is not"):
        swaps.sentence_senses_swap(
            sentence=sentence, sense_a=sentence.pair.sense_a, sense_b=other_word
        )
    with pytest.raises(services.WritingError, match="two different senses"):
        swaps.sentence_senses_swap(
            sentence=sentence, sense_a=sentence.pair.sense_a, sense_b=sentence.pair.sense_a
        )
    third = _third_sense(sentence)
    sentence = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    precontext = review.precontext_write(sentence=sentence, text="One. Two. Three.")
    review.setup_make(precontext=precontext)
    with pytest.raises(services.WritingError, match="already part of a setup"):
        swaps.sentence_senses_swap(sentence=sentence, sense_a=third, sense_b=sentence.pair.sense_b)
    assert not SenseSwap.objects.exists()


def _two_accepted_endings(researcher) -> tuple[WrittenSetup, Ending, Ending]:
    writing_world(researcher)
    written = WrittenSetup.objects.get()
    study = open_writing_study(Study.Activity.ENDINGS, slug="two", per=2, setups=[written])
    writer = qualified_writer(study, 30)
    endings = [
        services.ending_submit(participant=writer, slot_id=slot.pk, text=f"It ended, part {n}.")
        for n, slot in enumerate(services.ending_slots_hold(participant=writer))
    ]
    for ending in endings:
        review.ending_review(ending=ending, decision="accepted", by=researcher)
    return written, endings[0], endings[1]


def test_an_ending_is_assigned_to_the_other_sense_and_readiness_follows(researcher):
    written, first, second = _two_accepted_endings(researcher)
    assert first.sense_id == first.slot.sense_id and second.sense_id == second.slot.sense_id
    assert list(review.ready_setups()) == [written]
    for _ in range(2):
        swaps.ending_sense_swap(
            ending=second, sense=first.sense, reason="reads as A", by=researcher
        )
    second.refresh_from_db()
    assert second.sense_id == first.sense_id and second.slot.sense_id != first.sense_id
    swap = SenseSwap.objects.get()
    assert (swap.ending_id, swap.sense_before_id, swap.sense_after_id, swap.by) == (
        second.pk,
        second.slot.sense_id,
        first.sense_id,
        researcher,
    )
    assert list(review.ready_setups()) == []  # both endings now favour one sense
    with pytest.raises(services.WritingError, match="has no accepted ending for"):
        review.rating_study_create(written=[written], title="R", slug="r", dataset="d", split="s")
    swaps.ending_sense_swap(ending=first, sense=second.slot.sense, by=researcher)
    assert list(review.ready_setups()) == [written]  # swapped both ways: ready again
    assert SenseSwap.objects.count() == 2


def test_an_ending_swap_to_a_sense_outside_its_story_is_refused(researcher):
    _, first, _ = _two_accepted_endings(researcher)
    outside = Sense.objects.exclude(homonym=first.sense.homonym).first()
    with pytest.raises(services.WritingError, match=f"sense: sense {outside.pk} is not one"):
        swaps.ending_sense_swap(ending=first, sense=outside)
    assert not SenseSwap.objects.exists()


def test_the_review_pages_change_the_senses_and_the_export_shows_who_and_when(client, researcher):
    sentence = _sentence()
    third = _third_sense(sentence)
    shown = sentence.pair
    client.force_login(researcher)
    url = reverse("writing:sentence_senses", args=[sentence.pk])
    data = {"sense_a": third.pk, "sense_b": shown.sense_b_id, "reason": "third"}
    page = client.post(url, data, follow=True)
    assert [str(m) for m in page.context["messages"]] == ["The sentence's senses are changed."]
    assert (
        'id="sense-swaps"' in page.content.decode() and 'id="shown-pair"' in page.content.decode()
    )
    bad = client.post(url, {"sense_a": third.pk, "sense_b": 999999}, follow=True)
    assert str(list(bad.context["messages"])[0]).startswith("The senses were not changed:")
    export = json.loads(b"".join(client.get(reverse("writing:export")).streaming_content))
    record = next(r for r in export["sentences"] if r["id"] == sentence.pk)
    assert record["meaning_1"] == third.gloss
    assert record["shown_meanings"] == [shown.sense_a.gloss, shown.sense_b.gloss]
    (swap,) = record["sense_swaps"]
    assert swap["before"] == [shown.sense_a.gloss, shown.sense_b.gloss]
    assert (swap["by"], swap["reason"]) == ("rita", "third") and swap["at"]


def test_the_ending_page_assigns_the_ending_to_the_other_sense(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    ending = Ending.objects.get(pk=world["ending_pk"])
    page = client.get(reverse("writing:ending", args=[ending.pk]))
    other = page.context["other_sense"]
    assert other.pk != ending.sense_id and f'value="{other.pk}"' in page.content.decode()
    url = reverse("writing:ending_sense", args=[ending.pk])
    page = client.post(url, {"sense": other.pk, "reason": "fits B"}, follow=True)
    assert [str(m) for m in page.context["messages"]] == ["The ending's sense is changed."]
    text = page.content.decode()
    assert 'id="shown-sense"' in text and 'id="sense-swaps"' in text
    export = json.loads(b"".join(client.get(reverse("writing:export")).streaming_content))
    (record,) = [e for s in export["sentences"] for e in s["endings"] if e["id"] == ending.pk]
    assert (record["intended_meaning"], record["shown_meaning"]) == (
        other.gloss,
        ending.slot.sense.gloss,
    )
    assert record["sense_swaps"][0]["after"] == other.gloss
    assert record["sense_swaps"][0]["by"] == "rita"
