"""Invariants that live in the database."""

import pytest
from django.db import IntegrityError, transaction

from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Rater, Rating, Sample, Story
from annotations.services import rater_exclude, rater_include
from tests.factories import ambistory_setup

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup_samples():
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    return list(Sample.objects.order_by("position"))


def _participant(name="p1") -> Rater:
    return Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=name)


@pytest.mark.parametrize("score", [0, 6])
def test_the_database_refuses_a_score_outside_1_to_5(setup_samples, score):
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(sample=setup_samples[0], rater=_participant(), score=score)


def test_the_database_refuses_a_second_rating_by_the_same_rater(setup_samples):
    rater = _participant()
    Rating.objects.create(sample=setup_samples[0], rater=rater, score=3)
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(sample=setup_samples[0], rater=rater, score=4)


def test_the_database_refuses_a_second_story_with_the_same_ending(setup_samples):
    story = setup_samples[0].story
    with pytest.raises(IntegrityError), transaction.atomic():
        Story.objects.create(setup=story.setup, ending=story.ending)


def test_excluding_a_rater_takes_their_ratings_out_of_mean_and_sd(setup_samples, researcher):
    sample = setup_samples[0]
    outlier = _participant()
    Rating.objects.create(sample=sample, rater=outlier, score=1)
    with_outlier = Sample.objects.with_stats().get(pk=sample.pk)
    assert with_outlier.n_ratings == 6
    rater_exclude(rater=outlier, source="manual", reason="straight-lining", by=researcher)
    rater_exclude(rater=outlier, source="manual", reason="again")  # idempotent
    without = Sample.objects.with_stats().get(pk=sample.pk)
    assert without.n_ratings == 5 and without.mean > with_outlier.mean
    assert Sample.objects.with_stats(include_excluded=True).get(pk=sample.pk).n_ratings == 6
    assert Rating.objects.valid().filter(rater=outlier).count() == 0
    assert rater_include(rater=outlier, by=researcher) == 1
    assert Sample.objects.with_stats().get(pk=sample.pk).mean == with_outlier.mean
    assert outlier.exclusions.count() == 1  # the decision stays on record, revoked


def test_a_sample_with_one_rating_has_a_mean_and_no_sd(db):
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    sample = Sample.objects.first()
    sample.ratings.exclude(position=0).delete()
    stats = Sample.objects.with_stats().get(pk=sample.pk)
    assert stats.n_ratings == 1 and stats.sd is None
    assert stats.mean == sample.ratings.get().score
