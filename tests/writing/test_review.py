"""writing/review.py's reviews: the current review again (a double click, a resubmitted
form) records nothing; another decision is a new one, logged. Two rating studies created
into one split, or of one setup into two splits, or a rating study and an AmbiStory import
of one story, at once: the second waits for the first and is refused."""

from __future__ import annotations

import pytest
from django.db import connection

from annotations.importers import AmbiStoryFormatError, ambistory_import, parse_ambistory
from annotations.models import Dataset, Sample, Split, Story
from studies.models import Study
from tests.factories import ambistory_sample
from tests.locks import second_waits_on_first
from tests.writing.helpers import (
    SENTENCES,
    make_pool,
    open_writing_study,
    qualified_writer,
    write_endings,
    written_setups,
)
from writing import review, services
from writing.models import ReviewDecision, Sentence

pytestmark = pytest.mark.django_db


def _sentence() -> Sentence:
    make_pool()
    writer = qualified_writer(open_writing_study(Study.Activity.SENTENCES, slug="w", per=1), 1)
    draw = services.draw_current(participant=writer)
    text = SENTENCES[draw.pair.homonym.form]
    return services.sentence_submit(participant=writer, draw_id=draw.pk, text=text)


def _log(sentence: Sentence) -> list[tuple[str, str, str]]:
    rows = ReviewDecision.objects.filter(sentence=sentence).order_by("id")
    return list(rows.values_list("decision", "text_after", "reason"))


def test_a_second_identical_accept_records_nothing_and_returns_the_same_sentence(researcher):
    sentence = _sentence()
    first = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    again = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    assert _log(sentence) == [("accepted", sentence.text, "")]
    assert (again.pk, again.decision, again.final_text) == (first.pk, "accepted", sentence.text)
    assert again.reviewed_at == first.reviewed_at  # the first decision's, not touched


def test_an_accept_with_the_same_edit_or_a_reject_with_the_same_reason_is_logged_once(
    researcher,
):
    sentence = _sentence()
    edit = f"In the end, the {sentence.pair.homonym.form} was fine."
    for _ in range(2):
        review.sentence_review(
            sentence=sentence, decision="accepted", edited_text=f" {edit} ", by=researcher
        )
    for _ in range(2):
        review.sentence_review(
            sentence=sentence, decision="rejected", reason="not ambiguous", by=researcher
        )
    assert _log(sentence) == [
        ("accepted", edit, ""),
        ("rejected", sentence.text, "not ambiguous"),
    ]


def test_a_different_second_decision_is_a_new_decision_and_logged(researcher):
    """The rule before: a reviewer may change a decision until the sentence is a setup."""
    sentence = _sentence()
    review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    review.sentence_review(sentence=sentence, decision="rejected", reason="dull", by=researcher)
    review.sentence_review(sentence=sentence, decision="rejected", reason="flat", by=researcher)
    review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    assert [d for d, _, _ in _log(sentence)] == ["accepted", "rejected", "rejected", "accepted"]
    assert Sentence.objects.get(pk=sentence.pk).decision == "accepted"


