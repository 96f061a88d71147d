"""studies/shown_texts.py's ``rated_samples``: the rater's rated samples and the current
ones of them (rated on the texts the study shows now), read in one query."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotations.models import Rating, Sample
from studies import services
from studies.shown_texts import current_in_study, rated_samples
from studies.text_corrections import sample_texts_correct

from .helpers import open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db


def test_rated_samples_reads_outdated_and_current_ratings_in_one_query():
    study = open_study(3, per_participant=3, ratings=1, checks=0)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    mine = Rating.objects.filter(rater=participant.rater)
    rated = set(mine.values_list("sample_id", flat=True))
    assert len(rated) == 3
    outdated = Sample.objects.get(pk=min(rated))
    sample_texts_correct(study=study, sample=outdated, texts={"precontext": "Once upon a time."})
    with CaptureQueriesContext(connection) as queries:
        result = rated_samples(study, participant.rater_id)
    assert len(queries) == 1
    edited = set(
        Sample.objects.filter(story__setup=outdated.story.setup).values_list("pk", flat=True)
    )
    assert rated - edited and rated & edited  # the rater has current and outdated ratings
    assert result == (rated, rated - edited)
    # the same as reading the ratings, then the current ones (the two queries it replaced)
    current = set(mine.filter(current_in_study(study)).values_list("sample_id", flat=True))
    assert result == (rated, current)
    assert rated_samples(study.pk, participant.rater_id) == result  # the study's id too