def _two_creations_at_once(
    first: list, second: list, researcher, *, second_split: str = "s1"
) -> list:
    """Create a rating study of ``first`` into mine/s1 and hold its transaction open until a
    creation of ``second`` into mine/``second_split`` (started meanwhile, in another thread
    and connection) waits on it; then commit. Returns the first's study and the second's, or
    the exceptions."""

    def create(written: list, slug: str, split: str):
        return lambda: review.rating_study_create(
            written=written, title=slug, slug=slug, dataset="mine", split=split, by=researcher
        )

    return second_waits_on_first(
        create(first, "first", "s1"), create(second, "second", second_split)
    )


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("empty_split", [True, False], ids=["empty-split", "no-split"])
def test_a_second_rating_study_into_one_split_at_once_waits_and_is_refused(researcher, empty_split):
    """The second creation (other setups, so only the split is shared) locks the split in
    ``positions_after`` before it looks for samples, so it waits for the first's commit and
    then finds its samples. Before, into a split that existed empty, it found none, wrote
    its own under the same ids and failed on the samples' unique constraint (an
    IntegrityError, not the refusal); a split made by the first was ordered by its own
    unique constraint already."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    make_pool()
    written = written_setups(researcher, 2)
    write_endings(written, researcher)
    if empty_split:  # a split whose samples went with their setups may be used again
        Split.objects.create(dataset=Dataset.objects.create(name="mine", title="Mine"), name="s1")
    outcome = _two_creations_at_once([written[0]], [written[1]], researcher)
    assert [type(o) for o in outcome] == [Study, services.WritingError], outcome
    assert "mine/s1 already has samples; choose a new split name" in str(outcome[1])
    assert list(Study.objects.filter(activity=Study.Activity.RATING)) == [outcome[0]]
    samples = Sample.objects.filter(split__name="s1")
    assert set(samples.values_list("story__setup", flat=True)) == {written[0].setup_id}
    assert sorted(samples.values_list("position", flat=True)) == list(range(6))


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_second_rating_study_of_a_setup_into_another_split_at_once_waits_and_is_refused(
    researcher,
):
    """The second creation shares a setup with the first but not the split, so the split's
    lock orders nothing: it locks its chosen setups (in id order, whatever order they were
    chosen in) before it looks for their samples, so it waits for the first's commit and is
    then refused naming the first's split. Before, neither saw the other's uncommitted
    samples, and the second failed on ``unique_story_sense`` (an IntegrityError, a server
    error) instead of the refusal."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    make_pool()
    written = written_setups(researcher, 2)
    write_endings(written, researcher)
    Dataset.objects.create(name="mine", title="Mine")  # a new one would order them by its key
    outcome = _two_creations_at_once(
        [written[0]], [written[1], written[0]], researcher, second_split="s2"
    )
    assert [type(o) for o in outcome] == [Study, services.WritingError], outcome
    assert "already samples of mine/s1: choose setups that are not rated yet" in str(outcome[1])
    assert list(Study.objects.filter(activity=Study.Activity.RATING)) == [outcome[0]]
    samples = Sample.objects.filter(split__dataset__name="mine")
    assert set(samples.values_list("split__name", flat=True)) == {"s1"}
    assert set(samples.values_list("story__setup", flat=True)) == {written[0].setup_id}
    assert sorted(samples.values_list("position", flat=True)) == list(range(6))
    assert not Split.objects.filter(name="s2").exists()  # the second's split went with it


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_an_ambistory_import_of_a_story_being_made_a_sample_at_once_waits_and_is_refused(
    researcher,
):
    """A rating study of a setup into mine/s1 and an AmbiStory import into another split of
    one of its stories (the open-ended one, stored already) judged for one of its senses:
    the import locks its stories (``importers.stories_locked``) as the creation does, after
    its split's lock, so it waits for the creation's commit and is then refused naming the
    sample of mine/s1. Before, the creation locked no story, the import saw no sample of it
    and failed on ``unique_story_sense`` (an IntegrityError)."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    make_pool()
    (written,) = written_setups(researcher, 1)
    write_endings([written], researcher)
    setup, sense = written.setup, written.sentence.pair.sense_a
    story, _ = Story.objects.get_or_create(setup=setup, ending="")  # stored: nothing orders
    for name in ("mine", "ambistory"):  # new ones would order them by their keys
        Dataset.objects.create(name=name, title=name)
    data = {
        "0": ambistory_sample(
            "0",
            homonym=setup.homonym.form,
            meaning=sense.gloss,
            example=sense.example_sentence,
            precontext=setup.precontext,
            sentence=setup.sentence,
        )
    }
    outcome = second_waits_on_first(
        lambda: review.rating_study_create(
            written=[written], title="r", slug="r", dataset="mine", split="s1", by=researcher
        ),
        lambda: ambistory_import(samples=parse_ambistory(data), split="dev"),
    )
    assert [type(o) for o in outcome] == [Study, AmbiStoryFormatError], outcome
    rated = Sample.objects.get(story=story, sense=sense)
    assert (
        str(outcome[1])
        == f"sample 0: already exists in split mine/s1 (as sample {rated.dataset_id})"
    )
    assert Sample.objects.filter(split__dataset__name="mine").count() == 6
    assert not Split.objects.filter(dataset__name="ambistory").exists()
